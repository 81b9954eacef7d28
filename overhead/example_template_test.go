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
	s.QueryTemplate(ct, &r)
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
