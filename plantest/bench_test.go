package plantest_test

import (
	"fmt"
	"testing"

	"github.com/daemonplan/daemonplan/plantest"
)

// BenchmarkCheckSync measures every single-plan checker on a rolling update
// halfway through, against Sync itself on the same input: what the kit
// adds to each step of a property test.
func BenchmarkCheckSync(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		in := midUpdate(n, 1, 0, true)
		p := mustSync(in)
		b.Run(fmt.Sprintf("nodes=%d/CheckSync", n), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if err := plantest.CheckSync(in, p); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("nodes=%d/Sync", n), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				mustSync(in)
			}
		})
	}
}

// BenchmarkSnapshots measures drawing one snapshot with every knob on.
func BenchmarkSnapshots(b *testing.B) {
	gen := plantest.Snapshots(everything)
	b.ReportAllocs()
	seed := 0
	for range b.N {
		gen.Example(seed)
		seed++
	}
}
