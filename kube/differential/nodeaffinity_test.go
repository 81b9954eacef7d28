package differential

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/selector"
)

var (
	nodeOps     = []api.SelectorOperator{api.SelectorOpIn, api.SelectorOpNotIn, api.SelectorOpExists, api.SelectorOpDoesNotExist, api.SelectorOpGt, api.SelectorOpLt}
	nodeNames   = []string{"", "n1", "n2", "node-a"}
	intValues   = []string{"1", "5", "10", "-3", "0", "01", "+2", "x", "", "9223372036854775808"}
	nodeLabelVs = []string{"", "v", "w", "1", "5", "10", "-3", "x"}
)

func genNodeLabels() *rapid.Generator[map[string]string] {
	return rapid.MapOfN(rapid.SampledFrom([]string{"a", "b", "app", "x.io/tier"}), rapid.SampledFrom(nodeLabelVs), 0, 4)
}

func genNodeExpr(t *rapid.T) api.NodeSelectorRequirement {
	op := rapid.SampledFrom(nodeOps).Draw(t, "op")
	if rapid.IntRange(0, 19).Draw(t, "bogusOp") == 0 {
		op = rapid.SampledFrom([]api.SelectorOperator{"Bogus", selector.Equals, ""}).Draw(t, "op")
	}
	kg := rapid.SampledFrom([]string{"a", "b", "app", "x.io/tier"})
	if rapid.IntRange(0, 9).Draw(t, "badKey") == 0 {
		kg = genLabelKey()
	}
	e := api.NodeSelectorRequirement{Key: kg.Draw(t, "key"), Operator: op}
	switch op {
	case api.SelectorOpGt, api.SelectorOpLt:
		n := 1
		if rapid.IntRange(0, 9).Draw(t, "wrongCount") == 0 {
			n = rapid.IntRange(0, 2).Draw(t, "count")
		}
		e.Values = rapid.SliceOfN(rapid.SampledFrom(intValues), n, n).Draw(t, "values")
	default:
		e.Values = genValues(t, op)
		if rapid.IntRange(0, 4).Draw(t, "nodeValues") == 0 {
			e.Values = rapid.SliceOfN(rapid.SampledFrom(nodeLabelVs), 1, 3).Draw(t, "values")
		}
	}
	return e
}

func genNodeField(t *rapid.T) api.NodeSelectorRequirement {
	f := api.NodeSelectorRequirement{
		Key:      api.NodeNameField,
		Operator: rapid.SampledFrom([]api.SelectorOperator{api.SelectorOpIn, api.SelectorOpNotIn}).Draw(t, "fieldOp"),
	}
	if rapid.IntRange(0, 9).Draw(t, "bogusField") == 0 {
		f.Key = rapid.SampledFrom([]string{"metadata.namespace", "spec.unschedulable", "", "bogus"}).Draw(t, "fieldKey")
	}
	if rapid.IntRange(0, 14).Draw(t, "bogusFieldOp") == 0 {
		f.Operator = rapid.SampledFrom([]api.SelectorOperator{api.SelectorOpExists, api.SelectorOpGt, "Bogus", ""}).Draw(t, "fieldOp")
	}
	n := 1
	if rapid.IntRange(0, 9).Draw(t, "fieldCount") == 0 {
		n = rapid.IntRange(0, 2).Draw(t, "n")
	}
	f.Values = rapid.SliceOfN(rapid.SampledFrom(append([]string{"x", "-bad"}, nodeNames...)), n, n).Draw(t, "fieldValues")
	return f
}

func genRequired() *rapid.Generator[*api.NodeSelector] {
	return rapid.Custom(func(t *rapid.T) *api.NodeSelector {
		if rapid.IntRange(0, 4).Draw(t, "nilAffinity") == 0 {
			return nil
		}
		ns := &api.NodeSelector{}
		for range rapid.IntRange(0, 3).Draw(t, "numTerms") {
			var term api.NodeSelectorTerm
			for range rapid.IntRange(0, 2).Draw(t, "numExprs") {
				term.MatchExpressions = append(term.MatchExpressions, genNodeExpr(t))
			}
			for range rapid.IntRange(0, 1).Draw(t, "numFields") {
				term.MatchFields = append(term.MatchFields, genNodeField(t))
			}
			ns.Terms = append(ns.Terms, term)
		}
		return ns
	})
}

func toV1Requirements(rs []api.NodeSelectorRequirement) []v1.NodeSelectorRequirement {
	var out []v1.NodeSelectorRequirement
	for _, r := range rs {
		out = append(out, v1.NodeSelectorRequirement{
			Key:      r.Key,
			Operator: v1.NodeSelectorOperator(r.Operator),
			Values:   r.Values,
		})
	}
	return out
}

func toPod(nodeSelector map[string]string, required *api.NodeSelector) *v1.Pod {
	pod := &v1.Pod{Spec: v1.PodSpec{NodeSelector: nodeSelector}}
	if required == nil {
		return pod
	}
	ns := &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{}}
	for _, term := range required.Terms {
		ns.NodeSelectorTerms = append(ns.NodeSelectorTerms, v1.NodeSelectorTerm{
			MatchExpressions: toV1Requirements(term.MatchExpressions),
			MatchFields:      toV1Requirements(term.MatchFields),
		})
	}
	pod.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: ns}}
	return pod
}

// TestCompileNodeAgreesWithRequiredNodeAffinity: selector.CompileNode(...).Match
// gives the same answer as nodeaffinity.GetRequiredNodeAffinity(pod).Match,
// whose error is ignored as the DaemonSet controller ignores it.
func TestCompileNodeAgreesWithRequiredNodeAffinity(t *testing.T) {
	var c counter
	rapid.Check(t, func(t *rapid.T) {
		var nodeSelector map[string]string
		if rapid.Bool().Draw(t, "hasNodeSelector") {
			kg, vg := rapid.SampledFrom([]string{"a", "b", "app"}), rapid.SampledFrom(nodeLabelVs)
			if rapid.IntRange(0, 9).Draw(t, "badNodeSelector") == 0 {
				kg, vg = genLabelKey(), genLabelValue()
			}
			nodeSelector = rapid.MapOfN(kg, vg, 0, 2).Draw(t, "nodeSelector")
		}
		required := genRequired().Draw(t, "required")
		pod := toPod(nodeSelector, required)
		m := selector.CompileNode(nodeSelector, required)
		upstream := nodeaffinity.GetRequiredNodeAffinity(pod)

		for i := range rapid.IntRange(1, 4).Draw(t, "numNodes") {
			_ = i
			name := rapid.SampledFrom(nodeNames).Draw(t, "nodeName")
			lbls := genNodeLabels().Draw(t, "nodeLabels")
			node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbls}}
			got, _ := m.Match(name, lbls)
			want, _ := upstream.Match(node)
			if got != want {
				t.Fatalf("node affinity disagreement on node %q %v:\nnodeSelector %v\nrequired %+v\ndaemonplan %v (parse errors %v), upstream %v",
					name, lbls, nodeSelector, required, got, m.ParseErrors(), want)
			}
			c.cases.Add(1)
			if got {
				c.a.Add(1)
			} else {
				c.b.Add(1)
			}
		}
	})
	c.report(t, "match", "no match")
}
