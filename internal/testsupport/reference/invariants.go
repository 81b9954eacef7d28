package reference

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
)

// Snapshot is one sync's input.
type Snapshot struct {
	DaemonSet *api.DaemonSet
	Nodes     []api.Node
	Pods      []api.Pod
	Now       time.Time
	Hash      string
	Backoff   placement.Backoff
}

// Clone returns a deep copy of s.
func (s Snapshot) Clone() Snapshot {
	c := s
	c.DaemonSet = s.DaemonSet.DeepCopy()
	c.Nodes = nil
	for _, n := range s.Nodes {
		c.Nodes = append(c.Nodes, n.DeepCopy())
	}
	c.Pods = nil
	for _, p := range s.Pods {
		c.Pods = append(c.Pods, p.DeepCopy())
	}
	c.Backoff = maps.Clone(s.Backoff)
	return c
}

// Changes are the writes of a plan that change pods.
type Changes struct {
	Adopt, Release []string
	Create         []placement.Create
	Delete         []string
}

// PlanChanges returns the pod writes of p.
func PlanChanges(p placement.ManagePlan) Changes {
	ch := Changes{Adopt: p.Adopt, Release: p.Release, Create: p.Create}
	for _, d := range p.Delete {
		ch.Delete = append(ch.Delete, d.Pod)
	}
	return ch
}

// NewPodName is the name [Apply] gives the pod created on node.
func NewPodName(ds *api.DaemonSet, node string) string {
	return ds.Name + "-new-" + node
}

// Apply plays ch onto pods as if every write succeeded at once and returns
// the new pod list (pods is not changed): adopted pods gain the DaemonSet as
// controller, released ones lose it, deleted pods are gone, and each create
// becomes a Pending, unbound pod named [NewPodName], created at now, pinned to
// its node by its node affinity.
func Apply(ds *api.DaemonSet, pods []api.Pod, ch Changes, now time.Time) []api.Pod {
	gone := map[string]bool{}
	for _, name := range ch.Delete {
		gone[name] = true
	}
	adopt, release := map[string]bool{}, map[string]bool{}
	for _, name := range ch.Adopt {
		adopt[name] = true
	}
	for _, name := range ch.Release {
		release[name] = true
	}
	var out []api.Pod
	for _, p := range pods {
		if p.Namespace == ds.Namespace && gone[p.Name] {
			continue
		}
		if p.Namespace == ds.Namespace {
			switch {
			case adopt[p.Name]:
				p.Controller = &api.OwnerRef{Kind: "DaemonSet", Name: ds.Name, UID: ds.UID}
			case release[p.Name]:
				p.Controller = nil
			}
		}
		out = append(out, p)
	}
	for _, c := range ch.Create {
		out = append(out, api.Pod{
			Namespace:            ds.Namespace,
			Name:                 NewPodName(ds, c.Node),
			UID:                  "uid-" + NewPodName(ds, c.Node),
			Labels:               maps.Clone(c.Labels),
			Controller:           &api.OwnerRef{Kind: "DaemonSet", Name: ds.Name, UID: ds.UID},
			RequiredNodeAffinity: c.NodeAffinity,
			Phase:                api.PodPending,
			Created:              now,
		})
	}
	return out
}

// running reports a pod that occupies its node: not terminal and not being
// deleted.
func running(p *api.Pod) bool {
	return !p.Deleting && p.Phase != api.PodFailed && p.Phase != api.PodSucceeded
}

// CheckDeletes checks that every name in deletes is unique and names a pod
// of pods that the DaemonSet claims.
func CheckDeletes(ds *api.DaemonSet, pods []api.Pod, deletes []string) error {
	var errs []error
	seen := map[string]bool{}
	for _, name := range deletes {
		if seen[name] {
			errs = append(errs, fmt.Errorf("pod %s deleted twice", name))
		}
		seen[name] = true
		i := slices.IndexFunc(pods, func(p api.Pod) bool { return p.Namespace == ds.Namespace && p.Name == name })
		if i < 0 {
			errs = append(errs, fmt.Errorf("delete of pod %s, which does not exist", name))
			continue
		}
		if claimed, _, _ := Claims(ds, &pods[i]); !claimed {
			errs = append(errs, fmt.Errorf("delete of pod %s, which the DaemonSet does not claim", name))
		}
	}
	return errors.Join(errs...)
}

