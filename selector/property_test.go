package selector

import (
	"slices"
	"strconv"
	"testing"

	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan/api"
)

// Generators. Keys and values come mostly from small pools so that
// requirements and label sets collide often; the rest are random valid
// strings.

var (
	keyPool   = []string{"a", "b", "app", "in", "notin", "example.com/tier", "k8s.io/x_y-z"}
	valuePool = []string{"", "x", "y", "z", "in", "notin", "0", "1", "5", "007", "10", "v1.2"}
	// numberPool are Gt/Lt bounds: label values that parse as int64.
	numberPool = []string{"0", "1", "5", "007", "10", "9223372036854775807"}
	// labelValuePool adds what nodes may carry but selectors may not name.
	labelValuePool = append(slices.Clone(valuePool), "-3", "+4", "6.0", "9223372036854775808", " 5")
)

func genKey() *rapid.Generator[string] {
	return rapid.OneOf(
		rapid.SampledFrom(keyPool),
		rapid.StringMatching(`([a-z0-9]([-a-z0-9]{0,3}[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,4}[A-Za-z0-9])?`),
	)
}

func genValue() *rapid.Generator[string] {
	return rapid.OneOf(
		rapid.SampledFrom(valuePool),
		rapid.StringMatching(`([A-Za-z0-9]([-A-Za-z0-9_.]{0,4}[A-Za-z0-9])?)?`),
	)
}

// genRequirement draws a valid requirement of any operator the string
// syntax has.
func genRequirement() *rapid.Generator[Requirement] {
	ops := []api.SelectorOperator{api.SelectorOpIn, api.SelectorOpNotIn, api.SelectorOpExists, api.SelectorOpDoesNotExist, api.SelectorOpGt, api.SelectorOpLt, Equals, DoubleEquals, NotEquals}
	return rapid.Custom(func(t *rapid.T) Requirement {
		r := Requirement{Key: genKey().Draw(t, "key"), Operator: rapid.SampledFrom(ops).Draw(t, "op")}
		switch r.Operator {
		case api.SelectorOpIn, api.SelectorOpNotIn:
			r.Values = rapid.SliceOfN(genValue(), 1, 4).Draw(t, "values")
		case api.SelectorOpGt, api.SelectorOpLt:
			r.Values = []string{rapid.SampledFrom(numberPool).Draw(t, "bound")}
		case Equals, DoubleEquals, NotEquals:
			r.Values = []string{genValue().Draw(t, "value")}
		}
		return r
	})
}

// genSelector draws a selector built without the parser: either from random
// requirements or by compiling a random API label selector.
func genSelector() *rapid.Generator[Selector] {
	fromReqs := rapid.Custom(func(t *rapid.T) Selector {
		var reqs []requirement
		for _, r := range rapid.SliceOfN(genRequirement(), 0, 5).Draw(t, "reqs") {
			reqs = append(reqs, newRequirement(r.Key, r.Operator, r.Values))
		}
		return newSelector(reqs)
	})
	compiled := rapid.Custom(func(t *rapid.T) Selector {
		ls := &api.LabelSelector{MatchLabels: rapid.MapOfN(genKey(), genValue(), 0, 3).Draw(t, "matchLabels")}
		for _, r := range rapid.SliceOfN(genRequirement(), 0, 3).Draw(t, "exprs") {
			switch r.Operator {
			case api.SelectorOpIn, api.SelectorOpNotIn, api.SelectorOpExists, api.SelectorOpDoesNotExist:
				ls.MatchExpressions = append(ls.MatchExpressions, api.LabelSelectorRequirement(r))
			}
		}
		s, err := Compile(ls)
		if err != nil {
			t.Fatalf("Compile(%+v): %v", ls, err)
		}
		return s
	})
	return rapid.OneOf(fromReqs, compiled)
}

func genLabels() *rapid.Generator[map[string]string] {
	return rapid.MapOfN(rapid.SampledFrom(keyPool), rapid.SampledFrom(labelValuePool), 0, 6)
}

