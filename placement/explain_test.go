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
