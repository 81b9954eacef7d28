package overhead

import (
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/selector"
)

// spaceUniverse holds a state of every class the requirements below tell
// apart: missing (""), the values they name, a second spelling of each
// integer class ("00", "01") and a value none names ("zz").
var spaceUniverse = []string{"", "a", "b", "1", "2", "3", "0", "00", "01", "02", "03", "4", "zz"}

func drawSpaceRequirement(t *rapid.T, label string) selector.Requirement {
	r := selector.Requirement{Key: "k", Operator: rapid.SampledFrom([]api.SelectorOperator{
		api.SelectorOpIn, api.SelectorOpNotIn, api.SelectorOpExists, api.SelectorOpDoesNotExist, api.SelectorOpGt, api.SelectorOpLt,
	}).Draw(t, label+".op")}
	switch r.Operator {
	case api.SelectorOpIn, api.SelectorOpNotIn:
		r.Values = rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"a", "b", "1", "2", "3"}), 1, 3, rapid.ID[string]).Draw(t, label+".values")
	case api.SelectorOpGt, api.SelectorOpLt:
		r.Values = []string{rapid.SampledFrom([]string{"1", "2", "3"}).Draw(t, label+".bound")}
	}
	return r
}

// TestDomainClassify: on one key, what a template's requirements allow
// (domain) and what one DaemonSet requirement does on it (classify, the
// fast path; reps, the exact path) agree with every state of the key;
// twenty DaemonSet requirements a template.
func TestDomainClassify(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tpl := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) selector.Requirement { return drawSpaceRequirement(t, "tpl") }), 0, 3).Draw(t, "template")
		d := newDomain(tpl)
		for range 20 {
			// A DaemonSet's values come sorted (selector.NodeTerm), the
			// template's as given.
			r := drawSpaceRequirement(t, "ds")
			slices.Sort(r.Values)
			checkClassify(t, tpl, d, r)
		}
	})
}

func checkClassify(t *rapid.T, tpl []selector.Requirement, d domain, r selector.Requirement) {
	{
		holds, fails, allowed := false, false, false
		for _, v := range spaceUniverse {
			labels := map[string]string{}
			if v != "" {
				labels["k"] = v
			}
			in := true
			for _, q := range tpl {
				in = in && q.Matches(labels)
			}
			if (v == "" && d.absent || v != "" && d.has(v)) != in {
				t.Fatalf("domain %+v: state %q allowed %v, want %v", d, v, !in, in)
			}
			if !in {
				continue
			}
			allowed = true
			if r.Matches(labels) {
				holds = true
			} else {
				fails = true
			}
		}
		if d.empty() == allowed {
			t.Fatalf("domain %+v: empty %v, want %v", d, d.empty(), !allowed)
		}
		want := pick(!holds, !fails)
		if got := d.classify(&r); got != want {
			t.Fatalf("domain %+v: classify %s = %d, want %d", d, RequirementString(r), got, want)
		}
		var rholds, rfails bool
		for _, p := range d.reps([]*selector.Requirement{&r}) {
			if p.satisfies(&r) {
				rholds = true
			} else {
				rfails = true
			}
		}
		if rholds != holds || rfails != fails {
			t.Fatalf("domain %+v: reps hold %v fail %v, want %v %v", d, rholds, rfails, holds, fails)
		}
	}
}