// refMatches is a deliberately naive reading of labels.Requirement.Matches, independent of
// the package's code: strconv for numbers, a loop for sets.
func refMatches(r Requirement, l map[string]string) bool {
	v, ok := l[r.Key]
	in := false
	for _, x := range r.Values {
		if x == v {
			in = true
		}
	}
	switch r.Operator {
	case api.SelectorOpIn, Equals, DoubleEquals:
		return ok && in
	case api.SelectorOpNotIn, NotEquals:
		return !ok || !in
	case api.SelectorOpExists:
		return ok
	case api.SelectorOpDoesNotExist:
		return !ok
	case api.SelectorOpGt, api.SelectorOpLt:
		if !ok || len(r.Values) != 1 {
			return false
		}
		a, err1 := strconv.ParseInt(v, 10, 64)
		b, err2 := strconv.ParseInt(r.Values[0], 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		return r.Operator == api.SelectorOpGt && a > b || r.Operator == api.SelectorOpLt && a < b
	}
	return false
}

// TestPropertyStringRoundTrip: Parse(s.String()) is Equal to s.
func TestPropertyStringRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genSelector().Draw(t, "selector")
		str := s.String()
		p, err := Parse(str)
		if err != nil {
			t.Fatalf("Parse(%q): %v", str, err)
		}
		if !p.Equal(s) {
			t.Fatalf("Parse(%q) = %q, not equal to the original", str, p.String())
		}
	})
}

// TestPropertyMatchesIsConjunction: a selector matches a label set iff every
// one of its requirements does, judged by the naive reference.
func TestPropertyMatchesIsConjunction(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genSelector().Draw(t, "selector")
		l := genLabels().Draw(t, "labels")
		want := true
		for _, r := range s.Requirements() {
			if refMatches(r, l) != r.Matches(l) {
				t.Fatalf("Requirement %v.Matches(%v) = %v, reference says %v", r, l, r.Matches(l), refMatches(r, l))
			}
			want = want && refMatches(r, l)
		}
		if got := s.Matches(l); got != want {
			t.Fatalf("%q.Matches(%v) = %v, want %v", s.String(), l, got, want)
		}
	})
}

// TestPropertyNotInComplementsIn: where the key exists, NotIn matches iff In
// does not (compiled and exported forms); where it is absent, NotIn matches
// and In does not.
func TestPropertyNotInComplementsIn(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		key := rapid.SampledFrom(keyPool).Draw(t, "key")
		values := rapid.SliceOfN(genValue(), 1, 4).Draw(t, "values")
		l := genLabels().Draw(t, "labels")
		in := Requirement{Key: key, Operator: api.SelectorOpIn, Values: values}
		notIn := Requirement{Key: key, Operator: api.SelectorOpNotIn, Values: values}
		inSel := newSelector([]requirement{newRequirement(key, api.SelectorOpIn, values)})
		notInSel := newSelector([]requirement{newRequirement(key, api.SelectorOpNotIn, values)})
		if _, ok := l[key]; ok {
			if notIn.Matches(l) == in.Matches(l) {
				t.Fatalf("key present: In %v and NotIn %v agree (%v) on %v", in, notIn, in.Matches(l), l)
			}
			if notInSel.Matches(l) == inSel.Matches(l) {
				t.Fatalf("key present: compiled In and NotIn agree (%v) on %v", inSel.Matches(l), l)
			}
			return
		}
		if !notIn.Matches(l) || in.Matches(l) || !notInSel.Matches(l) || inSel.Matches(l) {
			t.Fatalf("key absent from %v: want NotIn true and In false", l)
		}
	})
}

// Node selector generators.

