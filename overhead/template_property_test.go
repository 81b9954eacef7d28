package overhead_test

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/overhead"
	"github.com/daemonplan/daemonplan/selector"
)

// The finite world the enumeration property lives in. Requirements of
// templates and DaemonSets draw their values from pool (bounds from
// bounds); a node's label on a key is missing or one of universe, which
// holds a second spelling of every integer class the bounds make ("01"
// for 1, "00" for 0) and a non-integer no requirement names ("zz"), so
// that every class of states the exact path reasons about has a node here.
var (
	propKeys = []string{"k0", "k1", "k2"}
	pool     = []string{"a", "b", "1", "2", "3"}
	bounds   = []string{"1", "2", "3"}
	universe = []string{"a", "b", "1", "2", "3", "0", "00", "01", "02", "03", "4", "zz"}
	ops      = []api.SelectorOperator{api.SelectorOpIn, api.SelectorOpNotIn, api.SelectorOpExists, api.SelectorOpDoesNotExist, api.SelectorOpGt, api.SelectorOpLt}
	// propTaints cover every default daemon toleration, every effect and a
	// custom key with values.
	propTaints = []api.Taint{
		{Key: api.TaintNodeNotReady, Effect: api.TaintEffectNoExecute},
		{Key: api.TaintNodeUnreachable, Effect: api.TaintEffectNoExecute},
		{Key: api.TaintNodeDiskPressure, Effect: api.TaintEffectNoSchedule},
		{Key: api.TaintNodeMemoryPressure, Effect: api.TaintEffectNoSchedule},
		{Key: api.TaintNodePIDPressure, Effect: api.TaintEffectNoSchedule},
		{Key: api.TaintNodeUnschedulable, Effect: api.TaintEffectNoSchedule},
		{Key: api.TaintNodeNetworkUnavailable, Effect: api.TaintEffectNoSchedule},
		{Key: "dedicated", Value: "gpu", Effect: api.TaintEffectNoSchedule},
		{Key: "dedicated", Value: "infra", Effect: api.TaintEffectNoExecute},
		{Key: "spot", Effect: api.TaintEffectPreferNoSchedule},
		{Key: "startup", Effect: api.TaintEffectNoSchedule},
		{Key: "startup", Effect: api.TaintEffectNoExecute},
	}
	propTolerations = []api.Toleration{
		{Operator: api.TolerationOpExists},
		{Key: "dedicated", Operator: api.TolerationOpExists},
		{Key: "dedicated", Operator: api.TolerationOpEqual, Value: "gpu", Effect: api.TaintEffectNoSchedule},
		{Key: "startup", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
		{Key: "startup", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute},
		{Key: api.TaintNodeNetworkUnavailable, Operator: api.TolerationOpExists},
		{Key: "spot", Operator: api.TolerationOpExists, Effect: api.TaintEffectPreferNoSchedule},
	}
)

func drawRequirement(t *rapid.T, label string) selector.Requirement {
	r := selector.Requirement{
		Key:      rapid.SampledFrom(propKeys).Draw(t, label+".key"),
		Operator: rapid.SampledFrom(ops).Draw(t, label+".op"),
	}
	switch r.Operator {
	case api.SelectorOpIn, api.SelectorOpNotIn:
		r.Values = rapid.SliceOfNDistinct(rapid.SampledFrom(pool), 1, 3, rapid.ID[string]).Draw(t, label+".values")
	case api.SelectorOpGt, api.SelectorOpLt:
		r.Values = []string{rapid.SampledFrom(bounds).Draw(t, label+".bound")}
	}
	return r
}

func drawTemplate(t *rapid.T) overhead.NodeTemplate {
	tpl := overhead.NodeTemplate{
		Requirements:  rapid.SliceOfN(rapid.Custom(func(t *rapid.T) selector.Requirement { return drawRequirement(t, "req") }), 0, 4).Draw(t, "requirements"),
		Taints:        rapid.SliceOfNDistinct(rapid.SampledFrom(propTaints), 0, 3, func(x api.Taint) string { return x.String() }).Draw(t, "taints"),
		StartupTaints: rapid.SliceOfNDistinct(rapid.SampledFrom(propTaints), 0, 2, func(x api.Taint) string { return x.String() }).Draw(t, "startupTaints"),
	}
	if rapid.IntRange(0, 3).Draw(t, "hasLabel") == 0 {
		tpl.Labels = map[string]string{rapid.SampledFrom(propKeys).Draw(t, "labelKey"): rapid.SampledFrom(pool).Draw(t, "labelValue")}
	}
	if rapid.IntRange(0, 5).Draw(t, "named") == 0 {
		tpl.Name = "n1"
	}
	return tpl
}

func drawDaemonSet(t *rapid.T, i int) *api.DaemonSet {
	ds := &api.DaemonSet{Namespace: "ns", Name: fmt.Sprintf("ds-%d", i), UID: fmt.Sprintf("uid-%d", i)}
	tt := &ds.Template
	tt.NodeSelector = rapid.MapOfN(rapid.SampledFrom(propKeys), rapid.SampledFrom(pool), 0, 2).Draw(t, "nodeSelector")
	if rapid.Bool().Draw(t, "affinity") {
		terms := rapid.IntRange(0, 3).Draw(t, "terms")
		aff := &api.NodeSelector{}
		for j := range terms {
			var term api.NodeSelectorTerm
			for range rapid.IntRange(0, 3).Draw(t, "exprs") {
				r := drawRequirement(t, "expr")
				e := api.NodeSelectorRequirement{Key: r.Key, Operator: r.Operator, Values: r.Values}
				if rapid.IntRange(0, 15).Draw(t, "malformed") == 0 {
					// Malformed: In and NotIn need values, the others take
					// none or one integer.
					e.Values = []string{"x"}
					if e.Operator == api.SelectorOpIn || e.Operator == api.SelectorOpNotIn {
						e.Values = nil
					}
				}
				term.MatchExpressions = append(term.MatchExpressions, e)
			}
			if rapid.IntRange(0, 3).Draw(t, "hasField") == 0 {
				term.MatchFields = []api.NodeSelectorRequirement{{
					Key:      rapid.SampledFrom([]string{api.NodeNameField, api.NodeNameField, "spec.unschedulable"}).Draw(t, "fieldKey"),
					Operator: rapid.SampledFrom([]api.SelectorOperator{api.SelectorOpIn, api.SelectorOpNotIn}).Draw(t, "fieldOp"),
					Values:   []string{rapid.SampledFrom([]string{"n1", "n2", ""}).Draw(t, "fieldValue")},
				}}
			}
			_ = j
			aff.Terms = append(aff.Terms, term)
		}
		tt.RequiredNodeAffinity = aff
	}
	if rapid.IntRange(0, 7).Draw(t, "hasNodeName") == 0 {
		tt.NodeName = rapid.SampledFrom([]string{"n1", "n2"}).Draw(t, "nodeName")
	}
	tt.Tolerations = rapid.SliceOfN(rapid.SampledFrom(propTolerations), 0, 2).Draw(t, "tolerations")
	tt.HostNetwork = rapid.Bool().Draw(t, "hostNetwork")
	return ds
}

// templateNodes lists the label maps of universe that tpl allows.
func templateNodes(tpl *overhead.NodeTemplate) []map[string]string {
	var out []map[string]string
	states := append([]string{""}, universe...) // "" stands for missing
	idx := make([]int, len(propKeys))
	for {
		labels := map[string]string{}
		for k, key := range propKeys {
			if v := states[idx[k]]; idx[k] > 0 {
				labels[key] = v
			}
		}
		ok := true
		for _, r := range tpl.Requirements {
			ok = ok && r.Matches(labels)
		}
		for k, v := range tpl.Labels {
			have, set := labels[k]
			ok = ok && set && have == v
		}
		if ok {
			out = append(out, labels)
		}
		k := 0
		for ; k < len(idx); k++ {
			idx[k]++
			if idx[k] < len(states) {
				break
			}
			idx[k] = 0
		}
		if k == len(idx) {
			return out
		}
	}
}

// differInOnly reports that a and b differ in key alone.
func differInOnly(a, b map[string]string, key string) bool {
	for _, k := range propKeys {
		va, oka := a[k]
		vb, okb := b[k]
		same := oka == okb && va == vb
		if (k == key) == same {
			return false
		}
	}
	return true
}

// TestTemplateEnumeration: for generated templates and DaemonSets, the
// template answer agrees with Query on every node the template can
// produce, in a finite universe that holds every class of label states:
// Every, None and Depends; Where names exactly the nodes where the pod
// lands; Keys are exactly the labels that decide; StartupTaint is nil
// exactly when the pod also lands with the startup taints on. Each run
// also answers through the exact path alone and wants the same answers.
// Two templates a check: 200 by default, thousands with -rapid.checks
// (docs/overhead.md gives the long run).
func TestTemplateEnumeration(t *testing.T) {
	prop := func(t *rapid.T) {
		n := rapid.IntRange(1, 4).Draw(t, "daemonSets")
		dss := make([]*api.DaemonSet, n)
		for i := range dss {
			dss[i] = drawDaemonSet(t, i)
		}
		set := overhead.Compile(dss, overhead.Options{})
		// reused answers every template of the check in turn: reusing a
		// result must change no answer (nor the Set, which would show on
		// the next template).
		var reused overhead.TemplateResult
		for range 2 {
			tpl := drawTemplate(t)
			ct, err := overhead.CompileTemplate(&tpl)
			if err != nil {
				t.Fatalf("CompileTemplate: %v", err)
			}
			var fast, exact overhead.TemplateResult
			if err := set.QueryTemplate(ct, &fast); err != nil {
				t.Fatalf("QueryTemplate: %v", err)
			}
			undo := overhead.SetForceExact(true)
			err = set.QueryTemplate(ct, &exact)
			undo()
			if err != nil {
				t.Fatalf("QueryTemplate, exact path: %v", err)
			}
			checkTemplate(t, set, &tpl, ct, &fast, &exact)
			if err := set.QueryTemplate(ct, &reused); err != nil {
				t.Fatalf("QueryTemplate, reused result: %v", err)
			}
			if got, want := fmt.Sprint(reused.Answers), fmt.Sprint(fast.Answers); got != want {
				t.Fatalf("reused result %s, fresh %s", got, want)
			}
		}
	}
	rapid.Check(t, prop)
}

func checkTemplate(t *rapid.T, set *overhead.Catalog, tpl *overhead.NodeTemplate, ct *overhead.CompiledTemplate, results ...*overhead.TemplateResult) {
	nodes := templateNodes(tpl)
	name := tpl.Name
	if name == "" {
		name = "fresh-node" // a name no DaemonSet writes
	}
	if _, empty := ct.NoNode(); empty != (len(nodes) == 0) {
		t.Fatalf("NoNode = %v, but the universe holds %d nodes of the template", empty, len(nodes))
	}
	lands := make([][]bool, set.Len())
	startupLands := make([][]bool, set.Len())
	var r, rs overhead.NodeResult
	for _, labels := range nodes {
		node := api.Node{Name: name, Labels: labels, Taints: tpl.Taints}
		set.Query(&node, &r)
		startup := api.Node{Name: name, Labels: labels, Taints: append(slices.Clip(tpl.Taints), tpl.StartupTaints...)}
		set.Query(&startup, &rs)
		for i := range set.Len() {
			lands[i] = append(lands[i], r.Lands(i))
			startupLands[i] = append(startupLands[i], rs.Lands(i))
		}
	}
	for _, res := range results {
		checkAnswers(t, set, nodes, lands, startupLands, res)
	}
}

func checkAnswers(t *rapid.T, set *overhead.Catalog, nodes []map[string]string, lands, startupLands [][]bool, res *overhead.TemplateResult) {
	for ni, labels := range nodes {
		for i := range set.Len() {
			landsHere, rsLands := lands[i][ni], startupLands[i][ni]
			a := &res.Answers[i]
			if landsHere && rsLands != (a.StartupTaint == nil) {
				t.Fatalf("%s on %v: lands with startup taints %v, StartupTaint %v", set.Daemon(i).Name, labels, rsLands, a.StartupTaint)
			}
			if a.Answer == overhead.Depends {
				in := false
				for _, w := range a.Where {
					all := true
					for _, req := range w {
						all = all && req.Matches(labels)
					}
					in = in || all
				}
				if in != landsHere {
					t.Fatalf("%s on node %d %v: lands %v, Where %v says %v", set.Daemon(i).Name, ni, labels, landsHere, a.Where, in)
				}
			}
		}
	}
	for i := range set.Len() {
		a := &res.Answers[i]
		want := overhead.None
		switch {
		case len(nodes) > 0 && !slices.Contains(lands[i], false):
			want = overhead.Every
		case slices.Contains(lands[i], true):
			want = overhead.Depends
		}
		if a.Answer != want {
			t.Fatalf("%s: answer %v (%v, where %v), want %v by enumerating %d nodes", set.Daemon(i).Name, a.Answer, a.Reason, a.Where, want, len(nodes))
		}
		if want != overhead.Depends {
			if a.Keys != nil || a.Where != nil {
				t.Fatalf("%s: %v with Keys %v Where %v", set.Daemon(i).Name, a.Answer, a.Keys, a.Where)
			}
			continue
		}
		var keys []string
		for _, key := range propKeys {
		pairs:
			for x := range nodes {
				for y := range nodes {
					if lands[i][x] != lands[i][y] && differInOnly(nodes[x], nodes[y], key) {
						keys = append(keys, key)
						break pairs
					}
				}
			}
		}
		if !slices.Equal(a.Keys, keys) {
			t.Fatalf("%s: Keys %v, want %v (where %v)", set.Daemon(i).Name, a.Keys, keys, a.Where)
		}
	}
}
