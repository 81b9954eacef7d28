package selector_test

import (
	"fmt"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/selector"
)

func ExampleCompile() {
	s, err := selector.Compile(&api.LabelSelector{
		MatchLabels: map[string]string{"app": "fluent-bit"},
		MatchExpressions: []api.LabelSelectorRequirement{
			{Key: "env", Operator: api.SelectorOpIn, Values: []string{"staging", "prod"}},
		},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(s)
	fmt.Println(s.Matches(map[string]string{"app": "fluent-bit", "env": "prod", "tier": "logging"}))
	fmt.Println(s.Matches(map[string]string{"app": "fluent-bit"}))

	nothing, _ := selector.Compile(nil)
	everything, _ := selector.Compile(&api.LabelSelector{})
	fmt.Println(nothing.MatchesNothing(), everything.Empty())
	// Output:
	// app=fluent-bit,env in (prod,staging)
	// true
	// false
	// true true
}

func ExampleCompile_errors() {
	_, err := selector.Compile(&api.LabelSelector{
		MatchExpressions: []api.LabelSelectorRequirement{
			{Key: "env", Operator: api.SelectorOpIn},
			{Key: "gpu", Operator: api.SelectorOpExists, Values: []string{"yes"}},
		},
	})
	fmt.Println(err)
	// Output:
	// [matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn', matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist']
}

func ExampleParse() {
	s, err := selector.Parse("tier != db, app in (web, api), !canary")
	if err != nil {
		panic(err)
	}
	fmt.Println(s)
	fmt.Println(s.Matches(map[string]string{"app": "web"}))
	for _, r := range s.Requirements() {
		fmt.Printf("%s %s %q\n", r.Key, r.Operator, r.Values)
	}

	_, err = selector.Parse("app in web")
	fmt.Println(err)
	// Output:
	// app in (api,web),!canary,tier!=db
	// true
	// app In ["api" "web"]
	// canary DoesNotExist []
	// tier != ["db"]
	// selector "app in web": offset 7: found "web", expected "("
}

func ExampleCompileNode() {
	m := selector.CompileNode(
		map[string]string{"kubernetes.io/os": "linux"},
		&api.NodeSelector{Terms: []api.NodeSelectorTerm{
			// Malformed (Gt needs an integer): matches nothing, the other
			// term still counts.
			{MatchExpressions: []api.NodeSelectorRequirement{
				{Key: "kernel", Operator: api.SelectorOpGt, Values: []string{"five"}},
			}},
			{MatchFields: []api.NodeSelectorRequirement{
				{Key: api.NodeNameField, Operator: api.SelectorOpIn, Values: []string{"node-a"}},
			}},
		}},
	)
	linux := map[string]string{"kubernetes.io/os": "linux"}
	for _, node := range []struct {
		name   string
		labels map[string]string
	}{
		{"node-a", linux},
		{"node-b", linux},
		{"node-a", map[string]string{"kubernetes.io/os": "windows"}},
	} {
		ok, why := m.Match(node.name, node.labels)
		fmt.Printf("%s %v: %v %q\n", node.name, node.labels, ok, why.String())
	}
	fmt.Println(m.ParseErrors())
	// Output:
	// node-a map[kubernetes.io/os:linux]: true ""
	// node-b map[kubernetes.io/os:linux]: false "no required node affinity term matched"
	// node-a map[kubernetes.io/os:windows]: false "node selector key \"kubernetes.io/os\" not matched"
	// nodeSelectorTerms[0].matchExpressions[0].values[0]: Invalid value: "five": for 'Gt', 'Lt' operators, the value must be an integer
}
