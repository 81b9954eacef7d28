// Package planner runs one daemonplan sync on Kubernetes API objects and
// renders the plan: it is the code path of the daemonplan CLI, and of the
// conformance test that compares it with the real controller.
package planner

import (
	"time"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/internal/conformance"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/rollout"
)

// Options are the switches of Plan.
type Options struct {
	// Strict refuses a DaemonSet the API server would reject.
	Strict bool
	// Placement sets burst limits and toleration matching.
	Placement placement.Options
	// Progressive are daemonplan's opt-in rollout extensions, e.g. those
	// of an OpenKruise Advanced DaemonSet (convert.KruiseDaemonSet).
	Progressive rollout.Progressive
}

// Plan converts c and runs daemonplan.Sync at now with upstream's revision
// hash. The error is a conversion failure or, with Strict, the validation
// findings (field.ErrorList).
func Plan(c *load.Cluster, now time.Time, opts Options) (daemonplan.Plan, error) {
	ds, err := convert.DaemonSet(c.DaemonSet)
	if err != nil {
		return daemonplan.Plan{}, err
	}
	return daemonplan.Sync(daemonplan.Input{
		DaemonSet: ds,
		Nodes:     convert.Nodes(c.Nodes),
		Pods:      convert.Pods(c.Pods),
		Revisions: convert.Revisions(c.Revisions),
		Now:       now,
	}, daemonplan.Options{
		Strict:      opts.Strict,
		Placement:   opts.Placement,
		Hash:        convert.HashFunc(c.DaemonSet),
		Progressive: opts.Progressive,
	})
}

// JSON renders p in the plan schema of the conformance README: every list
// present (never null) and sorted as the plan sorts it.
func JSON(p daemonplan.Plan) conformance.Plan {
	out := conformance.Plan{
		DaemonSet: conformance.Ref{Namespace: p.Namespace, Name: p.Name},
		Nodes:     make([]conformance.Node, 0, len(p.Nodes)),
		Create:    make([]conformance.Create, 0, len(p.Create)),
		Delete:    make([]conformance.Delete, 0, len(p.Delete)),
		Adopt:     nonNil(p.Adopt),
		Release:   nonNil(p.Release),
		Relabel:   make([]conformance.Relabel, 0, len(p.Relabel)),
		Revisions: conformance.Revisions{
			Create: make([]conformance.Revision, 0, len(p.Revisions.Create)),
			Update: make([]conformance.Revision, 0, len(p.Revisions.Update)),
			Delete: nonNil(p.Revisions.Delete),
			Adopt:  nonNil(p.Revisions.Adopt),
		},
		Status: conformance.Status{
			CurrentNumberScheduled: p.Status.CurrentNumberScheduled,
			NumberMisscheduled:     p.Status.NumberMisscheduled,
			DesiredNumberScheduled: p.Status.DesiredNumberScheduled,
			NumberReady:            p.Status.NumberReady,
			ObservedGeneration:     p.Status.ObservedGeneration,
			UpdatedNumberScheduled: p.Status.UpdatedNumberScheduled,
			NumberAvailable:        p.Status.NumberAvailable,
			NumberUnavailable:      p.Status.NumberUnavailable,
			CollisionCount:         p.Status.CollisionCount,
		},
		RolloutStatus: conformance.RolloutStatus{Message: p.Rollout.Message, Done: p.Rollout.Done},
		Errors:        make([]string, 0, len(p.Errors)),
		Warnings:      make([]conformance.Warning, 0, len(p.Warnings)),
	}
	for _, n := range p.Nodes {
		out.Nodes = append(out.Nodes, conformance.Node{
			Name: n.Node, ShouldRun: n.ShouldRun, ShouldContinueRunning: n.ShouldContinueRunning,
			Reason: n.Reason.String(), Message: n.Message(),
		})
	}
	for _, c := range p.Create {
		cr := conformance.Create{Node: c.Node, Labels: c.Labels, Tolerations: make([]conformance.Toleration, 0, len(c.Tolerations))}
		for _, t := range c.Tolerations {
			cr.Tolerations = append(cr.Tolerations, conformance.Toleration{
				Key: t.Key, Operator: string(t.Operator), Value: t.Value, Effect: string(t.Effect), TolerationSeconds: t.TolerationSeconds,
			})
		}
		out.Create = append(out.Create, cr)
	}
	for _, d := range p.Delete {
		out.Delete = append(out.Delete, conformance.Delete{Pod: d.Pod, Node: d.Node, Reason: d.Reason.String()})
	}
	for _, r := range p.Relabel {
		out.Relabel = append(out.Relabel, conformance.Relabel{Pod: r.Pod, Hash: r.Hash})
	}
	for _, r := range p.Revisions.Create {
		out.Revisions.Create = append(out.Revisions.Create, conformance.Revision{Name: r.Name, Revision: r.Revision, Hash: r.Labels[api.LabelRevisionHash]})
	}
	for _, r := range p.Revisions.Update {
		out.Revisions.Update = append(out.Revisions.Update, conformance.Revision{Name: r.Name, Revision: r.Revision, Hash: r.Labels[api.LabelRevisionHash]})
	}
	for _, e := range p.Errors {
		out.Errors = append(out.Errors, e.Error())
	}
	for _, w := range p.Warnings {
		out.Warnings = append(out.Warnings, conformance.Warning{Field: w.Field, Type: w.Type.String(), Detail: w.Detail})
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
