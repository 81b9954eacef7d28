package overhead_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/overhead"
	"github.com/daemonplan/daemonplan/selector"
)

// values returns n values "v0000000"... from the i-th on.
func values(from, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("v%07d", from+i)
	}
	return out
}

func inTerm(key string, op api.SelectorOperator, vs ...[]string) api.NodeSelectorTerm {
	var t api.NodeSelectorTerm
	for _, v := range vs {
		t.MatchExpressions = append(t.MatchExpressions, api.NodeSelectorRequirement{Key: key, Operator: op, Values: v})
	}
	return t
}

// TestLongValueLists: In and NotIn lists of 200,000 values, in the
// template and in the DaemonSets, compile and answer (issue 38's fourth
// finding: both were quadratic in a list's length, 3.5 s to compile and
// 2.1 s a query at 40,000 values, so minutes here). The deadline is not a
// measure of speed, only a bound the quadratic code cannot meet: the
// answer takes well under a second.
func TestLongValueLists(t *testing.T) {
	const n = 200_000
	all, low, high := values(0, n), values(0, n/2), values(n/2, n/2)
	affinity := func(ts ...api.NodeSelectorTerm) api.PodTemplate {
		return api.PodTemplate{RequiredNodeAffinity: &api.NodeSelector{Terms: ts}}
	}
	dss := []*api.DaemonSet{
		{Namespace: "ns", Name: "1-all", UID: "1", Template: affinity(inTerm("zone", api.SelectorOpIn, all))},
		{Namespace: "ns", Name: "2-low", UID: "2", Template: affinity(inTerm("zone", api.SelectorOpIn, low))},
		{Namespace: "ns", Name: "3-low-or-high", UID: "3", Template: affinity(inTerm("zone", api.SelectorOpIn, low), inTerm("zone", api.SelectorOpIn, high))},
		{Namespace: "ns", Name: "4-not-low", UID: "4", Template: affinity(inTerm("rack", api.SelectorOpNotIn, low))},
		{Namespace: "ns", Name: "5-two-lists", UID: "5", Template: affinity(inTerm("zone", api.SelectorOpNotIn, low, values(n/4, n/2)))},
	}
	tpl := overhead.NodeTemplate{Requirements: []selector.Requirement{
		{Key: "zone", Operator: api.SelectorOpIn, Values: values(0, n+n/2)},
		{Key: "zone", Operator: api.SelectorOpIn, Values: all},
		{Key: "zone", Operator: api.SelectorOpNotIn, Values: values(n+10, n)}, // none in the domain
		{Key: "rack", Operator: api.SelectorOpNotIn, Values: all},
	}}
	type result struct {
		r   overhead.TemplateResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		var res result
		ct, err := overhead.CompileTemplate(&tpl)
		if err != nil {
			res.err = err
		} else {
			res.err = overhead.Compile(dss, overhead.Options{}).QueryTemplate(ct, &res.r)
		}
		done <- res
	}()
	var res result
	select {
	case res = <-done:
	case <-time.After(60 * time.Second):
		t.Fatalf("no answer within 60 s for lists of %d values", n)
	}
	if res.err != nil {
		t.Fatal(res.err)
	}
	want := []struct {
		answer overhead.Answer
		where  string // the first requirement of each alternative, its values counted
	}{
		{overhead.Every, ""},
		{overhead.Depends, "[zone In 100000]"},
		{overhead.Every, ""},
		{overhead.Every, ""}, // the template rules out every rack the DaemonSet does
		{overhead.Depends, "[zone In 50000]"},
	}
	for i, w := range want {
		a := res.r.Answers[i]
		var where []string
		for _, alt := range a.Where {
			where = append(where, fmt.Sprintf("%s %s %d", alt[0].Key, alt[0].Operator, len(alt[0].Values)))
		}
		if a.Answer != w.answer || w.where != "" && fmt.Sprint(where) != w.where {
			t.Errorf("%s: %v where %v, want %v where %s", dss[i].Name, a.Answer, where, w.answer, w.where)
		}
	}
}
