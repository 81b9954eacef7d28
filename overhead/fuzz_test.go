package overhead

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/selector"
)

// fuzzBytes reads a fuzz input a byte at a time, zeros once it runs out.
type fuzzBytes []byte

func (b *fuzzBytes) next(n int) int {
	if len(*b) == 0 {
		return 0
	}
	v := int((*b)[0])
	*b = (*b)[1:]
	return v % n
}

// requirement decodes one requirement over three keys, with values from
// x, y, 1, 2 and bounds 0, 1, 2.
func (b *fuzzBytes) requirement() api.NodeSelectorRequirement {
	r := api.NodeSelectorRequirement{
		Key:      []string{"a", "b", "c"}[b.next(3)],
		Operator: enumOps[b.next(len(enumOps))],
	}
	switch r.Operator {
	case api.SelectorOpIn, api.SelectorOpNotIn:
		mask := 1 + b.next(15)
		for i, v := range enumValues {
			if mask&(1<<i) != 0 {
				r.Values = append(r.Values, v)
			}
		}
	case api.SelectorOpGt, api.SelectorOpLt:
		r.Values = []string{[]string{"0", "1", "2"}[b.next(3)]}
	}
	return r
}

// FuzzTemplateQuery: a template of up to three requirements and up to
// three DaemonSets of up to eight OR terms, over three keys, decoded from
// the input. QueryTemplate answers every DaemonSet, never refusing one
// this small, and the answers are the class enumeration's
// (exactByEnumeration, which looks at every class: brute force); the
// exact path gives its Where and Keys too. The exact path's work stays
// within its bound: twice the classes of the keys the terms name, times
// one plus the terms (cover). The inputs are unchanged.
func FuzzTemplateQuery(f *testing.F) {
	f.Add([]byte{})
	// Every key In [x] | every key NotIn [x] (coverAll over three keys).
	f.Add([]byte{0, 1, 3, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 2, 0, 0, 3, 0, 1, 0, 1, 1, 1, 2, 1, 0})
	// A template zone-like limit and two overlapping terms.
	f.Add([]byte{2, 0, 0, 5, 1, 2, 0, 2, 1, 0, 0, 2, 1, 4, 1, 1, 1, 1, 1, 3, 4, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := fuzzBytes(data)
		var tpl NodeTemplate
		for range in.next(4) {
			r := in.requirement()
			tpl.Requirements = append(tpl.Requirements, selector.Requirement{Key: r.Key, Operator: r.Operator, Values: r.Values})
		}
		dss := make([]*api.DaemonSet, 1+in.next(3))
		for i := range dss {
			aff := &api.NodeSelector{}
			for range 1 + in.next(8) {
				var term api.NodeSelectorTerm
				for range 1 + in.next(3) {
					term.MatchExpressions = append(term.MatchExpressions, in.requirement())
				}
				aff.Terms = append(aff.Terms, term)
			}
			dss[i] = &api.DaemonSet{Namespace: "ns", Name: fmt.Sprintf("d%d", i), UID: fmt.Sprint(i),
				Template: api.PodTemplate{RequiredNodeAffinity: aff}}
		}
		tplBefore := NodeTemplate{Requirements: slices.Clone(tpl.Requirements)}
		for i := range tplBefore.Requirements {
			tplBefore.Requirements[i].Values = slices.Clone(tpl.Requirements[i].Values)
		}
		dssBefore := make([]*api.DaemonSet, len(dss))
		for i, ds := range dss {
			dssBefore[i] = ds.DeepCopy()
		}

		ct, err := CompileTemplate(&tpl)
		if err != nil {
			t.Fatalf("CompileTemplate: %v", err)
		}
		s := Compile(dss, Options{})
		var r TemplateResult
		if err := s.QueryTemplate(ct, &r); err != nil {
			t.Fatalf("QueryTemplate refused a small input: %v", err)
		}
		for i := range s.daemons {
			d := &s.daemons[i].tpl
			var byEnum, byCover TemplateAnswer
			want := None
			if _, empty := ct.NoNode(); !empty {
				want = d.exactByEnumeration(ct, &byEnum)
			}
			if got := r.Answers[i].Answer; got != want {
				t.Fatalf("%s: QueryTemplate %v, enumeration %v", s.daemons[i].Name, got, want)
			}
			if want == Depends && !slices.Equal(r.Answers[i].Keys, byEnum.Keys) {
				t.Fatalf("%s: Keys %v, enumeration %v", s.daemons[i].Name, r.Answers[i].Keys, byEnum.Keys)
			}
			if want == None {
				continue
			}
			bound := exactBound(d, ct)
			ans, ok := d.exact(ct, &byCover, bound)
			if !ok {
				t.Fatalf("%s: exact path over its bound of %d steps", s.daemons[i].Name, bound)
			}
			if g, w := fmt.Sprint(ans, byCover.Where, byCover.Keys), fmt.Sprint(want, byEnum.Where, byEnum.Keys); g != w {
				t.Fatalf("%s: exact path %s, enumeration %s", s.daemons[i].Name, g, w)
			}
		}
		if !reflect.DeepEqual(tpl, tplBefore) || !reflect.DeepEqual(dss, dssBefore) {
			t.Fatalf("inputs changed")
		}
	})
}

// exactBound is the cover's bound on the exact path's work for d on ct:
// twice the product of the classes (reps) of every key the live terms
// name, times one plus the terms.
func exactBound(d *tplDaemon, ct *CompiledTemplate) int {
	byKey := map[string][]*selector.Requirement{}
	terms := 0
	for ti := range d.terms {
		t := &d.terms[ti]
		if !fieldsHold(t, ct.name) {
			continue
		}
		terms++
		for ri := range t.Labels {
			byKey[t.Labels[ri].Key] = append(byKey[t.Labels[ri].Key], &t.Labels[ri])
		}
	}
	cells := 1
	for key, rs := range byKey {
		cells *= len(ct.domain(key).reps(rs))
	}
	return 2 * cells * (1 + terms)
}
