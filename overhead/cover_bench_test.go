package overhead

import (
	"fmt"
	"testing"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
)

// BenchmarkCoverAll: the exact path on coverAll(n) (n keys, n+1 OR terms
// that together hold everywhere), through the cover and through the class
// enumeration it replaced, side by side:
//
//	go test ./overhead -run '^$' -bench CoverAll -benchmem -cpu 1 -count 10 | tee bench.txt
//	benchstat -col /path bench.txt
//
// The enumeration walks 3^n classes, so it runs up to 12 keys only.
func BenchmarkCoverAll(b *testing.B) {
	ct, err := CompileTemplate(&NodeTemplate{})
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{8, 10, 12, 24, 64} {
		d := newTplDaemon(coverAll(n), placement.Options{})
		b.Run(fmt.Sprintf("path=cover/keys=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				var a TemplateAnswer
				if ans, ok := d.exact(ct, &a, MaxTemplateSteps); !ok || ans != Every {
					b.Fatalf("%v %v", ans, ok)
				}
			}
		})
		if n > 12 {
			continue
		}
		b.Run(fmt.Sprintf("path=enumerate/keys=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				var a TemplateAnswer
				if ans := d.exactByEnumeration(ct, &a); ans != Every {
					b.Fatal(ans)
				}
			}
		})
	}
}

// BenchmarkCoverRefused: what a DaemonSet costs that the query refuses
// (TestCoverRefusal's): the work up to MaxTemplateSteps, then the error.
func BenchmarkCoverRefused(b *testing.B) {
	s := Compile([]*api.DaemonSet{refusedDaemonSet()}, Options{})
	ct, err := CompileTemplate(&NodeTemplate{})
	if err != nil {
		b.Fatal(err)
	}
	var r TemplateResult
	b.ReportAllocs()
	for range b.N {
		if err := s.QueryTemplate(ct, &r); err == nil {
			b.Fatal("answered")
		}
	}
}

// BenchmarkCoverOverBudget: TestCoverOverBudgetDepends's DaemonSet, whose
// parts keep few terms in play: the most parts the budget allows.
func BenchmarkCoverOverBudget(b *testing.B) {
	aff := &api.NodeSelector{}
	for i := range 20 {
		aff.Terms = append(aff.Terms, api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{
			{Key: fmt.Sprintf("z%02d", i), Operator: api.SelectorOpIn, Values: []string{"a"}},
			{Key: fmt.Sprintf("y%02d", i), Operator: api.SelectorOpIn, Values: []string{"a"}},
		}})
	}
	s := Compile([]*api.DaemonSet{{Namespace: "ns", Name: "pairs", UID: "p", Template: api.PodTemplate{RequiredNodeAffinity: aff}}}, Options{})
	ct, err := CompileTemplate(&NodeTemplate{})
	if err != nil {
		b.Fatal(err)
	}
	var r TemplateResult
	b.ReportAllocs()
	for range b.N {
		if err := s.QueryTemplate(ct, &r); err != nil {
			b.Fatal(err)
		}
	}
}
