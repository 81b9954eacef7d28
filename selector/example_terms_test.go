package selector_test

import (
	"fmt"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/selector"
)

// Terms gives a pod's node constraints as alternatives: the nodeSelector
// joins every term of the required node affinity, and a malformed term
// (Gt with a word) is left out, as it matches no node.
func ExampleNodeMatcher_Terms() {
	m := selector.CompileNode(map[string]string{"kubernetes.io/os": "linux"}, &api.NodeSelector{Terms: []api.NodeSelectorTerm{
		{MatchExpressions: []api.NodeSelectorRequirement{{Key: "zone", Operator: api.SelectorOpIn, Values: []string{"b", "a"}}}},
		{MatchExpressions: []api.NodeSelectorRequirement{{Key: "cpus", Operator: api.SelectorOpGt, Values: []string{"many"}}}},
		{MatchFields: []api.NodeSelectorRequirement{{Key: api.NodeNameField, Operator: api.SelectorOpNotIn, Values: []string{"node-1"}}}},
	}})
	for _, t := range m.Terms() {
		fmt.Println(t.Labels, t.Fields)
	}
	// Output:
	// [kubernetes.io/os in (linux) zone in (a,b)] []
	// [kubernetes.io/os in (linux)] [metadata.name notin (node-1)]
}
