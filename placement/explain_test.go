package placement_test

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/plantest"
	"github.com/daemonplan/daemonplan/taints"
)

// TestPropertyExplainDecides: Explain decides as Decide does (the same
// Decision, its Taint the same node taint), its first failing rule is the
// Decision's reason and culprit, it lists no failure for an eligible node,
// and each failure's culprit is real: an untolerated taint is not
// tolerated, a defaulted taint is. Both gate settings and
// IgnoredDuringExecution are drawn.
func TestPropertyExplainDecides(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		opts := plantest.Options{}
		ds := plantest.DaemonSet(opts).Draw(t, "ds")
		popts := placement.Options{
			IgnoredDuringExecution: rapid.Bool().Draw(t, "ignored"),
			Taints:                 taints.Options{ComparisonOperators: rapid.Bool().Draw(t, "gate")},
		}
		c, err := placement.Compile(ds, popts)
		if err != nil {
			t.Fatalf("Compile: %v", err)
		}
		tols := taints.NewSet(taints.MergeDaemonDefaults(ds.Template.Tolerations, ds.Template.HostNetwork), popts.Taints)
		for i := range rapid.IntRange(1, 4).Draw(t, "nodes") {
			n := plantest.Node(opts, i).Draw(t, "node")
			d := c.Decide(&n)
			x := c.Explain(&n)
			if x.Decision != d { // == compares Taint by address: the same taint of n
				t.Fatalf("node %+v: Explain decides %+v, Decide %+v", n, x.Decision, d)
			}
			if d.Reason == placement.Eligible {
				if len(x.Failing) != 0 {
					t.Fatalf("node %+v is eligible, Explain lists %v", n, x.Failing)
				}
				continue
			}
			if len(x.Failing) == 0 {
				t.Fatalf("node %+v: %v, but Explain lists no failure", n, d.Reason)
			}
			f := x.Failing[0]
			if f.Reason != d.Reason || f.Taint != d.Taint || d.Reason == placement.NodeSelectorMismatch && f.Key != d.Key {
				t.Fatalf("node %+v: first failure %+v, decision %+v", n, f, d)
			}
			for _, f := range x.Failing {
				if f.Taint != nil && tols.Tolerates(*f.Taint) {
					t.Fatalf("node %+v: failure %v names a tolerated taint", n, f)
				}
			}
			for _, df := range x.Defaulted {
				if !tols.Tolerates(*df.Taint) || !taints.Tolerates(df.Toleration, *df.Taint, popts.Taints) {
					t.Fatalf("node %+v: %v is not tolerated by %+v", n, df.Taint, df.Toleration)
				}
			}
		}
	})
}

func ExampleCompiled_Explain() {
	ds := exampleDaemonSet()
	ds.Template.NodeSelector["disk"] = "ssd"
	c, err := placement.Compile(ds, placement.Options{})
	if err != nil {
		panic(err)
	}
	nodes := []api.Node{{
		Name:   "worker-1",
		Labels: map[string]string{"kubernetes.io/os": "windows"},
		Taints: []api.Taint{
			{Key: "dedicated", Value: "db", Effect: api.TaintEffectNoSchedule},
			{Key: "gpu", Effect: api.TaintEffectNoExecute},
		},
	}, {
		Name:   "worker-2", // cordoned
		Labels: map[string]string{"kubernetes.io/os": "linux", "disk": "ssd"},
		Taints: []api.Taint{{Key: api.TaintNodeUnschedulable, Effect: api.TaintEffectNoSchedule}},
	}}
	for i := range nodes {
		x := c.Explain(&nodes[i])
		fmt.Printf("%s: %v\n", nodes[i].Name, x.Decision.Reason)
		for _, f := range x.Failing {
			fmt.Printf("  %s (docs/eligibility.md, %s)\n", f, f.Rule())
		}
		for _, d := range x.Defaulted {
			fmt.Printf("  %v tolerated by the default %s:%s\n", d.Taint, d.Toleration.Key, d.Toleration.Effect)
		}
	}
	// Output:
	// worker-1: NodeSelectorMismatch
	//   nodeSelector disk=ssd not matched (docs/eligibility.md, E3)
	//   nodeSelector kubernetes.io/os=linux not matched (docs/eligibility.md, E3)
	//   untolerated taint gpu:NoExecute (docs/eligibility.md, E6)
	//   untolerated taint dedicated=db:NoSchedule (docs/eligibility.md, E6)
	// worker-2: Eligible
	//   node.kubernetes.io/unschedulable:NoSchedule tolerated by the default node.kubernetes.io/unschedulable:NoSchedule
}

