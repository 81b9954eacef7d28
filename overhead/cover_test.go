package overhead

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/selector"
)

// coverAll is the DaemonSet of issue 38's first finding: n OR terms
// "kI In [a]" and one more that asks every key NotIn [a]. Together they
// cover every node, so the answer is Every on a template that leaves the
// keys open; the earlier exact path walked all 3^n classes to see it.
func coverAll(n int) *api.DaemonSet {
	aff := &api.NodeSelector{}
	var notIn []api.NodeSelectorRequirement
	for i := range n {
		k := fmt.Sprintf("k%02d", i)
		aff.Terms = append(aff.Terms, api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{
			{Key: k, Operator: api.SelectorOpIn, Values: []string{"a"}},
		}})
		notIn = append(notIn, api.NodeSelectorRequirement{Key: k, Operator: api.SelectorOpNotIn, Values: []string{"a"}})
	}
	aff.Terms = append(aff.Terms, api.NodeSelectorTerm{MatchExpressions: notIn})
	return &api.DaemonSet{Namespace: "ns", Name: fmt.Sprintf("cover-all-%d", n), UID: "u",
		Template: api.PodTemplate{RequiredNodeAffinity: aff}}
}

// TestCoverAllTermsEvery is the first finding as a user meets it: the
// query answers Every for 24 keys (3^24 classes), and 200. Before the
// cover it did not return (days at 24 keys); run it with -timeout 60s to
// see that.
func TestCoverAllTermsEvery(t *testing.T) {
	for _, n := range []int{24, 200} {
		s := Compile([]*api.DaemonSet{coverAll(n)}, Options{})
		ct, err := CompileTemplate(&NodeTemplate{})
		if err != nil {
			t.Fatal(err)
		}
		var r TemplateResult
		if err := s.QueryTemplate(ct, &r); err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if a := r.Answers[0]; a.Answer != Every || a.Reason != placement.Eligible {
			t.Fatalf("n=%d: %+v, want Every", n, a)
		}
	}
}

// TestCoverAllTermsWork counts the work instead: with n keys, 6n steps are
// enough for the exact path, where the class walk needed 3^n. The cover
// splits n levels into two blocks each (a, and the rest), with two terms
// in play at each: the NotIn term and the level's own, which holds on
// block a and so ends the split there.
func TestCoverAllTermsWork(t *testing.T) {
	ct, err := CompileTemplate(&NodeTemplate{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 2, 8, 24, 64} {
		d := newTplDaemon(coverAll(n), placement.Options{})
		var a TemplateAnswer
		budget := 6 * n
		ans, ok := d.exact(ct, &a, budget)
		if !ok || ans != Every {
			t.Fatalf("n=%d: answer %v, ok %v within %d steps; want Every", n, ans, ok, budget)
		}
	}
}

// refusedDaemonSet needs more than MaxTemplateSteps: its terms cover
// every node, but not in a way the cover sees quickly. With keys x_i
// (named z..) and y_i (named y..), its terms are "x_i In [a], y_i In
// [a]", "x_i NotIn [a], y_i In [a]" for 20 i, and "every y_i NotIn [a]":
// whatever the x's, the y's are covered; the x keys sort last, so they are
// split first, and each of the 2^20 choices of them leaves a different set
// of terms in play.
func refusedDaemonSet() *api.DaemonSet {
	const n = 20
	aff := &api.NodeSelector{}
	var allNot []api.NodeSelectorRequirement
	for i := range n {
		x, y := fmt.Sprintf("z%02d", i), fmt.Sprintf("y%02d", i)
		aff.Terms = append(aff.Terms,
			api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{
				{Key: x, Operator: api.SelectorOpIn, Values: []string{"a"}}, {Key: y, Operator: api.SelectorOpIn, Values: []string{"a"}}}},
			api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{
				{Key: x, Operator: api.SelectorOpNotIn, Values: []string{"a"}}, {Key: y, Operator: api.SelectorOpIn, Values: []string{"a"}}}})
		allNot = append(allNot, api.NodeSelectorRequirement{Key: y, Operator: api.SelectorOpNotIn, Values: []string{"a"}})
	}
	aff.Terms = append(aff.Terms, api.NodeSelectorTerm{MatchExpressions: allNot})
	return &api.DaemonSet{Namespace: "ns", Name: "hard", UID: "h", Template: api.PodTemplate{RequiredNodeAffinity: aff}}
}

