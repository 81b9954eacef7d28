package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/go-logr/logr"
	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	core "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/controller"
	"k8s.io/kubernetes/pkg/controller/daemon"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/kube/internal/fakeclient"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/kube/schema"
	"github.com/daemonplan/daemonplan/rollout"
)

// outcome is what one upstream sync wrote, in the plan schema.
type outcome struct {
	schema.Plan
	// Actions lists, for a person reading a disagreement, the writes the
	// store refused ("REFUSED ...") and then the accepted ones in the order
	// upstream sent them.
	Actions []string
}

// quietContext carries a logger that drops everything: the controller logs
// every sync, and the harness runs thousands.
func quietContext() context.Context {
	return klog.NewContext(context.Background(), logr.Discard())
}

// recorder is the first reactor of the fake clientset: it hands each write
// to the reactors behind it (kube/internal/fakeclient's, which name pods
// created with generateName as an API server would, then the object tracker)
// and keeps what they accepted. The fake's action log also holds refused
// writes, but an API server that answers AlreadyExists or NotFound wrote
// nothing, so only accepted writes become the plan. The fake runs reactors
// one at a time, under its lock.
type recorder struct {
	next     []core.Reactor
	accepted []core.Action
	refused  []string
}

func (r *recorder) react(action core.Action) (bool, runtime.Object, error) {
	switch action.GetVerb() {
	case "get", "list", "watch":
		return false, nil, nil
	}
	if action.GetVerb() == "delete" && action.GetResource().Resource == "pods" {
		// The tracker removes a pod at once. An API server deletes a
		// scheduled pod gracefully: it stays until the kubelet confirms, so
		// an adoption patch sent later in the same sync (the informer has
		// not seen the sync's own writes, so later steps claim the pod
		// again) still finds it. An unbound pod is removed at once, and
		// whether that patch then fails depends on how fast the informer
		// saw the adoption; keeping it models the timeline in which it had,
		// the one daemonplan plans and the recorded cases show.
		r.accepted = append(r.accepted, action.DeepCopy())
		return true, nil, nil
	}
	for _, next := range r.next {
		if !next.Handles(action) {
			continue
		}
		handled, obj, err := next.React(action)
		if !handled {
			continue
		}
		if err != nil {
			r.refused = append(r.refused, fmt.Sprintf("%s %s: %v", action.GetVerb(), action.GetResource().Resource, err))
		} else {
			r.accepted = append(r.accepted, action.DeepCopy())
		}
		return true, obj, err
	}
	return false, nil, nil
}

// runUpstream runs one sync of the upstream controller on c and maps its
// writes to the plan schema.
func runUpstream(c *cluster) (*outcome, error) {
	ctx, cancel := context.WithCancel(quietContext())
	defer cancel()
	client := fakeclient.New(&load.Snapshot{DaemonSet: c.DS, Nodes: c.Nodes, Pods: c.Pods, Revisions: c.Revisions}, c.Now)
	rec := &recorder{next: slices.Clone(client.ReactionChain)}
	client.PrependReactor("*", "*", rec.react)

	factory := informers.NewSharedInformerFactory(client, controller.NoResyncPeriodFunc())
	// Upstream reads "now" (pod availability, failed-pod backoff) from the
	// backoff's clock, so a fake clock at c.Now makes the sync happen then.
	clock := testingclock.NewFakeClock(c.Now)
	dsc, err := daemon.NewDaemonSetsController(ctx,
		factory.Apps().V1().DaemonSets(),
		factory.Apps().V1().ControllerRevisions(),
		factory.Core().V1().Pods(),
		factory.Core().V1().Nodes(),
		client,
		flowcontrol.NewFakeBackOff(50*time.Millisecond, 500*time.Millisecond, clock),
	)
	if err != nil {
		return nil, err
	}
	defer dsc.UpdiffShutdown()
	// Fill the informers' caches directly instead of starting them: the
	// sync then sees exactly the input, and never its own writes.
	add := func(inf cache.SharedIndexInformer, o any) error { return inf.GetIndexer().Add(o) }
	if err := add(factory.Apps().V1().DaemonSets().Informer(), c.DS.DeepCopy()); err != nil {
		return nil, err
	}
	for _, n := range c.Nodes {
		if err := add(factory.Core().V1().Nodes().Informer(), n.DeepCopy()); err != nil {
			return nil, err
		}
	}
	for _, p := range c.Pods {
		if err := add(factory.Core().V1().Pods().Informer(), p.DeepCopy()); err != nil {
			return nil, err
		}
	}
	for _, r := range c.Revisions {
		if err := add(factory.Apps().V1().ControllerRevisions().Informer(), r.DeepCopy()); err != nil {
			return nil, err
		}
	}

	syncErr := dsc.UpdiffSync(ctx, c.DS.Namespace+"/"+c.DS.Name)
	out := &outcome{Plan: emptyPlan(c)}
	if syncErr != nil {
		out.Errors = []string{syncErr.Error()}
	}
	for _, f := range rec.refused {
		out.Actions = append(out.Actions, "REFUSED "+f)
	}
	m := mapper{out: out, status: statusOf(c.DS), podNode: map[string]string{}, revUpdates: map[string]schema.Revision{}}
	for _, p := range c.Pods {
		m.podNode[p.Name] = p.Spec.NodeName
	}
	for _, a := range rec.accepted {
		out.Actions = append(out.Actions, m.add(a))
	}
	for _, name := range slices.Sorted(maps.Keys(m.revUpdates)) {
		out.Revisions.Update = append(out.Revisions.Update, m.revUpdates[name])
	}
	out.Status = m.status
	out.RolloutStatus = rolloutStatus(c.DS, m.status)
	sortPlan(&out.Plan)
	return out, nil
}

