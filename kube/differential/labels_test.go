package differential

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/selector"
)

// Small alphabets, mostly valid, with a few invalid entries ("-a", "a b",
// "", over-long) so that compile and parse errors are common enough.
var (
	labelKeys   = []string{"a", "b", "app", "x.io/tier", "a", "b", "-a", "a b", "", "x.io/"}
	labelValues = []string{"", "1", "v", "w", "10", "v", "-v", "v w", strings.Repeat("v", 64)}
	labelOps    = []api.SelectorOperator{api.SelectorOpIn, api.SelectorOpNotIn, api.SelectorOpExists, api.SelectorOpDoesNotExist}
)

func genLabelKey() *rapid.Generator[string]   { return rapid.SampledFrom(labelKeys) }
func genLabelValue() *rapid.Generator[string] { return rapid.SampledFrom(labelValues) }

// genGoodValue draws only valid values, for label sets and most requirements.
func genGoodValue() *rapid.Generator[string] {
	return rapid.SampledFrom([]string{"", "1", "v", "w", "10"})
}

func genLabelSet() *rapid.Generator[map[string]string] {
	return rapid.MapOfN(rapid.SampledFrom([]string{"a", "b", "app", "x.io/tier"}), genGoodValue(), 0, 4)
}

func genLabelOp() *rapid.Generator[api.SelectorOperator] {
	return rapid.Custom(func(t *rapid.T) api.SelectorOperator {
		if rapid.IntRange(0, 19).Draw(t, "bogusOp") == 0 {
			return rapid.SampledFrom([]api.SelectorOperator{"Bogus", api.SelectorOpGt, selector.Equals, ""}).Draw(t, "op")
		}
		return rapid.SampledFrom(labelOps).Draw(t, "op")
	})
}

// genValues draws a value list that usually fits the operator but sometimes
// does not (In without values, Exists with values) or holds invalid values.
func genValues(t *rapid.T, op api.SelectorOperator) []string {
	vg := genGoodValue()
	if rapid.IntRange(0, 9).Draw(t, "badValues") == 0 {
		vg = genLabelValue()
	}
	lo, hi := 1, 3
	switch op {
	case api.SelectorOpExists, api.SelectorOpDoesNotExist:
		lo, hi = 0, 0
	}
	if rapid.IntRange(0, 14).Draw(t, "wrongCount") == 0 {
		lo, hi = 0, 2
	}
	return rapid.SliceOfN(vg, lo, hi).Draw(t, "values")
}

func genLabelSelector() *rapid.Generator[*api.LabelSelector] {
	return rapid.Custom(func(t *rapid.T) *api.LabelSelector {
		if rapid.IntRange(0, 19).Draw(t, "nil") == 0 {
			return nil
		}
		ls := &api.LabelSelector{}
		if rapid.Bool().Draw(t, "hasMatchLabels") {
			kg := rapid.SampledFrom([]string{"a", "b", "app", "x.io/tier"})
			vg := genGoodValue()
			if rapid.IntRange(0, 9).Draw(t, "badMatchLabels") == 0 {
				kg, vg = genLabelKey(), genLabelValue()
			}
			ls.MatchLabels = rapid.MapOfN(kg, vg, 0, 3).Draw(t, "matchLabels")
		}
		n := rapid.IntRange(0, 3).Draw(t, "numExprs")
		for range n {
			kg := rapid.SampledFrom([]string{"a", "b", "app", "x.io/tier"})
			if rapid.IntRange(0, 9).Draw(t, "badKey") == 0 {
				kg = genLabelKey()
			}
			op := genLabelOp().Draw(t, "op")
			ls.MatchExpressions = append(ls.MatchExpressions, api.LabelSelectorRequirement{
				Key:      kg.Draw(t, "key"),
				Operator: op,
				Values:   genValues(t, op),
			})
		}
		return ls
	})
}

func toMetaLabelSelector(ls *api.LabelSelector) *metav1.LabelSelector {
	if ls == nil {
		return nil
	}
	out := &metav1.LabelSelector{MatchLabels: ls.MatchLabels}
	for _, e := range ls.MatchExpressions {
		out.MatchExpressions = append(out.MatchExpressions, metav1.LabelSelectorRequirement{
			Key:      e.Key,
			Operator: metav1.LabelSelectorOperator(e.Operator),
			Values:   e.Values,
		})
	}
	return out
}

