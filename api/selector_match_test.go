package api_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/selector"
)

// TestValidSelectorMatchesCompiled is a differential property: Validate's
// rule "the selector must match the template labels" reads the selector as
// written, and must agree with the compiled selector of package selector,
// which the planner uses to match pods, on every valid selector.
func TestValidSelectorMatchesCompiled(t *testing.T) {
	keys := []string{"app", "tier", "example.com/role"}
	values := []string{"", "a", "b"}
	ops := []api.SelectorOperator{api.SelectorOpIn, api.SelectorOpNotIn, api.SelectorOpExists, api.SelectorOpDoesNotExist}
	labelsGen := rapid.MapOfN(rapid.SampledFrom(keys), rapid.SampledFrom(values), 0, len(keys))
	rapid.Check(t, func(t *rapid.T) {
		var ls *api.LabelSelector
		if rapid.IntRange(0, 9).Draw(t, "nil") > 0 {
			ls = &api.LabelSelector{MatchLabels: labelsGen.Draw(t, "matchLabels")}
			for range rapid.IntRange(0, 3).Draw(t, "expressions") {
				op := rapid.SampledFrom(ops).Draw(t, "op")
				e := api.LabelSelectorRequirement{Key: rapid.SampledFrom(keys).Draw(t, "key"), Operator: op}
				if op == api.SelectorOpIn || op == api.SelectorOpNotIn {
					e.Values = rapid.SliceOfN(rapid.SampledFrom(values), 1, 3).Draw(t, "values")
				}
				ls.MatchExpressions = append(ls.MatchExpressions, e)
			}
		}
		labels := labelsGen.Draw(t, "labels")
		compiled, err := selector.Compile(ls)
		if err != nil {
			t.Fatalf("generated selector is invalid: %v", err)
		}
		if got, want := api.ValidSelectorMatches(ls, labels), compiled.Matches(labels); got != want {
			t.Fatalf("validSelectorMatches(%+v, %v) = %v, selector.Compile(...).Matches = %v", ls, labels, got, want)
		}
	})
}