// mapper turns accepted writes into plan entries.
type mapper struct {
	out        *outcome
	status     schema.Status
	podNode    map[string]string
	revUpdates map[string]schema.Revision // the last update of each revision
}

// add maps one write and returns its line for Actions.
func (m *mapper) add(a core.Action) string {
	p := &m.out.Plan
	verb, res := a.GetVerb(), a.GetResource().Resource
	desc := verb + " " + res
	if sub := a.GetSubresource(); sub != "" {
		desc += "/" + sub
	}
	switch {
	case res == "pods" && verb == "create":
		pod := a.(core.CreateAction).GetObject().(*v1.Pod)
		node := targetNode(pod)
		p.Create = append(p.Create, schema.Create{Node: node, Labels: pod.Labels, Tolerations: tolerations(pod.Spec.Tolerations)})
		return desc + " " + node
	case res == "pods" && verb == "delete":
		name := a.(core.DeleteAction).GetName()
		p.Delete = append(p.Delete, schema.Delete{Pod: name, Node: m.podNode[name]})
		return desc + " " + name
	case res == "pods" && verb == "patch":
		pa := a.(core.PatchAction)
		name, patch := pa.GetName(), string(pa.GetPatch())
		desc += " " + name + " " + patch
		switch {
		case strings.Contains(patch, `"$patch":"delete"`):
			p.Release = append(p.Release, name)
		case strings.Contains(patch, `"ownerReferences"`):
			p.Adopt = append(p.Adopt, name)
		case strings.Contains(patch, apps.DefaultDaemonSetUniqueLabelKey):
			var labels struct {
				Metadata metav1.ObjectMeta `json:"metadata"`
			}
			if err := json.Unmarshal(pa.GetPatch(), &labels); err != nil {
				return "UNMAPPED " + desc
			}
			p.Relabel = append(p.Relabel, schema.Relabel{Pod: name, Hash: labels.Metadata.Labels[apps.DefaultDaemonSetUniqueLabelKey]})
		default:
			return "UNMAPPED " + desc
		}
		return desc
	case res == "controllerrevisions" && verb == "create":
		r := a.(core.CreateAction).GetObject().(*apps.ControllerRevision)
		p.Revisions.Create = append(p.Revisions.Create, revision(r))
		return desc + " " + r.Name
	case res == "controllerrevisions" && verb == "update":
		r := a.(core.UpdateAction).GetObject().(*apps.ControllerRevision)
		m.revUpdates[r.Name] = revision(r)
		return desc + fmt.Sprintf(" %s revision=%d", r.Name, r.Revision)
	case res == "controllerrevisions" && verb == "delete":
		name := a.(core.DeleteAction).GetName()
		p.Revisions.Delete = append(p.Revisions.Delete, name)
		return desc + " " + name
	case res == "controllerrevisions" && verb == "patch":
		pa := a.(core.PatchAction)
		patch := string(pa.GetPatch())
		if strings.Contains(patch, `"$patch":"delete"`) {
			p.Revisions.Release = append(p.Revisions.Release, pa.GetName())
		} else {
			p.Revisions.Adopt = append(p.Revisions.Adopt, pa.GetName())
		}
		return desc + " " + pa.GetName() + " " + patch
	case res == "daemonsets" && verb == "update" && a.GetSubresource() == "status":
		ds := a.(core.UpdateAction).GetObject().(*apps.DaemonSet)
		m.status = statusOf(ds)
		return desc + fmt.Sprintf(" %+v", ds.Status)
	}
	return "UNMAPPED " + desc
}

func revision(r *apps.ControllerRevision) schema.Revision {
	return schema.Revision{Name: r.Name, Revision: r.Revision, Hash: r.Labels[apps.DefaultDaemonSetUniqueLabelKey]}
}

