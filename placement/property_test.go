package placement_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/internal/testsupport/reference"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/plantest"
)

// run plans one sync of s with the fast planner.
func run(t *rapid.T, s reference.Snapshot) (placement.ManagePlan, api.Status) {
	c, err := placement.Compile(s.DaemonSet, placement.Options{})
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	ix, err := c.Index(s.Nodes, s.Pods)
	if err != nil {
		t.Fatalf("Index: %v", err)
	}
	p, err := ix.Manage(s.Now, s.Hash, s.Backoff)
	if err != nil {
		t.Fatalf("Manage: %v", err)
	}
	return p, ix.Status(s.Now, s.Hash)
}

// asResult renders a plan and status in the reference's terms.
func asResult(p placement.ManagePlan, st api.Status) reference.Result {
	r := reference.Result{
		Creates:   createNodes(p),
		Deletes:   deletePods(p),
		Adopt:     p.Adopt,
		Release:   p.Release,
		Status:    st,
		Decisions: map[string][2]bool{},
		Backoff:   p.Backoff,
	}
	for _, d := range p.Nodes {
		r.Decisions[d.Node] = [2]bool{d.ShouldRun, d.ShouldContinueRunning}
	}
	return r
}

// The kit's generators, as the properties draw from them.
var (
	// clusters turns every knob on: orphans, strays, failed and
	// terminating pods, pods of old revisions, backoff windows.
	clusters = plantest.Options{Rollout: true, Failed: true, Terminating: true, Orphans: true}
	// crowded piles up to eight of the DaemonSet's own pods on at most two
	// plain nodes (one NoSchedule taint in the pool, no labels), to
	// exercise one node's pods: duplicates, surge pairs, failed pods.
	crowded = plantest.Options{
		MaxNodes: 2, MaxPods: 8, Labels: []plantest.Label{}, Tolerations: []api.Toleration{},
		Taints:  []api.Taint{{Key: "dedicated", Value: "infra", Effect: api.TaintEffectNoSchedule}},
		Rollout: true, Failed: true, Terminating: true,
	}
)

// snapshot draws a cluster and returns it as the reference sees it: the
// hash is the current revision's, or in one case out of four empty (a
// manage pass that knows no hash).
func snapshot(t *rapid.T, opts plantest.Options) reference.Snapshot {
	c := plantest.Snapshots(opts).Draw(t, "cluster")
	s := reference.Snapshot{DaemonSet: c.DaemonSet, Nodes: c.Nodes, Pods: c.Pods, Now: c.Now, Hash: c.Hash, Backoff: c.Backoff}
	if rapid.IntRange(0, 3).Draw(t, "noHash") == 0 {
		s.Hash = ""
	}
	return s
}

// crowdedSnapshot draws a crowded cluster (see crowded) under a rolling
// update with maxUnavailable 0 and surge on or off.
func crowdedSnapshot(t *rapid.T) reference.Snapshot {
	s := snapshot(t, crowded)
	// Crowded nodes are about duplicates and surge pairs: a rolling update
	// with maxUnavailable 0 and surge on or off.
	s.DaemonSet.UpdateStrategy = api.UpdateStrategy{Type: api.RollingUpdate, RollingUpdate: &api.RollingUpdateParams{
		MaxUnavailable: api.Int(0), MaxSurge: rapid.SampledFrom([]*api.IntOrPercent{api.Int(0), api.Int(1)}).Draw(t, "maxSurge"),
	}}
	return s
}

// forSnapshots checks prop on both generators: whole clusters, and
// crowded nodes that exercise one node's pods.
func forSnapshots(t *testing.T, prop func(*rapid.T, reference.Snapshot)) {
	t.Run("clusters", func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) { prop(t, snapshot(t, clusters)) })
	})
	t.Run("crowded", func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) { prop(t, crowdedSnapshot(t)) })
	})
}

