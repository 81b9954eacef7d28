package placement_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/internal/testsupport/reference"
	"github.com/daemonplan/daemonplan/placement"
)

// TestIgnoredDuringExecution: with the option, a node that no longer
// matches the nodeSelector or required affinity gets no new pod but keeps
// its pods, unless a NoExecute taint evicts them; everything else decides
// as upstream.
func TestIgnoredDuringExecution(t *testing.T) {
	noExecute := api.Taint{Key: "dedicated", Value: "other", Effect: api.TaintEffectNoExecute}
	noSchedule := api.Taint{Key: "dedicated", Value: "other", Effect: api.TaintEffectNoSchedule}
	cases := []struct {
		name, reason string
		ds           func(*api.DaemonSet)
		node         api.Node
		off, on      placement.Decision
	}{
		{
			name:   "nodeSelector mismatch",
			reason: "the label is ignored during execution: existing pods stay, no new one",
			ds:     func(ds *api.DaemonSet) { ds.Template.NodeSelector = simpleNodeLabel },
			node:   api.Node{Name: "node-0", Labels: simpleNodeLabel2},
			off:    placement.Decision{Reason: placement.NodeSelectorMismatch, Key: "color"},
			on:     placement.Decision{ShouldContinueRunning: true, Reason: placement.NodeSelectorMismatch, Key: "color"},
		},
		{
			name:   "required affinity mismatch",
			reason: "requiredDuringSchedulingIgnoredDuringExecution, as named",
			ds:     func(ds *api.DaemonSet) { ds.Template.RequiredNodeAffinity = colorAffinity("blue") },
			node:   api.Node{Name: "node-0", Labels: simpleNodeLabel2},
			off:    placement.Decision{Reason: placement.NodeAffinityMismatch},
			on:     placement.Decision{ShouldContinueRunning: true, Reason: placement.NodeAffinityMismatch},
		},
		{
			name:   "mismatch and an untolerated NoExecute taint",
			reason: "the taint evicts whatever the labels say",
			ds:     func(ds *api.DaemonSet) { ds.Template.NodeSelector = simpleNodeLabel },
			node:   api.Node{Name: "node-0", Labels: simpleNodeLabel2, Taints: []api.Taint{noSchedule, noExecute}},
			off:    placement.Decision{Reason: placement.NodeSelectorMismatch, Key: "color"},
			on:     placement.Decision{Reason: placement.UntoleratedNoExecute, Taint: &noExecute},
		},
		{
			name:   "mismatch and an untolerated NoSchedule taint",
			reason: "NoSchedule never evicts",
			ds:     func(ds *api.DaemonSet) { ds.Template.NodeSelector = simpleNodeLabel },
			node:   api.Node{Name: "node-0", Labels: simpleNodeLabel2, Taints: []api.Taint{noSchedule}},
			off:    placement.Decision{Reason: placement.NodeSelectorMismatch, Key: "color"},
			on:     placement.Decision{ShouldContinueRunning: true, Reason: placement.NodeSelectorMismatch, Key: "color"},
		},
		{
			name:   "template nodeName names another node",
			reason: "spec.nodeName is not node affinity: the option does not apply",
			ds:     func(ds *api.DaemonSet) { ds.Template.NodeName = "node-1" },
			node:   api.Node{Name: "node-0"},
			off:    placement.Decision{Reason: placement.NodeNameMismatch},
			on:     placement.Decision{Reason: placement.NodeNameMismatch},
		},
		{
			name:   "matching node",
			reason: "the option changes nothing where the labels match",
			ds:     func(ds *api.DaemonSet) { ds.Template.NodeSelector = simpleNodeLabel },
			node:   api.Node{Name: "node-0", Labels: simpleNodeLabel},
			off:    placement.Decision{ShouldRun: true, ShouldContinueRunning: true, Reason: placement.Eligible},
			on:     placement.Decision{ShouldRun: true, ShouldContinueRunning: true, Reason: placement.Eligible},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ds := newDS(tc.ds)
			for _, on := range []bool{false, true} {
				want := tc.off
				if on {
					want = tc.on
				}
				got := placement.NewEligibility(ds, placement.Options{IgnoredDuringExecution: on}).Decide(&tc.node)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("Decide() with IgnoredDuringExecution=%v mismatch (-want +got):\n%s\nreason: %s", on, diff, tc.reason)
				}
			}
		})
	}
}

// TestPropertyIgnoredDuringExecutionDeletesLess: with the option, manage
// deletes a subset of what it deletes without it, creates the same pods,
// and every node decides ShouldRun alike and may only gain
// ShouldContinueRunning. The burst limit is lifted: a shorter list of
// deletes would otherwise let later ones move under the limit.
func TestPropertyIgnoredDuringExecutionDeletesLess(t *testing.T) {
	forSnapshots(t, func(t *rapid.T, s reference.Snapshot) {
		plan := func(on bool) placement.ManagePlan {
			c, err := placement.Compile(s.DaemonSet, placement.Options{IgnoredDuringExecution: on, BurstReplicas: 1 << 20})
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
			return p
		}
		off, on := plan(false), plan(true)
		for _, d := range deletePods(on) {
			if !slices.Contains(deletePods(off), d) {
				t.Fatalf("with the option %s is deleted, without it only %v\n%s", d, deletePods(off), reference.Render(s))
			}
		}
		if diff := cmp.Diff(createNodes(off), createNodes(on)); diff != "" {
			t.Fatalf("creates differ (-off +on):\n%s", diff)
		}
		for i := range off.Nodes {
			a, b := off.Nodes[i], on.Nodes[i]
			if a.ShouldRun != b.ShouldRun || (a.ShouldContinueRunning && !b.ShouldContinueRunning) {
				t.Fatalf("node %s: decision %+v without the option, %+v with it", a.Node, a.Decision, b.Decision)
			}
		}
	})
}

func ExampleOptions_ignoredDuringExecution() {
	ds := exampleDaemonSet() // nodeSelector kubernetes.io/os=linux
	nodes := []api.Node{
		{Name: "relabelled", Labels: map[string]string{"kubernetes.io/os": "windows"}},
		{Name: "windows", Labels: map[string]string{"kubernetes.io/os": "windows"}},
	}
	pods := []api.Pod{examplePod("log-agent-a", "relabelled", time.Time{})}
	for _, on := range []bool{false, true} {
		c, err := placement.Compile(ds, placement.Options{IgnoredDuringExecution: on})
		if err != nil {
			panic(err)
		}
		ix, err := c.Index(nodes, pods)
		if err != nil {
			panic(err)
		}
		plan, err := ix.Manage(time.Time{}, "5d4f8c", nil)
		if err != nil {
			panic(err)
		}
		fmt.Printf("IgnoredDuringExecution=%v: creates %d, deletes %v, keeps %v\n", on, len(plan.Create), plan.Delete, plan.Keep)
	}
	// Output:
	// IgnoredDuringExecution=false: creates 0, deletes [{log-agent-a relabelled NotEligible}], keeps []
	// IgnoredDuringExecution=true: creates 0, deletes [], keeps [log-agent-a]
}