// TestCompileAgreesWithLabelSelectorAsSelector: selector.Compile errors iff
// metav1.LabelSelectorAsSelector does, and when both compile they match the
// same label sets. A nil selector matches nothing in both.
func TestCompileAgreesWithLabelSelectorAsSelector(t *testing.T) {
	var c counter
	rapid.Check(t, func(t *rapid.T) {
		ls := genLabelSelector().Draw(t, "selector")
		sets := rapid.SliceOfN(genLabelSet(), 1, 4).Draw(t, "labelSets")

		got, gotErr := selector.Compile(ls)
		want, wantErr := metav1.LabelSelectorAsSelector(toMetaLabelSelector(ls))
		if (gotErr != nil) != (wantErr != nil) {
			t.Fatalf("compile error disagreement for %+v:\ndaemonplan: %v\nupstream:   %v", ls, gotErr, wantErr)
		}
		c.cases.Add(1)
		if gotErr != nil {
			c.b.Add(1)
			return
		}
		c.a.Add(1)
		for _, set := range sets {
			g, w := got.Matches(set), want.Matches(labels.Set(set))
			if g != w {
				t.Fatalf("match disagreement for selector %+v (daemonplan %q, upstream %q) on %v: daemonplan %v, upstream %v",
					ls, got.String(), want.String(), set, g, w)
			}
		}
	})
	c.report(t, "compiled", "rejected")
}

// renderRequirement writes a generated requirement in the string syntax,
// whatever its validity, so that Parse sees bad keys, bad values and odd
// operators too.
func renderRequirement(t *rapid.T, e api.LabelSelectorRequirement) string {
	switch e.Operator {
	case api.SelectorOpIn, api.SelectorOpNotIn:
		op := " in "
		if e.Operator == api.SelectorOpNotIn {
			op = " notin "
		}
		return e.Key + op + "(" + strings.Join(e.Values, ",") + ")"
	case api.SelectorOpExists:
		return e.Key
	case api.SelectorOpDoesNotExist:
		return "!" + e.Key
	}
	v := ""
	if len(e.Values) > 0 {
		v = e.Values[0]
	}
	op := rapid.SampledFrom([]string{"=", "==", "!=", ">", "<"}).Draw(t, "stringOp")
	if op == ">" || op == "<" {
		v = rapid.SampledFrom([]string{"1", "10", "-1", "x", ""}).Draw(t, "intValue")
	}
	return e.Key + op + v
}

func genSelectorString() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		ls := genLabelSelector().Draw(t, "selector")
		if ls == nil {
			return ""
		}
		if rapid.Bool().Draw(t, "fromCompiled") {
			if s, err := selector.Compile(ls); err == nil {
				return s.String()
			}
		}
		var parts []string
		for k, v := range ls.MatchLabels {
			parts = append(parts, k+"="+v)
		}
		for _, e := range ls.MatchExpressions {
			parts = append(parts, renderRequirement(t, e))
		}
		sep := rapid.SampledFrom([]string{",", ", ", " ,"}).Draw(t, "sep")
		return strings.Join(parts, sep)
	})
}

// TestParseAgreesWithLabelsParse: selector.Parse accepts exactly what
// labels.Parse accepts, and the accepted selectors match the same sets.
func TestParseAgreesWithLabelsParse(t *testing.T) {
	var c counter
	rapid.Check(t, func(t *rapid.T) {
		s := genSelectorString().Draw(t, "string")
		sets := rapid.SliceOfN(genLabelSet(), 1, 4).Draw(t, "labelSets")

		got, gotErr := selector.Parse(s)
		want, wantErr := labels.Parse(s)
		if gotErr != nil && wantErr == nil && strings.Contains(s, ",,") {
			// Since apimachinery v0.35, labels.Parse takes two commas in
			// a row inside a set as an empty value ("a in (,,)"), which
			// v0.34 refused; selector.Parse still parses as v0.34 did.
			// Not compared until selector follows the newer parse (see
			// docs/kubernetes-versions.md).
			return
		}
		if (gotErr != nil) != (wantErr != nil) {
			t.Fatalf("parse acceptance disagreement for %q:\ndaemonplan: %v\nupstream:   %v", s, gotErr, wantErr)
		}
		c.cases.Add(1)
		if gotErr != nil {
			c.b.Add(1)
			return
		}
		c.a.Add(1)
		for _, set := range sets {
			g, w := got.Matches(set), want.Matches(labels.Set(set))
			if g != w {
				t.Fatalf("match disagreement for %q on %v: daemonplan %v, upstream %v", s, set, g, w)
			}
		}
	})
	c.report(t, "accepted", "rejected")
}