// TestCoverRefusal: a DaemonSet that needs more than MaxTemplateSteps is
// refused with an error naming its path and the limit, its answer left
// zero, and the others answered.
func TestCoverRefusal(t *testing.T) {
	hard := refusedDaemonSet()
	easy := &api.DaemonSet{Namespace: "ns", Name: "easy", UID: "e"}
	s := Compile([]*api.DaemonSet{easy, hard, coverAll(3)}, Options{})
	ct, err := CompileTemplate(&NodeTemplate{})
	if err != nil {
		t.Fatal(err)
	}
	var r TemplateResult
	err = s.QueryTemplate(ct, &r)
	errs, ok := err.(field.ErrorList)
	if !ok || len(errs) != 1 {
		t.Fatalf("QueryTemplate: %v, want one refusal", err)
	}
	want := "daemonSets[1].spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
	if e := errs[0]; e.Type != field.TypeForbidden || e.Field != want {
		t.Fatalf("refusal %v (%v at %s), want Forbidden at %s", e, e.Type, e.Field, want)
	}
	for i, wantAnswer := range []Answer{Every, Every, 0} { // ns/cover-all-3, ns/easy, ns/hard
		if got := r.Answers[i].Answer; got != wantAnswer {
			t.Fatalf("%s: %v, want %v", s.Daemon(i).Name, got, wantAnswer)
		}
	}
	if r.Answers[2].Reason != 0 || r.Answers[2].Where != nil || r.Answers[2].Keys != nil {
		t.Fatalf("refused answer %+v, want zero", r.Answers[2])
	}
	if _, err := s.PlanTemplate(&NodeTemplate{}, nil); err == nil {
		t.Fatalf("PlanTemplate answered what QueryTemplate refused")
	}

	// Behind a taint it does not tolerate, the DaemonSet is None wherever
	// its labels let it land: nothing to decide, nothing refused.
	tainted, err := CompileTemplate(&NodeTemplate{Taints: []api.Taint{{Key: "dedicated", Effect: api.TaintEffectNoSchedule}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.QueryTemplate(tainted, &r); err != nil {
		t.Fatalf("behind a taint: %v", err)
	}
	if a := r.Answers[2]; a.Answer != None || a.Reason != placement.UntoleratedNoSchedule {
		t.Fatalf("behind a taint: %+v, want None (UntoleratedNoSchedule)", a)
	}
}

// drawBlocks and drawBoxes make a small cover: up to five levels of one
// to four blocks, up to eight boxes, each asking at least one level for a
// proper subset of its blocks.
func drawCover(t *rapid.T) (blocks []int, boxes [][]need) {
	blocks = rapid.SliceOfN(rapid.IntRange(1, 4), 1, 5).Draw(t, "blocks")
	for range rapid.IntRange(0, 8).Draw(t, "boxes") {
		var box []need
		for l, n := range blocks {
			if n < 2 || !rapid.Bool().Draw(t, "asks") {
				continue
			}
			pass := make([]bool, n)
			yes := rapid.IntRange(1, 1<<n-2).Draw(t, "pass") // neither none nor all
			for b := range pass {
				pass[b] = yes&(1<<b) != 0
			}
			box = append(box, need{level: l, pass: pass})
		}
		if len(box) > 0 {
			boxes = append(boxes, box)
		}
	}
	return blocks, boxes
}

// inBox reports whether the point (a block per level) is in the box.
func inBox(point []int, box []need) bool {
	for _, n := range box {
		if !n.pass[point[n.level]] {
			return false
		}
	}
	return true
}

// TestCoverBruteForce: on small covers, covers and decides agree with
// every point of the space, and the work stays within its bound: at most
// twice the points, times one plus the boxes. With a budget below the
// work, the cover says so (over), and sawFalse is never set on a space
// the boxes cover.
func TestCoverBruteForce(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		blocks, boxes := drawCover(t)
		points := 1
		for _, n := range blocks {
			points *= n
		}
		in := make([]bool, points)
		point := make([]int, len(blocks))
		for p := range points {
			for l, q := 0, p; l < len(blocks); l++ {
				point[l], q = q%blocks[l], q/blocks[l]
			}
			for _, box := range boxes {
				in[p] = in[p] || inBox(point, box)
			}
		}
		covered := !slices.Contains(in, false)
		decides := make([]bool, len(blocks))
		stride := 1
		for l, n := range blocks {
			for p := range points {
				digit := (p / stride) % n
				for b := range n {
					decides[l] = decides[l] || in[p] != in[p+(b-digit)*stride]
				}
			}
			stride *= n
		}
		bound := 2 * points * (1 + len(boxes))
		c := newCover(blocks, boxes, bound)
		if got := c.covers(); c.over || got != covered {
			t.Fatalf("covers %v (over %v after %d steps), want %v", got, c.over, c.steps, covered)
		}
		if !slices.Equal(c.decides, decides) {
			t.Fatalf("decides %v, want %v", c.decides, decides)
		}
		if c.sawFalse == covered {
			t.Fatalf("sawFalse %v on a space covered %v", c.sawFalse, covered)
		}
		if c.steps > 1 {
			short := newCover(blocks, boxes, rapid.IntRange(0, c.steps-1).Draw(t, "budget"))
			short.covers()
			if !short.over || short.sawFalse && covered {
				t.Fatalf("budget below the work: over %v, sawFalse %v on a space covered %v", short.over, short.sawFalse, covered)
			}
		}
	})
}

// The world of TestCoverAgreesWithEnumeration: four keys, values that
// include integers for Gt and Lt.
var (
	enumKeys   = []string{"a", "b", "c", "d"}
	enumValues = []string{"x", "y", "1", "2"}
	enumOps    = []api.SelectorOperator{api.SelectorOpIn, api.SelectorOpNotIn, api.SelectorOpExists, api.SelectorOpDoesNotExist, api.SelectorOpGt, api.SelectorOpLt}
)

func drawEnumRequirement(t *rapid.T) api.NodeSelectorRequirement {
	r := api.NodeSelectorRequirement{
		Key:      rapid.SampledFrom(enumKeys).Draw(t, "key"),
		Operator: rapid.SampledFrom(enumOps).Draw(t, "op"),
	}
	switch r.Operator {
	case api.SelectorOpIn, api.SelectorOpNotIn:
		r.Values = rapid.SliceOfNDistinct(rapid.SampledFrom(enumValues), 1, 2, rapid.ID[string]).Draw(t, "values")
	case api.SelectorOpGt, api.SelectorOpLt:
		r.Values = []string{rapid.SampledFrom([]string{"0", "1", "2"}).Draw(t, "bound")}
	}
	return r
}

// TestCoverAgreesWithEnumeration: the exact path through the cover gives
// the answer, Where and Keys of the class enumeration it replaced
// (exactByEnumeration), on DaemonSets of up to eight OR terms over four
// keys, against templates that limit some of them; every kind of answer
// comes up.
func TestCoverAgreesWithEnumeration(t *testing.T) {
	seen := map[Answer]int{}
	rapid.Check(t, func(t *rapid.T) {
		aff := &api.NodeSelector{}
		for range rapid.IntRange(1, 8).Draw(t, "terms") {
			aff.Terms = append(aff.Terms, api.NodeSelectorTerm{
				MatchExpressions: rapid.SliceOfN(rapid.Custom(drawEnumRequirement), 1, 3).Draw(t, "exprs"),
			})
		}
		ds := &api.DaemonSet{Namespace: "ns", Name: "d", UID: "u", Template: api.PodTemplate{RequiredNodeAffinity: aff}}
		var tpl NodeTemplate
		for _, e := range rapid.SliceOfN(rapid.Custom(drawEnumRequirement), 0, 3).Draw(t, "template") {
			tpl.Requirements = append(tpl.Requirements, selector.Requirement{Key: e.Key, Operator: e.Operator, Values: e.Values})
		}
		ct, err := CompileTemplate(&tpl)
		if err != nil {
			t.Fatalf("CompileTemplate: %v", err)
		}
		d := newTplDaemon(ds, placement.Options{})
		var got, want TemplateAnswer
		ans, ok := d.exact(ct, &got, MaxTemplateSteps)
		if !ok {
			t.Fatalf("refused a DaemonSet of %d terms", len(aff.Terms))
		}
		wantAns := d.exactByEnumeration(ct, &want)
		seen[wantAns]++
		if ans != wantAns {
			t.Fatalf("cover %v, enumeration %v", ans, wantAns)
		}
		if g, w := fmt.Sprint(got.Where, got.Keys), fmt.Sprint(want.Where, want.Keys); g != w {
			t.Fatalf("cover where, keys %s; enumeration %s", g, w)
		}
	})
	if seen[Every] == 0 || seen[None] == 0 || seen[Depends] == 0 {
		t.Fatalf("answers seen %v: some kind never came up", seen)
	}
}

// TestCoverOverBudgetDepends: terms "x_i In [a], y_i In [a]" for 20 i,
// the x keys split first, leave 2^20 sets of terms in play: past
// MaxTemplateSteps, but a node without the pod was met on the way, so the
// answer is Depends, with Keys every key the terms ask about (here also
// the exact answer), and no refusal.
func TestCoverOverBudgetDepends(t *testing.T) {
	aff := &api.NodeSelector{}
	for i := range 20 {
		aff.Terms = append(aff.Terms, api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{
			{Key: fmt.Sprintf("z%02d", i), Operator: api.SelectorOpIn, Values: []string{"a"}},
			{Key: fmt.Sprintf("y%02d", i), Operator: api.SelectorOpIn, Values: []string{"a"}},
		}})
	}
	ds := &api.DaemonSet{Namespace: "ns", Name: "pairs", UID: "p", Template: api.PodTemplate{RequiredNodeAffinity: aff}}
	ct, err := CompileTemplate(&NodeTemplate{})
	if err != nil {
		t.Fatal(err)
	}
	d := newTplDaemon(ds, placement.Options{})
	cl := d.classesOn(ct)
	c, _ := coverOf(cl.terms, cl.reps, MaxTemplateSteps)
	if c.covers(); !c.over || !c.sawFalse {
		t.Fatalf("over %v, sawFalse %v: want the budget passed after a node without the pod", c.over, c.sawFalse)
	}
	var r TemplateResult
	if err := Compile([]*api.DaemonSet{ds}, Options{}).QueryTemplate(ct, &r); err != nil {
		t.Fatal(err)
	}
	if a := r.Answers[0]; a.Answer != Depends || len(a.Keys) != 40 || len(a.Where) != 20 {
		t.Fatalf("%v with %d keys and %d alternatives, want Depends with 40 and 20", a.Answer, len(a.Keys), len(a.Where))
	}
}