// TestPropertyMatchesReference: Manage and Status agree with the naive
// reference on creates, deletes, adoption, status, decisions and backoff.
// The reference matches node selectors and merges the default
// tolerations with the same selector and taints code, so it checks the
// manage and status rules, not that matching: kube/differential checks
// the matchers against apimachinery and component-helpers.
func TestPropertyMatchesReference(t *testing.T) {
	forSnapshots(t, func(t *rapid.T, s reference.Snapshot) {
		p, st := run(t, s)
		want := reference.Manage(s.DaemonSet, s.Nodes, s.Pods, s.Now, s.Hash, s.Backoff)
		if diff := cmp.Diff(want, asResult(p, st), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("Manage() mismatch (-want +got):\n%s\n%s", diff, reference.Render(s))
		}
	})
}

// TestPropertyInvariants: every plan satisfies reference.CheckPlan (one
// pod per node outside surge, deletes name claimed pods, Keep and Delete
// partition the bucketed pods, every eligible node covered but for the
// documented exceptions) and the status counters are consistent.
func TestPropertyInvariants(t *testing.T) {
	forSnapshots(t, func(t *rapid.T, s reference.Snapshot) {
		p, st := run(t, s)
		if err := reference.CheckPlan(s, p); err != nil {
			t.Fatalf("CheckPlan: %v\n%s", err, reference.Render(s))
		}
		if err := reference.CheckStatus(st); err != nil {
			t.Fatalf("CheckStatus: %v\n%s", err, reference.Render(s))
		}
	})
}

// TestPropertyPermutationInvariant: the order of nodes and pods in the
// input changes nothing.
func TestPropertyPermutationInvariant(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := snapshot(t, clusters)
		p, st := run(t, s)
		shuffled := s
		shuffled.Nodes = rapid.Permutation(s.Nodes).Draw(t, "nodes")
		shuffled.Pods = rapid.Permutation(s.Pods).Draw(t, "pods")
		p2, st2 := run(t, shuffled)
		if diff := cmp.Diff(p, p2); diff != "" {
			t.Fatalf("Manage() on shuffled input mismatch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(st, st2); diff != "" {
			t.Fatalf("Status() on shuffled input mismatch (-want +got):\n%s", diff)
		}
	})
}

// TestPropertyInputsUnchanged: planning changes neither the DaemonSet, the
// nodes, the pods nor the backoff it is given.
func TestPropertyInputsUnchanged(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := snapshot(t, clusters)
		before := s.Clone()
		p, _ := run(t, s)
		// Results must not alias the input either: scribble on them.
		for _, c := range p.Create {
			c.Labels["scribble"] = "x"
		}
		for k := range p.Backoff {
			delete(p.Backoff, k)
		}
		if diff := cmp.Diff(before, s); diff != "" {
			t.Fatalf("inputs changed (-before +after):\n%s", diff)
		}
	})
}

// TestPropertyExtraNodeIndependent: adding a node nobody's pods target
// changes no decision, create, delete or keep about the other nodes, and
// the status only by that node's share.
func TestPropertyExtraNodeIndependent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := snapshot(t, clusters)
		extra := plantest.Node(clusters, 0).Draw(t, "extra")
		// No pod targets these names; they sort first, between and last.
		extra.Name = rapid.SampledFrom([]string{"node-", "node-00", "node-4x", "node-extra"}).Draw(t, "extraName")
		p, st := run(t, s)

		s2 := s
		s2.Nodes = append(slices.Clone(s.Nodes), extra)
		p2, st2 := run(t, s2)

		var d placement.Decision
		p2.Nodes = slices.DeleteFunc(slices.Clone(p2.Nodes), func(nd placement.NodeDecision) bool {
			if nd.Node == extra.Name {
				d = nd.Decision
				return true
			}
			return false
		})
		p2.Create = slices.DeleteFunc(p2.Create, func(c placement.Create) bool { return c.Node == extra.Name })
		if diff := cmp.Diff(p, p2, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("Manage() with an extra node mismatch (-want +got):\n%s\n%s", diff, reference.Render(s))
		}
		if d.ShouldRun {
			st.DesiredNumberScheduled++
			st.NumberUnavailable++
		}
		if diff := cmp.Diff(st, st2); diff != "" {
			t.Fatalf("Status() with an extra node mismatch (-want +got):\n%s", diff)
		}
	})
}

