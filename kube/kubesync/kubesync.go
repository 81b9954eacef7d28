package kubesync

import (
	"cmp"
	"errors"
	"slices"
	"time"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/kube/schema"
	"github.com/daemonplan/daemonplan/kube/upstream"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/rollout"
)

// Options are the switches of Sync: the core's, and the Kubernetes version
// whose controller the plan reproduces.
type Options struct {
	// Options are daemonplan.Sync's switches: Strict, Placement,
	// Progressive (e.g. those of an OpenKruise Advanced DaemonSet,
	// convert.KruiseDaemonSet). Hash must be nil: Sync names revisions
	// with upstream's hash of KubernetesVersion.
	daemonplan.Options
	// KubernetesVersion is the Kubernetes minor whose controller the plan
	// reproduces; the zero value is upstream.Latest. It decides the
	// revision hash, the only decision that differs between the supported
	// versions (docs/kubernetes-versions.md).
	KubernetesVersion upstream.Version
}

// State is what a controller carries from one sync to the next: the
// fields of daemonplan.Input that neither the snapshot nor the clock
// gives. The zero value is a first sync with nothing pending.
type State struct {
	// Backoff is the failed-pod backoff state the previous plan returned
	// (daemonplan.Plan.Backoff); nil at the first sync.
	Backoff placement.Backoff
	// ExpectationsPending reports that creates or deletes of an earlier
	// plan are not yet visible in the snapshot given to Sync: upstream
	// then only refreshes the status. A controller sets it until its
	// informers have seen every pod it created and deleted
	// (apply.Expectations.Pending).
	ExpectationsPending bool
}

// Sync converts s and runs daemonplan.Sync at now with upstream's revision
// hash: daemonplan.Sync of what Input returns. The error is a conversion
// or version error, daemonplan.ErrInvalidInput wrapping CheckInput's
// findings, the validation errors of Options.Progressive, or, with Strict,
// the validation findings (field.ErrorList). A nil s, or one without a
// DaemonSet, is an error, and so is a non-nil Options.Hash.
func Sync(s *load.Snapshot, now time.Time, st State, opts Options) (daemonplan.Plan, error) {
	in, syncOpts, err := Input(s, now, st, opts)
	if err != nil {
		return daemonplan.Plan{}, err
	}
	return daemonplan.Sync(in, syncOpts)
}

// Input converts s into the input and options of a daemonplan sync at now
// from state st, with upstream's revision hash for opts.KubernetesVersion:
// what Sync syncs. A controller that plans again and again gives them to
// a daemonplan.Planner, which keeps its memory from one sync to the next.
// The input shares the label maps of s's objects. A nil s, or one without
// a DaemonSet, is an error, and so is a non-nil Options.Hash.
func Input(s *load.Snapshot, now time.Time, st State, opts Options) (daemonplan.Input, daemonplan.Options, error) {
	if s == nil || s.DaemonSet == nil {
		return daemonplan.Input{}, daemonplan.Options{}, errors.New("kubesync: no DaemonSet")
	}
	if opts.Hash != nil {
		return daemonplan.Input{}, daemonplan.Options{}, errors.New("kubesync: Options.Hash is set: the revision hash is upstream's of Options.KubernetesVersion")
	}
	ds, err := convert.DaemonSet(s.DaemonSet)
	if err != nil {
		return daemonplan.Input{}, daemonplan.Options{}, err
	}
	hash, err := convert.HashFunc(s.DaemonSet, opts.KubernetesVersion.OrLatest())
	if err != nil {
		return daemonplan.Input{}, daemonplan.Options{}, err
	}
	in := daemonplan.Input{
		DaemonSet: ds,
		Nodes:     convert.Nodes(s.Nodes),
		Pods:      convert.Pods(s.Pods),
		Revisions: convert.Revisions(s.Revisions),
		Now:       now,

		Backoff:             st.Backoff,
		ExpectationsPending: st.ExpectationsPending,
	}
	syncOpts := opts.Options
	syncOpts.Hash = hash
	return in, syncOpts, nil
}

