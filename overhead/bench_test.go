package overhead_test

import (
	"fmt"
	"testing"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/overhead"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/resource"
	"github.com/daemonplan/daemonplan/selector"
)

// BenchmarkQuery: 50 DaemonSets against one node, compiled once, with a
// reused Result (the target: ≤ 5 µs and no allocation per query).
func BenchmarkQuery(b *testing.B) {
	s := overhead.Compile(fleet(50), overhead.Options{})
	n := gpuNode()
	var r overhead.NodeResult
	s.Query(&n, &r) // grow the Result once, as a caller reusing it does
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		s.Query(&n, &r)
	}
}

// BenchmarkScratch: the same question answered from scratch, each
// DaemonSet's predicate compiled (NewEligibility) and its requests computed
// (PodTemplate.Requests) per query, the landing ones summed.
func BenchmarkScratch(b *testing.B) {
	dss := fleet(50)
	n := gpuNode()
	b.ReportAllocs()
	for range b.N {
		total := resource.List{}
		for _, ds := range dss {
			if placement.NewEligibility(ds, placement.Options{}).Decide(&n).ShouldRun {
				total = total.Add(ds.Template.Requests())
			}
		}
	}
}

// BenchmarkCompile: the one-off cost Query saves, for 50 DaemonSets.
func BenchmarkCompile(b *testing.B) {
	dss := fleet(50)
	b.ReportAllocs()
	for range b.N {
		overhead.Compile(dss, overhead.Options{})
	}
}

// benchTemplate is a pool of linux nodes in zones a, b or c that says
// nothing of accelerators: for fleet(50), most DaemonSets land on every
// node, the GPU ones depend on the accelerator label, the zone ones on the
// zone.
func benchTemplate() overhead.NodeTemplate {
	return overhead.NodeTemplate{
		Labels: map[string]string{"kubernetes.io/os": "linux"},
		Requirements: []selector.Requirement{
			{Key: "topology.kubernetes.io/zone", Operator: api.SelectorOpIn, Values: []string{"a", "b", "c"}},
			{Key: "karpenter.sh/capacity-type", Operator: api.SelectorOpIn, Values: []string{"on-demand", "spot"}},
		},
		Taints: []api.Taint{{Key: "dedicated", Value: "batch", Effect: api.TaintEffectPreferNoSchedule}},
	}
}

// BenchmarkQueryTemplate: 50 DaemonSets against a node template, both
// compiled once, with a reused TemplateResult.
func BenchmarkQueryTemplate(b *testing.B) {
	s := overhead.Compile(fleet(50), overhead.Options{})
	tpl := benchTemplate()
	ct, err := overhead.CompileTemplate(&tpl)
	if err != nil {
		b.Fatal(err)
	}
	var r overhead.TemplateResult
	if err := s.QueryTemplate(ct, &r); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		s.QueryTemplate(ct, &r)
	}
}

// BenchmarkTemplateByNodes: the naive path to the same answer, one Query
// per concrete node the template can produce over the values the
// DaemonSets tell apart (zone a, b, c; capacity type on-demand, spot;
// accelerator missing, gpu or another value: 18 nodes), each DaemonSet's
// answers folded into every/none/depends.
func BenchmarkTemplateByNodes(b *testing.B) {
	s := overhead.Compile(fleet(50), overhead.Options{})
	tpl := benchTemplate()
	var nodes []api.Node
	for _, zone := range []string{"a", "b", "c"} {
		for _, ct := range []string{"on-demand", "spot"} {
			for _, acc := range []string{"", "gpu", "other"} {
				l := map[string]string{"kubernetes.io/os": "linux", "topology.kubernetes.io/zone": zone, "karpenter.sh/capacity-type": ct}
				if acc != "" {
					l["accelerator"] = acc
				}
				nodes = append(nodes, api.Node{Name: "new", Labels: l, Taints: tpl.Taints})
			}
		}
	}
	var r overhead.NodeResult
	some := make([]bool, s.Len())
	all := make([]bool, s.Len())
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		clear(some)
		for i := range all {
			all[i] = true
		}
		for n := range nodes {
			s.Query(&nodes[n], &r)
			for i := range s.Len() {
				some[i] = some[i] || r.Lands(i)
				all[i] = all[i] && r.Lands(i)
			}
		}
	}
}

// BenchmarkTemplateLongLists: a template that limits a key to n values
// (two In lists, intersected) and DaemonSets that name half of them, In
// and NotIn; compiling the template, then a query. Both were quadratic in
// n (docs/never-harm.md, N15).
func BenchmarkTemplateLongLists(b *testing.B) {
	for _, n := range []int{1_000, 4_000, 16_000} {
		tpl := overhead.NodeTemplate{Requirements: []selector.Requirement{
			{Key: "zone", Operator: api.SelectorOpIn, Values: values(0, n+n/2)},
			{Key: "zone", Operator: api.SelectorOpIn, Values: values(0, n)},
		}}
		half := values(0, n/2)
		s := overhead.Compile([]*api.DaemonSet{
			{Namespace: "ns", Name: "in", UID: "1", Template: api.PodTemplate{RequiredNodeAffinity: &api.NodeSelector{Terms: []api.NodeSelectorTerm{
				inTerm("zone", api.SelectorOpIn, half)}}}},
			{Namespace: "ns", Name: "not-in", UID: "2", Template: api.PodTemplate{RequiredNodeAffinity: &api.NodeSelector{Terms: []api.NodeSelectorTerm{
				inTerm("zone", api.SelectorOpNotIn, half)}}}},
		}, overhead.Options{})
		b.Run(fmt.Sprintf("compile/values=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if _, err := overhead.CompileTemplate(&tpl); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("query/values=%d", n), func(b *testing.B) {
			ct, err := overhead.CompileTemplate(&tpl)
			if err != nil {
				b.Fatal(err)
			}
			var r overhead.TemplateResult
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				s.QueryTemplate(ct, &r)
			}
		})
	}
}