// TestPropertyTolerationNeverShrinks: adding a toleration never turns a
// node's decision from run to not run, nor from continue to evict.
func TestPropertyTolerationNeverShrinks(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := snapshot(t, clusters)
		tol := rapid.SampledFrom([]api.Toleration{
			{Key: "dedicated", Operator: api.TolerationOpExists},
			{Key: "gpu", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute},
			{Key: api.TaintNodeNotReady, Operator: api.TolerationOpExists},
			{Operator: api.TolerationOpExists},
		}).Draw(t, "toleration")
		// Mostly tolerate exactly one taint of one node, so that blocking
		// taints are actually lifted.
		var all []api.Taint
		for _, n := range s.Nodes {
			all = append(all, n.Taints...)
		}
		if len(all) > 0 && rapid.IntRange(0, 3).Draw(t, "fromNode") > 0 {
			taint := rapid.SampledFrom(all).Draw(t, "taint")
			tol = api.Toleration{Key: taint.Key, Operator: api.TolerationOpEqual, Value: taint.Value, Effect: taint.Effect}
		}
		more := s.DaemonSet.DeepCopy()
		more.Template.Tolerations = append(more.Template.Tolerations, tol)
		before := placement.NewEligibility(s.DaemonSet, placement.Options{})
		after := placement.NewEligibility(more, placement.Options{})
		for i := range s.Nodes {
			b, a := before.Decide(&s.Nodes[i]), after.Decide(&s.Nodes[i])
			if (b.ShouldRun && !a.ShouldRun) || (b.ShouldContinueRunning && !a.ShouldContinueRunning) {
				t.Fatalf("node %s: toleration %v shrank %+v to %+v", s.Nodes[i].Name, tol, b, a)
			}
		}
	})
}

// TestPropertyIndexDecidesAsDecide: the decisions Index makes for the whole
// node list, which match the nodeSelector a batch of nodes at a time, are
// exactly Compiled.Decide's, node by node, the failing nodeSelector key
// included. Generated clusters seldom refuse a node on a selector's second
// key, so a fixed cluster of several batches does, whatever rapid draws.
func TestPropertyIndexDecidesAsDecide(t *testing.T) {
	same := func(t require.TestingT, ds *api.DaemonSet, nodes []api.Node, pods []api.Pod) (decisions []placement.NodeDecision, ok bool) {
		d := api.Default(ds)
		c, err := placement.Compile(&d, placement.Options{})
		if err != nil {
			return nil, false
		}
		ix, err := c.Index(nodes, pods)
		if err != nil {
			return nil, false
		}
		decisions = ix.NodeDecisions()
		byName := map[string]*api.Node{}
		for i := range nodes {
			byName[nodes[i].Name] = &nodes[i]
		}
		for _, got := range decisions {
			want := c.Decide(byName[got.Node])
			require.Equal(t, want, got.Decision, "node %s: Index decided otherwise than Decide", got.Node)
		}
		return decisions, true
	}
	rapid.Check(t, func(t *rapid.T) {
		in := plantest.Snapshots(plantest.Options{}).Draw(t, "cluster").Input
		if _, ok := same(t, in.DaemonSet, in.Nodes, in.Pods); !ok {
			t.Skip("selector does not compile, or input refused")
		}
	})

	// 40 nodes, more than two batches: matching, refused on the first key
	// (color), refused on the second (speed), in turn.
	ds := newDS(func(ds *api.DaemonSet) { ds.Template.NodeSelector = copyLabels(simpleNodeLabel) })
	var nodes []api.Node
	for i := range 40 {
		labels := [](map[string]string){simpleNodeLabel, simpleNodeLabel2, {"color": "blue", "speed": "slow"}}[i%3]
		nodes = append(nodes, api.Node{Name: fmt.Sprintf("node-%02d", i), Labels: copyLabels(labels)})
	}
	decisions, ok := same(t, ds, nodes, nil)
	require.True(t, ok)
	keys := map[string]int{}
	for _, d := range decisions {
		keys[d.Key]++
	}
	require.Equal(t, map[string]int{"": 14, "color": 13, "speed": 13}, keys)
}
