package overhead_test

import (
	"testing"

	"github.com/daemonplan/daemonplan/overhead"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/resource"
)

// BenchmarkQuery: 50 DaemonSets against one node, compiled once, with a
// reused Result (the target: ≤ 5 µs and no allocation per query).
func BenchmarkQuery(b *testing.B) {
	s := overhead.Compile(fleet(50), placement.Options{})
	n := gpuNode()
	var r overhead.Result
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
		overhead.Compile(dss, placement.Options{})
	}
}