// genNodeRequirement draws a well-formed node label requirement.
func genNodeRequirement() *rapid.Generator[api.NodeSelectorRequirement] {
	return rapid.Custom(func(t *rapid.T) api.NodeSelectorRequirement {
		for {
			r := genRequirement().Draw(t, "req")
			switch r.Operator {
			case Equals, DoubleEquals, NotEquals:
				continue // not node operators
			}
			return api.NodeSelectorRequirement(r)
		}
	})
}

func genFieldRequirement() *rapid.Generator[api.NodeSelectorRequirement] {
	return rapid.Custom(func(t *rapid.T) api.NodeSelectorRequirement {
		return api.NodeSelectorRequirement{
			Key:      api.NodeNameField,
			Operator: rapid.SampledFrom([]api.SelectorOperator{api.SelectorOpIn, api.SelectorOpNotIn}).Draw(t, "op"),
			Values:   []string{rapid.SampledFrom(nodeNames).Draw(t, "name")},
		}
	})
}

var nodeNames = []string{"", "n1", "n2", "n3"}

func genTerm() *rapid.Generator[api.NodeSelectorTerm] {
	return rapid.Custom(func(t *rapid.T) api.NodeSelectorTerm {
		return api.NodeSelectorTerm{
			MatchExpressions: rapid.SliceOfN(genNodeRequirement(), 0, 3).Draw(t, "exprs"),
			MatchFields:      rapid.SliceOfN(genFieldRequirement(), 0, 1).Draw(t, "fields"),
		}
	})
}

// genMalformedTerm draws a term with at least one requirement that upstream
// cannot parse, among well-formed ones.
func genMalformedTerm() *rapid.Generator[api.NodeSelectorTerm] {
	bad := []api.NodeSelectorRequirement{
		{Key: "a", Operator: "Like", Values: []string{"x"}},
		{Key: "a", Operator: api.SelectorOpIn},
		{Key: "a", Operator: api.SelectorOpNotIn, Values: []string{}},
		{Key: "a", Operator: api.SelectorOpExists, Values: []string{"x"}},
		{Key: "a", Operator: api.SelectorOpGt, Values: []string{"x"}},
		{Key: "a", Operator: api.SelectorOpLt, Values: []string{"1", "2"}},
		{Key: "a", Operator: api.SelectorOpGt, Values: []string{"-1"}},
		{Key: "bad key", Operator: api.SelectorOpExists},
		{Key: "a", Operator: api.SelectorOpNotIn, Values: []string{"bad value"}},
		{Key: "a", Operator: Equals, Values: []string{"x"}},
	}
	badFields := []api.NodeSelectorRequirement{
		{Key: api.NodeNameField, Operator: api.SelectorOpIn, Values: []string{"n1", "n2"}},
		{Key: api.NodeNameField, Operator: api.SelectorOpNotIn},
		{Key: api.NodeNameField, Operator: api.SelectorOpExists},
	}
	return rapid.Custom(func(t *rapid.T) api.NodeSelectorTerm {
		term := genTerm().Draw(t, "good part")
		if rapid.Bool().Draw(t, "bad field") {
			r := rapid.SampledFrom(badFields).Draw(t, "bad")
			i := rapid.IntRange(0, len(term.MatchFields)).Draw(t, "at")
			term.MatchFields = slices.Insert(term.MatchFields, i, r)
		} else {
			r := rapid.SampledFrom(bad).Draw(t, "bad")
			i := rapid.IntRange(0, len(term.MatchExpressions)).Draw(t, "at")
			term.MatchExpressions = slices.Insert(term.MatchExpressions, i, r)
		}
		return term
	})
}