// CheckOnePodPerNode checks, for a pod list after a plan applied, that no
// node of nodes holds more than one running (not terminal, not being
// deleted) pod of the DaemonSet; with surge, at most one whose hash label
// is hash and one whose label is not.
func CheckOnePodPerNode(ds *api.DaemonSet, nodes []api.Node, after []api.Pod, hash string, surge bool) error {
	buckets := Buckets(ds, after)
	var errs []error
	for i := range nodes {
		var names []string
		newCount, oldCount := 0, 0
		for _, p := range buckets[nodes[i].Name] {
			if !running(p) {
				continue
			}
			names = append(names, p.Name)
			if p.Labels["controller-revision-hash"] == hash {
				newCount++
			} else {
				oldCount++
			}
		}
		switch {
		case !surge && len(names) > 1:
			errs = append(errs, fmt.Errorf("node %s holds %d running pods %v", nodes[i].Name, len(names), names))
		case surge && (newCount > 1 || oldCount > 1):
			errs = append(errs, fmt.Errorf("node %s holds %d new and %d old running pods %v", nodes[i].Name, newCount, oldCount, names))
		}
	}
	return errors.Join(errs...)
}

// CheckStatus checks the relations between the status counters: current,
// ready, available and updated never exceed what they refine, and
// unavailable is desired minus available.
func CheckStatus(s api.Status) error {
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	check(s.CurrentNumberScheduled <= s.DesiredNumberScheduled, "current %d > desired %d", s.CurrentNumberScheduled, s.DesiredNumberScheduled)
	check(s.NumberReady <= s.CurrentNumberScheduled, "ready %d > current %d", s.NumberReady, s.CurrentNumberScheduled)
	check(s.NumberAvailable <= s.NumberReady, "available %d > ready %d", s.NumberAvailable, s.NumberReady)
	check(s.UpdatedNumberScheduled <= s.CurrentNumberScheduled, "updated %d > current %d", s.UpdatedNumberScheduled, s.CurrentNumberScheduled)
	check(s.NumberUnavailable == s.DesiredNumberScheduled-s.NumberAvailable, "unavailable %d != desired %d - available %d", s.NumberUnavailable, s.DesiredNumberScheduled, s.NumberAvailable)
	check(s.NumberMisscheduled >= 0, "misscheduled %d < 0", s.NumberMisscheduled)
	return errors.Join(errs...)
}

