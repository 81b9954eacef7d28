package placement_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/taints"
)

// TestNodeShouldRunDaemonPod is upstream's table of the same name
// (daemon_controller_test.go). Resources and host ports are not modelled: those rows reduce to
// the plain node.
func TestNodeShouldRunDaemonPod(t *testing.T) {
	cases := []struct {
		name   string
		reason string
		ds     func(*api.DaemonSet)
		node   api.Node
		want   placement.Decision
	}{
		{
			name:   "plain node",
			reason: "nothing constrains the pod",
			node:   api.Node{Name: "node-0"},
			want:   placement.Decision{ShouldRun: true, ShouldContinueRunning: true, Reason: placement.Eligible},
		},
		{
			name:   "insufficient resources",
			reason: "resources are left to the scheduler",
			node:   api.Node{Name: "node-0", Labels: map[string]string{"capacity": "tiny"}},
			want:   placement.Decision{ShouldRun: true, ShouldContinueRunning: true, Reason: placement.Eligible},
		},
		{
			name:   "template nodeName names another node",
			reason: "spec.nodeName pins the pod elsewhere",
			ds:     func(ds *api.DaemonSet) { ds.Template.NodeName = "other-node" },
			node:   api.Node{Name: "node-0"},
			want:   placement.Decision{Reason: placement.NodeNameMismatch},
		},
		{
			name:   "template nodeName names this node",
			reason: "spec.nodeName pins the pod here",
			ds:     func(ds *api.DaemonSet) { ds.Template.NodeName = "node-0" },
			node:   api.Node{Name: "node-0"},
			want:   placement.Decision{ShouldRun: true, ShouldContinueRunning: true, Reason: placement.Eligible},
		},
		{
			name:   "nodeSelector mismatch",
			reason: "the node lacks the selected labels",
			ds:     func(ds *api.DaemonSet) { ds.Template.NodeSelector = simpleNodeLabel },
			node:   api.Node{Name: "node-0"},
			want:   placement.Decision{Reason: placement.NodeSelectorMismatch, Key: "color"},
		},
		{
			name:   "nodeSelector value differs",
			reason: "the first differing key in sorted order is reported",
			ds:     func(ds *api.DaemonSet) { ds.Template.NodeSelector = simpleNodeLabel },
			node:   api.Node{Name: "node-0", Labels: map[string]string{"color": "blue", "speed": "slow"}},
			want:   placement.Decision{Reason: placement.NodeSelectorMismatch, Key: "speed"},
		},
		{
			name:   "nodeSelector match",
			reason: "the node carries the selected labels",
			ds:     func(ds *api.DaemonSet) { ds.Template.NodeSelector = simpleNodeLabel },
			node:   api.Node{Name: "node-0", Labels: simpleNodeLabel},
			want:   placement.Decision{ShouldRun: true, ShouldContinueRunning: true, Reason: placement.Eligible},
		},
		{
			name:   "required affinity mismatch",
			reason: "no term matches",
			ds:     func(ds *api.DaemonSet) { ds.Template.RequiredNodeAffinity = colorAffinity("blue") },
			node:   api.Node{Name: "node-0", Labels: simpleNodeLabel2},
			want:   placement.Decision{Reason: placement.NodeAffinityMismatch},
		},
		{
			name:   "required affinity match",
			reason: "the term matches",
			ds:     func(ds *api.DaemonSet) { ds.Template.RequiredNodeAffinity = colorAffinity("blue") },
			node:   api.Node{Name: "node-0", Labels: simpleNodeLabel},
			want:   placement.Decision{ShouldRun: true, ShouldContinueRunning: true, Reason: placement.Eligible},
		},
		{
			name:   "required affinity with no terms",
			reason: "an empty term list matches nothing (nodeaffinity.GetRequiredNodeAffinity)",
			ds:     func(ds *api.DaemonSet) { ds.Template.RequiredNodeAffinity = &api.NodeSelector{} },
			node:   api.Node{Name: "node-0", Labels: simpleNodeLabel},
			want:   placement.Decision{Reason: placement.NodeAffinityMismatch},
		},
		{
			name:   "malformed affinity term",
			reason: "a term with a parse error matches nothing; the parse error is not fatal",
			ds: func(ds *api.DaemonSet) {
				ds.Template.RequiredNodeAffinity = &api.NodeSelector{Terms: []api.NodeSelectorTerm{{
					MatchExpressions: []api.NodeSelectorRequirement{{Key: "color", Operator: api.SelectorOpIn}},
				}}}
			},
			node: api.Node{Name: "node-0", Labels: simpleNodeLabel},
			want: placement.Decision{Reason: placement.NodeAffinityMismatch},
		},
		{
			name:   "nodeSelector checked before affinity",
			reason: "both mismatch: the nodeSelector reason wins",
			ds: func(ds *api.DaemonSet) {
				ds.Template.NodeSelector = simpleNodeLabel
				ds.Template.RequiredNodeAffinity = colorAffinity("green")
			},
			node: api.Node{Name: "node-0"},
			want: placement.Decision{Reason: placement.NodeSelectorMismatch, Key: "color"},
		},
		{
			name:   "node unschedulable",
			reason: "the default toleration covers unschedulable:NoSchedule",
			node:   api.Node{Name: "node-0", Taints: []api.Taint{{Key: api.TaintNodeUnschedulable, Effect: api.TaintEffectNoSchedule}}},
			want:   placement.Decision{ShouldRun: true, ShouldContinueRunning: true, Reason: placement.Eligible},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ds := newDS()
			if tc.ds != nil {
				tc.ds(ds)
			}
			got := placement.NewEligibility(ds, placement.Options{}).Decide(&tc.node)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nDecide() mismatch (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

// TestShouldRunSummaryTable checks the shouldRun/shouldContinueRunning
// tables of docs/eligibility.md (E1, E13), row by row.
func TestShouldRunSummaryTable(t *testing.T) {
	nodeWith := func(ts ...api.Taint) api.Node {
		return api.Node{Name: "node-0", Labels: simpleNodeLabel, Taints: ts}
	}
	cases := []struct {
		name   string
		reason string
		ds     func(*api.DaemonSet)
		node   api.Node
		want   placement.Decision
	}{
		{
			name:   "template nodeName set to another node",
			reason: "(false, false)",
			ds:     func(ds *api.DaemonSet) { ds.Template.NodeName = "node-1" },
			node:   nodeWith(),
			want:   placement.Decision{Reason: placement.NodeNameMismatch},
		},
		{
			name:   "nodeSelector does not match",
			reason: "(false, false)",
			ds:     func(ds *api.DaemonSet) { ds.Template.NodeSelector = simpleNodeLabel2 },
			node:   nodeWith(),
			want:   placement.Decision{Reason: placement.NodeSelectorMismatch, Key: "color"},
		},
		{
			name:   "required node affinity does not match",
			reason: "(false, false)",
			ds:     func(ds *api.DaemonSet) { ds.Template.RequiredNodeAffinity = colorAffinity("red") },
			node:   nodeWith(),
			want:   placement.Decision{Reason: placement.NodeAffinityMismatch},
		},
		{
			name:   "untolerated NoExecute",
			reason: "(false, false)",
			node:   nodeWith(noExecuteTaint),
			want:   placement.Decision{Reason: placement.UntoleratedNoExecute, Taint: &noExecuteTaint},
		},
		{
			name:   "untolerated NoSchedule only",
			reason: "(false, true): existing pods stay",
			node:   nodeWith(noScheduleTaint),
			want:   placement.Decision{ShouldContinueRunning: true, Reason: placement.UntoleratedNoSchedule, Taint: &noScheduleTaint},
		},
		{
			name:   "untolerated NoSchedule before NoExecute",
			reason: "(false, false): a later NoExecute taint still evicts and is reported",
			node:   nodeWith(noScheduleTaint, api.Taint{Key: "gpu", Effect: api.TaintEffectNoExecute}),
			want:   placement.Decision{Reason: placement.UntoleratedNoExecute, Taint: &api.Taint{Key: "gpu", Effect: api.TaintEffectNoExecute}},
		},
		{
			name:   "NoExecute tolerated, NoSchedule not",
			reason: "(false, true)",
			ds: func(ds *api.DaemonSet) {
				ds.Template.Tolerations = []api.Toleration{{Key: "gpu", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute}}
			},
			node: nodeWith(api.Taint{Key: "gpu", Effect: api.TaintEffectNoExecute}, noScheduleTaint),
			want: placement.Decision{ShouldContinueRunning: true, Reason: placement.UntoleratedNoSchedule, Taint: &noScheduleTaint},
		},
		{
			name:   "only PreferNoSchedule untolerated",
			reason: "(true, true)",
			node:   nodeWith(api.Taint{Key: "soft", Effect: api.TaintEffectPreferNoSchedule}),
			want:   placement.Decision{ShouldRun: true, ShouldContinueRunning: true, Reason: placement.Eligible},
		},
		{
			name:   "unschedulable node",
			reason: "(true, true): default toleration",
			node:   nodeWith(api.Taint{Key: api.TaintNodeUnschedulable, Effect: api.TaintEffectNoSchedule}),
			want:   placement.Decision{ShouldRun: true, ShouldContinueRunning: true, Reason: placement.Eligible},
		},
		{
			name:   "NotReady node with not-ready:NoExecute",
			reason: "(true, true): default toleration",
			node:   nodeWith(api.Taint{Key: api.TaintNodeNotReady, Effect: api.TaintEffectNoExecute}),
			want:   placement.Decision{ShouldRun: true, ShouldContinueRunning: true, Reason: placement.Eligible},
		},
		{
			name:   "not-ready:NoSchedule",
			reason: "(false, true): the default not-ready toleration is NoExecute only",
			node:   nodeWith(api.Taint{Key: api.TaintNodeNotReady, Effect: api.TaintEffectNoSchedule}),
			want: placement.Decision{ShouldContinueRunning: true, Reason: placement.UntoleratedNoSchedule,
				Taint: &api.Taint{Key: api.TaintNodeNotReady, Effect: api.TaintEffectNoSchedule}},
		},
		{
			name:   "unreachable:NoSchedule",
			reason: "(false, true): the default unreachable toleration is NoExecute only",
			node:   nodeWith(api.Taint{Key: api.TaintNodeUnreachable, Effect: api.TaintEffectNoSchedule}),
			want: placement.Decision{ShouldContinueRunning: true, Reason: placement.UntoleratedNoSchedule,
				Taint: &api.Taint{Key: api.TaintNodeUnreachable, Effect: api.TaintEffectNoSchedule}},
		},
		{
			name:   "Lt toleration off by default",
			reason: "v1.34: Lt and Gt tolerate nothing",
			ds: func(ds *api.DaemonSet) {
				ds.Template.Tolerations = []api.Toleration{{Key: "level", Operator: api.TolerationOpLt, Value: "5", Effect: api.TaintEffectNoSchedule}}
			},
			node: nodeWith(api.Taint{Key: "level", Value: "3", Effect: api.TaintEffectNoSchedule}),
			want: placement.Decision{ShouldContinueRunning: true, Reason: placement.UntoleratedNoSchedule,
				Taint: &api.Taint{Key: "level", Value: "3", Effect: api.TaintEffectNoSchedule}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ds := newDS()
			if tc.ds != nil {
				tc.ds(ds)
			}
			c, err := placement.Compile(ds, placement.Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := c.Decide(&tc.node)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nDecide() mismatch (-want +got):\n%s", tc.reason, diff)
			}
			if got.Message() == "" {
				t.Errorf("Decide().Message() is empty for %v", got.Reason)
			}
		})
	}
}

func TestComparisonOperatorsOption(t *testing.T) {
	ds := newDS(func(ds *api.DaemonSet) {
		ds.Template.Tolerations = []api.Toleration{{Key: "level", Operator: api.TolerationOpLt, Value: "5", Effect: api.TaintEffectNoSchedule}}
	})
	node := api.Node{Name: "node-0", Taints: []api.Taint{{Key: "level", Value: "3", Effect: api.TaintEffectNoSchedule}}}
	got := placement.NewEligibility(ds, placement.Options{Taints: taints.Options{ComparisonOperators: true}}).Decide(&node)
	want := placement.Decision{ShouldRun: true, ShouldContinueRunning: true, Reason: placement.Eligible}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Decide() with comparison operators mismatch (-want +got):\n%s", diff)
	}
}

func TestReasonStrings(t *testing.T) {
	got := []string{}
	for r := placement.Reason(0); r <= placement.UntoleratedNoSchedule+1; r++ {
		got = append(got, r.String())
	}
	want := []string{"Reason(0)", "Eligible", "NodeNameMismatch", "NodeSelectorMismatch", "NodeAffinityMismatch",
		"UntoleratedNoExecute", "UntoleratedNoSchedule", "Reason(7)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Reason.String() mismatch (-want +got):\n%s", diff)
	}
	var dr []string
	for r := placement.DeleteReason(1); r <= placement.Unschedulable+1; r++ {
		dr = append(dr, r.String())
	}
	wantDR := []string{"Duplicate", "Failed", "Succeeded", "NotEligible", "UntoleratedTaint", "NodeGone",
		"SurgeReplaced", "Outdated", "Unschedulable", "DeleteReason(10)"}
	if diff := cmp.Diff(wantDR, dr); diff != "" {
		t.Errorf("DeleteReason.String() mismatch (-want +got):\n%s", diff)
	}
}

// TestDecideDoesNotAllocate pins the documented promise of Decide.
func TestDecideDoesNotAllocate(t *testing.T) {
	e, node := benchEligibility()
	var d placement.Decision
	allocs := testing.AllocsPerRun(100, func() { d = e.Decide(node) })
	if allocs != 0 {
		t.Errorf("Decide() allocates %v times per call, want 0", allocs)
	}
	if !d.ShouldRun {
		t.Errorf("Decide() = %+v, want the benchmark node eligible", d)
	}
}

// TestDecisionTaintIsTheNodes pins what Decision.Taint documents: the
// taint the decision names is the node's own, not a copy, and a node whose
// taints are all tolerated gets none.
func TestDecisionTaintIsTheNodes(t *testing.T) {
	e := placement.NewEligibility(&api.DaemonSet{}, placement.Options{})
	node := &api.Node{Name: "n", Taints: []api.Taint{
		{Key: "soft", Effect: api.TaintEffectPreferNoSchedule},
		{Key: "gpu", Effect: api.TaintEffectNoSchedule},
		{Key: "drain", Effect: api.TaintEffectNoExecute},
	}}
	if d := e.Decide(node); d.Reason != placement.UntoleratedNoExecute || d.Taint != &node.Taints[2] {
		t.Errorf("Decide() = %+v (taint %p), want UntoleratedNoExecute naming &node.Taints[2] (%p)", d, d.Taint, &node.Taints[2])
	}
	node.Taints = node.Taints[:2]
	if d := e.Decide(node); d.Reason != placement.UntoleratedNoSchedule || d.Taint != &node.Taints[1] {
		t.Errorf("Decide() = %+v, want UntoleratedNoSchedule naming &node.Taints[1]", d)
	}
	if d := e.Decide(&api.Node{Name: "clean"}); d.Taint != nil {
		t.Errorf("Decide(untainted) names taint %v, want nil", *d.Taint)
	}
	if got := (placement.Decision{Reason: placement.UntoleratedNoSchedule}).Message(); got == "" {
		t.Error("Message() of an Untolerated decision without a taint is empty")
	}
}
