package selector

import (
	"strconv"
	"strings"
	"testing"

	"github.com/daemonplan/daemonplan/api"
)

// FuzzParse: Parse never panics, and what it accepts renders canonically
// and parses back to an equal selector with the same rendering.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"", "a", "!a", "a=b", "a==b", "a!=b", "a in (x,y)", "a notin ()", "a>5", "a<007",
		"x in (foo,,baz),y,z notin ()", "in in (in,notin)", "a in (,)", "a=", "!a=b", "a===b",
		"a in ((x))", "a=b \x00c", "a=b\x00c", "example.com/k in (v1, v2) , !gpu",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := Parse(in)
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("Parse(%q) error %T, want *ParseError", in, err)
			}
			return
		}
		str := s.String()
		back, err := Parse(str)
		if err != nil {
			t.Fatalf("Parse(%q) accepted, but its String %q does not parse: %v", in, str, err)
		}
		if !back.Equal(s) || back.String() != str {
			t.Fatalf("Parse(%q) = %q, which parses back to %q", in, str, back.String())
		}
		s.Matches(map[string]string{"a": "5", "x": ""})
	})
}

// FuzzCompileNodeMatch: CompileNode and Match never panic on arbitrary
// terms, and a node matches the whole selector iff it matches the
// nodeSelector and at least one term compiled on its own (terms are ORed;
// malformed ones are ignored, not contagious).
func FuzzCompileNodeMatch(f *testing.F) {
	f.Add("a", "In", "x,y", "b", "Gt", "5", "In", "n1", "n1", "a", "x", uint8(3), uint8(3))
	f.Add("a", "Exists", "", "bad key", "NotIn", "", "Exists", "n1,n2", "", "b", "7", uint8(255), uint8(2))
	f.Add("", "", "", "", "", "", "", "", "", "", "", uint8(0), uint8(1))
	f.Fuzz(func(t *testing.T, k1, op1, v1, k2, op2, v2, fop, fv, nodeName, lk, lv string, shape, nterms uint8) {
		split := func(s string) []string {
			if s == "" {
				return nil
			}
			return strings.Split(s, ",")
		}
		r1 := api.NodeSelectorRequirement{Key: k1, Operator: api.SelectorOperator(op1), Values: split(v1)}
		r2 := api.NodeSelectorRequirement{Key: k2, Operator: api.SelectorOperator(op2), Values: split(v2)}
		rf := api.NodeSelectorRequirement{Key: api.NodeNameField, Operator: api.SelectorOperator(fop), Values: split(fv)}
		// shape's bits pick which requirements each of three terms holds.
		all := []api.NodeSelectorTerm{
			{MatchExpressions: pick(shape&1 != 0, r1), MatchFields: pick(shape&2 != 0, rf)},
			{MatchExpressions: append(pick(shape&4 != 0, r1), pick(shape&8 != 0, r2)...)},
			{MatchExpressions: pick(shape&16 != 0, r2), MatchFields: pick(shape&32 != 0, rf)},
		}
		ts := all[:int(nterms)%4]
		var nodeSel map[string]string
		if shape&64 != 0 {
			nodeSel = map[string]string{lk: lv}
		}
		node := map[string]string{lk: lv, k1: v1, k2: v2}

		m := CompileNode(nodeSel, &api.NodeSelector{Terms: ts})
		got, mm := m.Match(nodeName, node)
		want := false
		nodeSelOK := nodeSel == nil || node[lk] == lv
		for _, term := range ts {
			one := CompileNode(nil, &api.NodeSelector{Terms: []api.NodeSelectorTerm{term}})
			if ok, _ := one.Match(nodeName, node); ok {
				want = nodeSelOK
			}
		}
		if got != want {
			t.Fatalf("Match = %v (%+v), per-term OR = %v; terms %+v", got, mm, want, ts)
		}
		if got != (mm == Mismatch{}) {
			t.Fatalf("Match = %v with mismatch %+v", got, mm)
		}
		_ = api.ValidateNodeSelector(&api.NodeSelector{Terms: ts})
	})
}

func pick(ok bool, r api.NodeSelectorRequirement) []api.NodeSelectorRequirement {
	if !ok {
		return nil
	}
	return []api.NodeSelectorRequirement{r}
}

func refParseInt(s string) *int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return nil
	}
	return &n
}

// FuzzLabelValue: the integer parser of Gt and Lt agrees with strconv on
// any label value (see TestParseInt64 for the fixed cases).
func FuzzLabelValue(f *testing.F) {
	for _, s := range []string{"", "a", "-a", "a-", "a_b.c", strings.Repeat("v", 64), "0", "-1", "+1", "9223372036854775808"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		a, ok := parseInt64(v)
		if b := refParseInt(v); ok != (b != nil) || ok && a != *b {
			t.Fatalf("parseInt64(%q) = %d, %v; strconv disagrees", v, a, ok)
		}
	})
}
