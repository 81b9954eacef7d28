package overhead_test

import (
	"fmt"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/overhead"
	"github.com/daemonplan/daemonplan/resource"
	"github.com/daemonplan/daemonplan/selector"
)

func zoneDaemonSets() []*api.DaemonSet {
	dss := exampleDaemonSets()
	dss = append(dss, &api.DaemonSet{Namespace: "storage", Name: "csi-zone-a", UID: "z", Template: api.PodTemplate{
		RequiredNodeAffinity: &api.NodeSelector{Terms: []api.NodeSelectorTerm{{MatchExpressions: []api.NodeSelectorRequirement{
			{Key: "topology.kubernetes.io/zone", Operator: api.SelectorOpIn, Values: []string{"a"}},
		}}}},
		Containers: []api.Container{{Name: "csi", Resources: api.Resources{Requests: resource.List{"cpu": resource.MustParse("20m")}}}},
	}})
	return dss
}

// Ask about every node a pool may launch in zones a or b with a startup
// taint that only kube-proxy tolerates: kube-proxy and the exporter land
// everywhere, the CSI driver only in zone a; all but kube-proxy once the
// startup taint is gone.
func ExampleCompileTemplate() {
	s := overhead.Compile(zoneDaemonSets(), overhead.Options{})
	ct, err := overhead.CompileTemplate(&overhead.NodeTemplate{
		Requirements: []selector.Requirement{
			{Key: "topology.kubernetes.io/zone", Operator: api.SelectorOpIn, Values: []string{"a", "b"}},
		},
		StartupTaints: []api.Taint{{Key: "example.com/agent-not-ready", Effect: api.TaintEffectNoSchedule}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	var r overhead.TemplateResult
	if err := s.QueryTemplate(ct, &r); err != nil {
		fmt.Println(err) // a DaemonSet too costly to decide (overhead.MaxTemplateSteps)
		return
	}
	for i, a := range r.Answers {
		d := s.Daemon(i)
		fmt.Printf("%s/%s: %s", d.Namespace, d.Name, a.Answer)
		for _, w := range a.Where {
			for _, req := range w {
				fmt.Printf(" where %s", overhead.RequirementString(req))
			}
		}
		if a.StartupTaint != nil {
			fmt.Printf(" (created once %s is removed)", a.StartupTaint)
		}
		fmt.Println()
	}
	// Output:
	// kube-system/kube-proxy: Every
	// monitoring/node-exporter: Every (created once example.com/agent-not-ready:NoSchedule is removed)
	// storage/csi-zone-a: Depends where topology.kubernetes.io/zone In [a] (created once example.com/agent-not-ready:NoSchedule is removed)
}

// Plan a template over two instance types: the daemon pods' requests on
// each and what is left for workloads.
func ExampleCatalog_PlanTemplate() {
	s := overhead.Compile(zoneDaemonSets(), overhead.Options{})
	plan, err := s.PlanTemplate(&overhead.NodeTemplate{
		Requirements: []selector.Requirement{{Key: "topology.kubernetes.io/zone", Operator: api.SelectorOpIn, Values: []string{"a", "b"}}},
	}, []overhead.InstanceType{
		{Name: "small-a", Labels: map[string]string{"topology.kubernetes.io/zone": "a"},
			Allocatable: resource.List{"cpu": resource.MustParse("150m"), "memory": resource.MustParse("1Gi"), "pods": resource.MustParse("10")}},
		{Name: "small-b", Labels: map[string]string{"topology.kubernetes.io/zone": "b"},
			Allocatable: resource.List{"cpu": resource.MustParse("150m"), "memory": resource.MustParse("1Gi"), "pods": resource.MustParse("10")}},
		{Name: "small-c", Labels: map[string]string{"topology.kubernetes.io/zone": "c"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("every node:", plan.Overhead.Every, "at most:", plan.Overhead.AtMost)
	for _, it := range plan.InstanceTypes {
		if it.NoNode != "" {
			fmt.Printf("%s: no node (%s)\n", it.Name, it.NoNode)
			continue
		}
		fmt.Printf("%s: %d pods %s left %s fits=%v %v\n", it.Name, it.Overhead.Pods, it.Overhead.AtMost, it.Left, it.Fits, it.Insufficient)
	}
	// Output:
	// every node: cpu=150m,memory=96Mi at most: cpu=170m,memory=96Mi
	// small-a: 3 pods cpu=170m,memory=96Mi left cpu=-20m,memory=928Mi,pods=7 fits=false [cpu]
	// small-b: 2 pods cpu=150m,memory=96Mi left cpu=0,memory=928Mi,pods=8 fits=true []
	// small-c: no node (topology.kubernetes.io/zone)
}

// A DaemonSet whose 25 OR terms cover every node only together ("kN In
// [a]" for 24 keys, or all of them NotIn [a]) is Every, decided in a few
// hundred steps; one whose terms would take more than MaxTemplateSteps to
// decide is refused, with an error that names it, and left zero.
func ExampleCatalog_QueryTemplate() {
	term := func(exprs ...api.NodeSelectorRequirement) api.NodeSelectorTerm {
		return api.NodeSelectorTerm{MatchExpressions: exprs}
	}
	expr := func(key string, op api.SelectorOperator) api.NodeSelectorRequirement {
		return api.NodeSelectorRequirement{Key: key, Operator: op, Values: []string{"a"}}
	}
	coverAll, hard := &api.NodeSelector{}, &api.NodeSelector{}
	var allNotIn, allYNotIn []api.NodeSelectorRequirement
	for i := range 24 {
		k := fmt.Sprintf("k%02d", i)
		coverAll.Terms = append(coverAll.Terms, term(expr(k, api.SelectorOpIn)))
		allNotIn = append(allNotIn, expr(k, api.SelectorOpNotIn))
	}
	coverAll.Terms = append(coverAll.Terms, term(allNotIn...))
	for i := range 20 {
		x, y := fmt.Sprintf("z%02d", i), fmt.Sprintf("y%02d", i)
		hard.Terms = append(hard.Terms, term(expr(x, api.SelectorOpIn), expr(y, api.SelectorOpIn)),
			term(expr(x, api.SelectorOpNotIn), expr(y, api.SelectorOpIn)))
		allYNotIn = append(allYNotIn, expr(y, api.SelectorOpNotIn))
	}
	hard.Terms = append(hard.Terms, term(allYNotIn...))
	s := overhead.Compile([]*api.DaemonSet{
		{Namespace: "ns", Name: "cover-all", UID: "1", Template: api.PodTemplate{RequiredNodeAffinity: coverAll}},
		{Namespace: "ns", Name: "hard", UID: "2", Template: api.PodTemplate{RequiredNodeAffinity: hard}},
	}, overhead.Options{})
	ct, err := overhead.CompileTemplate(&overhead.NodeTemplate{})
	if err != nil {
		fmt.Println(err)
		return
	}
	var r overhead.TemplateResult
	err = s.QueryTemplate(ct, &r)
	for i, a := range r.Answers {
		fmt.Printf("%s: %v\n", s.Daemon(i).Name, a.Answer)
	}
	fmt.Println(err)
	// Output:
	// cover-all: Every
	// hard: Answer(0)
	// daemonSets[1].spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Forbidden: ns/hard: deciding on which of the template's nodes the pod lands takes more than 1048576 steps (overhead.MaxTemplateSteps); no answer
}