// JSON renders p as the plan document of package schema, what
// `daemonplan plan -o json` prints: every list present (never null) and
// sorted as the plan sorts it, reasons by name. The keys of the conformance
// schema come first, then the rest of the plan.
func JSON(p daemonplan.Plan, v upstream.Version) schema.Plan {
	out := schema.Plan{
		KubernetesVersion: v.OrLatest().String(),
		DaemonSet:         schema.Ref{Namespace: p.Namespace, Name: p.Name},
		Nodes:             make([]schema.Node, 0, len(p.Nodes)),
		Create:            make([]schema.Create, 0, len(p.Create)),
		Delete:            make([]schema.Delete, 0, len(p.Delete)),
		Adopt:             nonNil(p.Adopt),
		Release:           nonNil(p.Release),
		Relabel:           make([]schema.Relabel, 0, len(p.Relabel)),
		Revisions: schema.Revisions{
			Create:  make([]schema.Revision, 0, len(p.Revisions.Create)),
			Update:  make([]schema.Revision, 0, len(p.Revisions.Update)),
			Delete:  mergeSorted(p.Revisions.DeleteDuplicates, p.Revisions.Delete),
			Adopt:   nonNil(p.Revisions.Adopt),
			Release: nonNil(p.Revisions.Release),
		},
		Status: schema.Status{
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
		RolloutStatus: schema.RolloutStatus{Message: p.Rollout.Message, Done: p.Rollout.Done},
		Errors:        make([]string, 0, len(p.Errors)),
		Warnings:      make([]schema.Warning, 0, len(p.Warnings)),

		StatusChanged:  p.StatusChanged,
		Hash:           p.Hash,
		Keep:           nonNil(p.Keep),
		SkippedCreates: p.SkippedCreates,
		SkippedDeletes: p.SkippedDeletes,
		RequeueAfter:   p.RequeueAfter.String(),
		Backoff:        make([]schema.Backoff, 0, len(p.Backoff)),
	}
	for k, e := range p.Backoff {
		out.Backoff = append(out.Backoff, schema.Backoff{
			DaemonSetUID: k.DaemonSetUID, ObservedGeneration: k.ObservedGeneration, Node: k.Node,
			Delay: e.Delay.String(), LastUpdate: e.LastUpdate.UTC(),
		})
	}
	slices.SortFunc(out.Backoff, func(a, b schema.Backoff) int {
		return cmp.Or(cmp.Compare(a.DaemonSetUID, b.DaemonSetUID), cmp.Compare(a.ObservedGeneration, b.ObservedGeneration), cmp.Compare(a.Node, b.Node))
	})
	out.Progress = progressJSON(p.Progress)
	for _, n := range p.Nodes {
		out.Nodes = append(out.Nodes, schema.Node{
			Name: n.Node, ShouldRun: n.ShouldRun, ShouldContinueRunning: n.ShouldContinueRunning,
			Reason: n.Reason.String(), Message: n.Message(),
		})
	}
	for _, c := range p.Create {
		cr := schema.Create{Node: c.Node, Labels: c.Labels, Tolerations: make([]schema.Toleration, 0, len(c.Tolerations))}
		for _, t := range c.Tolerations {
			cr.Tolerations = append(cr.Tolerations, schema.Toleration{
				Key: t.Key, Operator: string(t.Operator), Value: t.Value, Effect: string(t.Effect), TolerationSeconds: t.TolerationSeconds,
			})
		}
		out.Create = append(out.Create, cr)
	}
	for _, d := range p.Delete {
		out.Delete = append(out.Delete, schema.Delete{Pod: d.Pod, Node: d.Node, Reason: d.Reason.String()})
	}
	for _, r := range p.Relabel {
		out.Relabel = append(out.Relabel, schema.Relabel{Pod: r.Pod, Hash: r.Hash})
	}
	for _, r := range p.Revisions.Create {
		out.Revisions.Create = append(out.Revisions.Create, schema.Revision{Name: r.Name, Revision: r.Revision, Hash: r.Labels[api.LabelRevisionHash]})
	}
	for _, r := range p.Revisions.Update {
		out.Revisions.Update = append(out.Revisions.Update, schema.Revision{Name: r.Name, Revision: r.Revision, Hash: r.Labels[api.LabelRevisionHash]})
	}
	for _, e := range p.Errors {
		out.Errors = append(out.Errors, e.Error())
	}
	for _, w := range p.Warnings {
		out.Warnings = append(out.Warnings, schema.Warning{Field: w.Field, Type: w.Type.String(), Detail: w.Detail, Message: w.Error()})
	}
	return out
}

// mergeSorted returns the sorted union of the name lists a and b, never
// nil. A plan lists revision deletes in two steps (duplicates, then
// cleanup); the schema lists them as one.
func mergeSorted(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return nonNil(slices.Compact(out))
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// progressJSON is pr in the schema, nil when no extension is on (pr is
// the zero value).
func progressJSON(pr rollout.Progress) *schema.Progress {
	if pr == (rollout.Progress{}) {
		return nil
	}
	out := &schema.Progress{
		Held: pr.Held.String(), Outdated: pr.Outdated, Allowed: pr.Allowed,
		Partition: pr.Partition, HeldCreates: pr.HeldCreates,
	}
	if c := pr.Canary; c != nil {
		out.Canary = &schema.CanaryProgress{
			Phase: c.Phase.String(), Want: c.Want, Nodes: nonNil(c.Nodes), Failed: nonNil(c.Failed),
			Reason: c.Reason, RollbackTo: c.RollbackTo, RollbackHash: c.RollbackHash,
		}
	}
	if z := pr.Zones; z != nil {
		out.Zones = &schema.ZoneProgress{Active: nonNil(z.Active), Waiting: nonNil(z.Waiting)}
	}
	return out
}