// TestExplainFailures: each rule's culprit, in the order the decision
// weighs them.
func TestExplainFailures(t *testing.T) {
	unsched := api.Taint{Key: api.TaintNodeUnschedulable, Effect: api.TaintEffectNoSchedule}
	netDown := api.Taint{Key: api.TaintNodeNetworkUnavailable, Effect: api.TaintEffectNoSchedule}
	gpu := api.Taint{Key: "gpu", Effect: api.TaintEffectNoExecute}
	tests := []struct {
		name, reason string
		tmpl         api.PodTemplate
		ignored      bool
		node         api.Node
		want         []string // FailedRule.String of each failure, then "defaulted KEY" per Defaulted
	}{{
		name:   "every rule",
		reason: "nodeName, both selector keys, the affinity term, then the NoExecute before the NoSchedule taint",
		tmpl: api.PodTemplate{NodeName: "other", NodeSelector: map[string]string{"b": "1", "a": "1"},
			RequiredNodeAffinity: &api.NodeSelector{Terms: []api.NodeSelectorTerm{{MatchExpressions: []api.NodeSelectorRequirement{{Key: "zone", Operator: api.SelectorOpExists}}}}}},
		node: api.Node{Name: "n", Taints: []api.Taint{{Key: "d", Effect: api.TaintEffectNoSchedule}, gpu}},
		want: []string{"template spec.nodeName is other", "nodeSelector a=1 not matched", "nodeSelector b=1 not matched",
			"required node affinity term 0 not matched: zone", "untolerated taint gpu:NoExecute", "untolerated taint d:NoSchedule"},
	}, {
		name:    "ignored during execution",
		reason:  "with IgnoredDuringExecution a NoExecute taint decides before the selector (E15)",
		tmpl:    api.PodTemplate{NodeSelector: map[string]string{"a": "1"}},
		ignored: true,
		node:    api.Node{Name: "n", Taints: []api.Taint{gpu}},
		want:    []string{"untolerated taint gpu:NoExecute", "nodeSelector a=1 not matched"},
	}, {
		name:   "empty, malformed and no terms",
		reason: "dropped terms are still reported, by their index",
		tmpl: api.PodTemplate{RequiredNodeAffinity: &api.NodeSelector{Terms: []api.NodeSelectorTerm{{},
			{MatchExpressions: []api.NodeSelectorRequirement{{Key: "a", Operator: "Like"}}}}}},
		node: api.Node{Name: "n"},
		want: []string{"required node affinity term 0 not matched: the term is empty", "required node affinity term 1 not matched: the term is malformed"},
	}, {
		name:   "no terms",
		reason: "a required affinity without terms matches no node",
		tmpl:   api.PodTemplate{RequiredNodeAffinity: &api.NodeSelector{}},
		node:   api.Node{Name: "n"},
		want:   []string{"required node affinity has no terms"},
	}, {
		name:   "defaults",
		reason: "cordoned: the unschedulable default; network-unavailable: the hostNetwork default",
		tmpl:   api.PodTemplate{HostNetwork: true},
		node:   api.Node{Name: "n", Taints: []api.Taint{unsched, netDown}},
		want:   []string{"defaulted " + api.TaintNodeUnschedulable, "defaulted " + api.TaintNodeNetworkUnavailable},
	}, {
		name:   "own toleration",
		reason: "a template toleration that tolerates the taint itself is not a default's doing",
		tmpl:   api.PodTemplate{Tolerations: []api.Toleration{{Operator: api.TolerationOpExists}}},
		node:   api.Node{Name: "n", Taints: []api.Taint{unsched}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := &api.DaemonSet{Name: "ds", Template: tt.tmpl}
			e := placement.NewEligibility(ds, placement.Options{IgnoredDuringExecution: tt.ignored})
			x := e.Explain(&tt.node)
			var got []string
			for _, f := range x.Failing {
				got = append(got, f.String())
			}
			for _, d := range x.Defaulted {
				got = append(got, "defaulted "+d.Toleration.Key)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("Explain = %q, want %q (%s)", got, tt.want, tt.reason)
			}
			if d := e.Decide(&tt.node); d != x.Decision {
				t.Errorf("Explain decides %+v, Decide %+v", x.Decision, d)
			}
		})
	}
}