// targetNode is the node a created pod is for: upstream leaves spec.nodeName
// empty and pins the pod with a required node affinity on metadata.name.
func targetNode(p *v1.Pod) string {
	if p.Spec.NodeName != "" {
		return p.Spec.NodeName
	}
	a := p.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, f := range t.MatchFields {
			if f.Key == "metadata.name" && f.Operator == v1.NodeSelectorOpIn && len(f.Values) == 1 {
				return f.Values[0]
			}
		}
	}
	return ""
}

func tolerations(ts []v1.Toleration) []schema.Toleration {
	out := []schema.Toleration{}
	for _, t := range ts {
		out = append(out, schema.Toleration{Key: t.Key, Operator: string(t.Operator), Value: t.Value, Effect: string(t.Effect), TolerationSeconds: t.TolerationSeconds})
	}
	return out
}

func statusOf(ds *apps.DaemonSet) schema.Status {
	s := ds.Status
	return schema.Status{
		CurrentNumberScheduled: s.CurrentNumberScheduled, NumberMisscheduled: s.NumberMisscheduled,
		DesiredNumberScheduled: s.DesiredNumberScheduled, NumberReady: s.NumberReady,
		ObservedGeneration: s.ObservedGeneration, UpdatedNumberScheduled: s.UpdatedNumberScheduled,
		NumberAvailable: s.NumberAvailable, NumberUnavailable: s.NumberUnavailable, CollisionCount: s.CollisionCount,
	}
}

// rolloutStatus is what kubectl would report after the sync. The controller
// does not write it (kubectl computes it from the status), so daemonplan's
// own rendering serves for both sides; only the status fed to it is
// upstream's.
func rolloutStatus(ds *apps.DaemonSet, s schema.Status) schema.RolloutStatus {
	st := rollout.StatusMessage(&api.DaemonSet{
		Name:           ds.Name,
		Generation:     ds.Generation,
		UpdateStrategy: api.UpdateStrategy{Type: api.StrategyType(ds.Spec.UpdateStrategy.Type)},
	}, api.Status{
		ObservedGeneration:     s.ObservedGeneration,
		DesiredNumberScheduled: s.DesiredNumberScheduled,
		UpdatedNumberScheduled: s.UpdatedNumberScheduled,
		NumberAvailable:        s.NumberAvailable,
	})
	return schema.RolloutStatus{Message: st.Message, Done: st.Done}
}

// emptyPlan is the plan of a sync that writes nothing, with every list
// present, and upstream's verdict for each node.
func emptyPlan(c *cluster) schema.Plan {
	p := schema.Plan{
		DaemonSet: schema.Ref{Namespace: c.DS.Namespace, Name: c.DS.Name},
		Nodes:     []schema.Node{}, Create: []schema.Create{}, Delete: []schema.Delete{},
		Adopt: []string{}, Release: []string{}, Relabel: []schema.Relabel{}, Errors: []string{},
		Revisions: schema.Revisions{Create: []schema.Revision{}, Update: []schema.Revision{}, Delete: []string{}, Adopt: []string{}, Release: []string{}},
	}
	for _, n := range c.Nodes {
		run, keep := nodeShouldRun(n, c.DS)
		p.Nodes = append(p.Nodes, schema.Node{Name: n.Name, ShouldRun: run, ShouldContinueRunning: keep})
	}
	return p
}

// sortPlan sorts the lists as the plan schema does. Adopt and release lose
// duplicates: the informer never sees the sync's own patches, so every step
// that lists the DaemonSet's pods claims the same orphans again and sends the
// same patch; an API server applies it once more to no effect, and the plan
// lists each pod once.
func sortPlan(p *schema.Plan) {
	slices.SortFunc(p.Nodes, func(a, b schema.Node) int { return strings.Compare(a.Name, b.Name) })
	slices.SortStableFunc(p.Create, func(a, b schema.Create) int { return strings.Compare(a.Node, b.Node) })
	slices.SortFunc(p.Delete, func(a, b schema.Delete) int { return strings.Compare(a.Pod, b.Pod) })
	p.Adopt = sortedUnique(p.Adopt)
	p.Release = sortedUnique(p.Release)
	slices.SortFunc(p.Relabel, func(a, b schema.Relabel) int { return strings.Compare(a.Pod, b.Pod) })
	r := &p.Revisions
	slices.SortFunc(r.Create, func(a, b schema.Revision) int { return strings.Compare(a.Name, b.Name) })
	slices.Sort(r.Delete)
	r.Adopt = sortedUnique(r.Adopt)
	r.Release = sortedUnique(r.Release)
}

func sortedUnique(xs []string) []string {
	slices.Sort(xs)
	return slices.Compact(xs)
}