// CheckPlan checks the invariants of one manage plan for s and returns
// every violation. Eligibility, claiming and buckets are recomputed by this
// package, not taken from the plan:
//
//  1. Nodes holds one decision per node, by name; every other list is
//     sorted and has no repeats.
//  2. Every delete names an existing pod the DaemonSet claims ([CheckDeletes]),
//     and a pod already being deleted is deleted again only when its node
//     is gone (NodeGone).
//  3. Keep and Delete are disjoint, and together they are exactly the
//     claimed pods with a target node that are not both terminal and being
//     deleted.
//  4. A create names an existing node that should run the pod and holds no
//     running pod of the DaemonSet; without surge, no pod at all.
//  5. After the plan applies (without burst cuts): at most one running pod
//     per node ([CheckOnePodPerNode]); no running pod of the DaemonSet on a
//     node where pods may not continue; and every node that should run the
//     pod holds a running pod or gets a create, except, without surge, a
//     node whose pods were all failed, succeeded or being deleted: upstream
//     replaces them only in a later sync (docs/manage.md, M8). A failed pod held
//     back by backoff is such a pod.
func CheckPlan(s Snapshot, plan placement.ManagePlan) error {
	ds := s.DaemonSet
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	// 1.
	names := make([]string, len(s.Nodes))
	for i := range s.Nodes {
		names[i] = s.Nodes[i].Name
	}
	slices.Sort(names)
	var planNodes []string
	for _, d := range plan.Nodes {
		planNodes = append(planNodes, d.Node)
	}
	if !slices.Equal(names, planNodes) {
		fail("plan decides nodes %v, want %v", planNodes, names)
	}
	var createNodes, deletePods []string
	for _, c := range plan.Create {
		createNodes = append(createNodes, c.Node)
	}
	for _, d := range plan.Delete {
		deletePods = append(deletePods, d.Pod)
	}
	for _, l := range []struct {
		name string
		list []string
	}{{"Create", createNodes}, {"Delete", deletePods}, {"Keep", plan.Keep}, {"Adopt", plan.Adopt}, {"Release", plan.Release}} {
		if !slices.IsSorted(l.list) {
			fail("%s is not sorted: %v", l.name, l.list)
		}
		if len(slices.Compact(slices.Clone(l.list))) != len(l.list) {
			fail("%s has repeats: %v", l.name, l.list)
		}
	}

	// 2.
	if err := CheckDeletes(ds, s.Pods, deletePods); err != nil {
		errs = append(errs, err)
	}
	byName := map[string]*api.Pod{}
	for i := range s.Pods {
		if s.Pods[i].Namespace == ds.Namespace {
			byName[s.Pods[i].Name] = &s.Pods[i]
		}
	}
	for _, d := range plan.Delete {
		if p := byName[d.Pod]; p != nil && p.Deleting && d.Reason != placement.NodeGone {
			fail("pod %s is already being deleted, deleted again for %v", d.Pod, d.Reason)
		}
	}

	// 3.
	buckets := Buckets(ds, s.Pods)
	bucketed := map[string]bool{}
	for _, ps := range buckets {
		for _, p := range ps {
			bucketed[p.Name] = true
		}
	}
	inPlan := map[string]int{}
	for _, name := range deletePods {
		inPlan[name]++
	}
	for _, name := range plan.Keep {
		inPlan[name]++
	}
	for name := range bucketed {
		if inPlan[name] != 1 {
			fail("bucketed pod %s is in %d of Keep and Delete, want 1", name, inPlan[name])
		}
	}
	for name := range inPlan {
		if !bucketed[name] {
			fail("pod %s is in Keep or Delete but not a bucketed pod of the DaemonSet", name)
		}
	}

	// 4.
	surge := Surge(ds)
	nodeByName := map[string]*api.Node{}
	for i := range s.Nodes {
		nodeByName[s.Nodes[i].Name] = &s.Nodes[i]
	}
	creates := map[string]bool{}
	for _, node := range createNodes {
		creates[node] = true
		n := nodeByName[node]
		if n == nil {
			fail("create on node %s, which does not exist", node)
			continue
		}
		if run, _ := ShouldRun(ds, n); !run {
			fail("create on node %s, which should not run the pod", node)
		}
		for _, p := range buckets[node] {
			if running(p) || !surge {
				fail("create on node %s, which holds pod %s", node, p.Name)
			}
		}
	}

	// 5.
	after := Apply(ds, s.Pods, PlanChanges(plan), s.Now)
	if plan.SkippedDeletes == 0 {
		if err := CheckOnePodPerNode(ds, s.Nodes, after, s.Hash, surge); err != nil {
			errs = append(errs, err)
		}
	}
	afterBuckets := Buckets(ds, after)
	for i := range s.Nodes {
		n := &s.Nodes[i]
		run, cont := ShouldRun(ds, n)
		hasRunning := slices.ContainsFunc(afterBuckets[n.Name], running)
		if !cont && hasRunning && plan.SkippedDeletes == 0 {
			fail("node %s may not run the pod but still holds a running one", n.Name)
		}
		if !run || hasRunning || plan.SkippedCreates > 0 {
			continue
		}
		before := buckets[n.Name]
		if !surge && len(before) > 0 && !slices.ContainsFunc(before, running) {
			continue // documented exception: replaced in a later sync
		}
		if !creates[n.Name] {
			fail("node %s should run the pod but holds none after the plan and gets no create", n.Name)
		}
	}
	return errors.Join(errs...)
}

// Render is a short, stable description of a snapshot for failure messages.
func Render(s Snapshot) string {
	var b strings.Builder
	ds := s.DaemonSet
	fmt.Fprintf(&b, "ds %s/%s deleting=%v strategy=%s surge=%v minReady=%d hash=%q\n", ds.Namespace, ds.Name, ds.Deleting, ds.UpdateStrategy.Type, Surge(ds), ds.MinReadySeconds, s.Hash)
	fmt.Fprintf(&b, "  template nodeName=%q nodeSelector=%v affinity=%s tolerations=%v\n", ds.Template.NodeName, ds.Template.NodeSelector, renderAffinity(ds.Template.RequiredNodeAffinity), ds.Template.Tolerations)
	for _, n := range s.Nodes {
		fmt.Fprintf(&b, "  node %s labels=%v taints=%v\n", n.Name, n.Labels, n.Taints)
	}
	for _, p := range s.Pods {
		owner := "orphan"
		if p.Controller != nil {
			owner = p.Controller.UID
		}
		target, _ := TargetNode(&p)
		fmt.Fprintf(&b, "  pod %s/%s owner=%s labels=%v node=%q target=%q phase=%s ready=%v deleting=%v created=%s\n",
			p.Namespace, p.Name, owner, p.Labels, p.NodeName, target, p.Phase, p.Ready, p.Deleting, p.Created.Format(time.TimeOnly))
	}
	return b.String()
}

func renderAffinity(ns *api.NodeSelector) string {
	if ns == nil {
		return "nil"
	}
	return fmt.Sprint(ns.Terms)
}