// TestPropertyLazyErrors: inserting a malformed term anywhere among the terms
// never changes which nodes match, in particular never removes a match; and
// inserting any term never removes a match (terms are ORed).
func TestPropertyLazyErrors(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodeSel := rapid.MapOfN(rapid.SampledFrom(keyPool), rapid.SampledFrom(valuePool), 0, 1).Draw(t, "nodeSelector")
		base := rapid.SliceOfN(genTerm(), 0, 3).Draw(t, "terms")
		i := rapid.IntRange(0, len(base)).Draw(t, "at")
		bad := genMalformedTerm().Draw(t, "malformed")
		any := rapid.OneOf(genTerm(), genMalformedTerm()).Draw(t, "any")
		name := rapid.SampledFrom(nodeNames).Draw(t, "node")
		l := genLabels().Draw(t, "labels")

		before := CompileNode(nodeSel, &api.NodeSelector{Terms: base})
		withBad := CompileNode(nodeSel, &api.NodeSelector{Terms: slices.Insert(slices.Clone(base), i, bad)})
		withAny := CompileNode(nodeSel, &api.NodeSelector{Terms: slices.Insert(slices.Clone(base), i, any)})

		ok, _ := before.Match(name, l)
		okBad, _ := withBad.Match(name, l)
		okAny, _ := withAny.Match(name, l)
		if ok != okBad {
			t.Fatalf("adding malformed term %+v changed Match(%q, %v) from %v to %v", bad, name, l, ok, okBad)
		}
		if ok && !okAny {
			t.Fatalf("adding term %+v removed the match of (%q, %v)", any, name, l)
		}
		if len(withBad.ParseErrors()) == 0 {
			t.Fatalf("malformed term %+v reported no parse error", bad)
		}
	})
}

// TestPropertyMismatchesAgreeWithMatch: Mismatches reports something
// exactly when Match fails, names Match's key first, lists every term when
// no term matches, and each failing requirement it lists fails alone.
func TestPropertyMismatchesAgreeWithMatch(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodeSel := rapid.MapOfN(rapid.SampledFrom(keyPool), rapid.SampledFrom(valuePool), 0, 2).Draw(t, "nodeSelector")
		var required *api.NodeSelector
		if rapid.Bool().Draw(t, "hasAffinity") {
			terms := rapid.SliceOfN(rapid.OneOf(genTerm(), genTerm(), genMalformedTerm()), 0, 3).Draw(t, "terms")
			required = &api.NodeSelector{Terms: terms}
		}
		name := rapid.SampledFrom(nodeNames).Draw(t, "node")
		l := genLabels().Draw(t, "labels")
		m := CompileNode(nodeSel, required)
		ok, why := m.Match(name, l)
		ms := m.Mismatches(name, l)
		if failed := len(ms.Keys) > 0 || ms.Affinity; failed == ok {
			t.Fatalf("Match = %v but Mismatches = %+v", ok, ms)
		}
		if len(ms.Keys) > 0 && (why.Kind != NodeSelectorMismatch || why.Key != ms.Keys[0]) {
			t.Fatalf("Match's mismatch %v, Mismatches' keys %v", why, ms.Keys)
		}
		if len(ms.Keys) == 0 && !ok && why.Kind != NodeAffinityMismatch {
			t.Fatalf("Match's mismatch %v, but Mismatches names no key", why)
		}
		if !ms.Affinity {
			return
		}
		if len(ms.Terms) != len(required.Terms) {
			t.Fatalf("%d terms, Mismatches explains %d: %+v", len(required.Terms), len(ms.Terms), ms.Terms)
		}
		for i, tm := range ms.Terms {
			if tm.Term != i {
				t.Fatalf("term %d reported as term %d", i, tm.Term)
			}
			alone, _ := CompileNode(nil, &api.NodeSelector{Terms: required.Terms[i : i+1]}).Match(name, l)
			if alone {
				t.Fatalf("term %d matches alone but is reported: %+v", i, tm)
			}
			if tm.Empty || tm.Malformed != nil {
				continue
			}
			if len(tm.Expressions)+len(tm.Fields) == 0 {
				t.Fatalf("term %d fails but no requirement is named", i)
			}
			for _, r := range tm.Expressions {
				if r.Matches(l) {
					t.Fatalf("term %d: requirement %v is reported but holds on %v", i, r, l)
				}
			}
		}
	})
}
