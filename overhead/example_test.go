package overhead_test

import (
	"fmt"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/overhead"
	"github.com/daemonplan/daemonplan/resource"
)

func exampleDaemonSets() []*api.DaemonSet {
	container := func(cpu, memory string) []api.Container {
		return []api.Container{{Name: "main", Resources: api.Resources{Requests: resource.List{
			"cpu": resource.MustParse(cpu), "memory": resource.MustParse(memory),
		}}}}
	}
	return []*api.DaemonSet{
		{Namespace: "kube-system", Name: "kube-proxy", UID: "p", Template: api.PodTemplate{
			Tolerations: []api.Toleration{{Operator: api.TolerationOpExists}},
			Containers:  container("100m", "64Mi"),
		}},
		{Namespace: "monitoring", Name: "node-exporter", UID: "e", Template: api.PodTemplate{
			Containers: container("50m", "32Mi"),
		}},
	}
}

// Compile once, then ask about a node that does not exist yet: a tainted
// infra node takes kube-proxy, which tolerates everything, but not the
// exporter.
func ExampleCompile() {
	s := overhead.Compile(exampleDaemonSets(), overhead.Options{})
	node := api.Node{Name: "infra-new", Taints: []api.Taint{{Key: "dedicated", Value: "infra", Effect: api.TaintEffectNoSchedule}}}
	rep := s.Report(&node, nil)
	for _, e := range rep.DaemonSets {
		fmt.Printf("%s/%s lands=%v %s %s\n", e.Namespace, e.Name, e.Lands, e.Decision.Reason, e.Requests)
	}
	fmt.Println("daemon overhead:", rep.Requests)
	// Output:
	// kube-system/kube-proxy lands=true Eligible cpu=100m,memory=64Mi
	// monitoring/node-exporter lands=false UntoleratedNoSchedule cpu=50m,memory=32Mi
	// daemon overhead: cpu=100m,memory=64Mi
}

// Query reuses one Result for many nodes without allocating.
func ExampleCatalog_Query() {
	s := overhead.Compile(exampleDaemonSets(), overhead.Options{})
	var r overhead.NodeResult
	for _, n := range []api.Node{{Name: "general"}, {Name: "gpu", Taints: []api.Taint{{Key: "nvidia.com/gpu", Effect: api.TaintEffectNoSchedule}}}} {
		s.Query(&n, &r)
		fmt.Println(n.Name, s.Requests(&r))
	}
	// Output:
	// general cpu=150m,memory=96Mi
	// gpu cpu=100m,memory=64Mi
}

// Fit judges each daemon pod against what the node can hold, beside the
// controller's decision: here the node's cpu is taken by a pod already
// there, so the exporter's pod would stay Pending.
func ExampleCatalog_Fit() {
	s := overhead.Compile(exampleDaemonSets(), overhead.Options{})
	st := overhead.NodeState{
		Allocatable: resource.List{"cpu": resource.MustParse("1"), "memory": resource.MustParse("2Gi"), "pods": resource.MustParse("110")},
		Pods:        []overhead.PodUsage{{Requests: resource.List{"cpu": resource.MustParse("920m")}}},
	}
	for i := range s.Len() {
		f := s.Fit(i, &st)
		fmt.Println(s.Daemon(i).Name, f.Fits, f.Insufficient)
	}
	// Output:
	// kube-proxy false [cpu]
	// node-exporter true []
}

// Report with a NodeState carries each pod's fit.
func ExampleCatalog_Report() {
	s := overhead.Compile(exampleDaemonSets(), overhead.Options{})
	st := &overhead.NodeState{Allocatable: resource.List{"cpu": resource.MustParse("4"), "memory": resource.MustParse("16Gi"), "pods": resource.MustParse("110")}}
	rep := s.Report(&api.Node{Name: "general"}, st)
	for _, e := range rep.DaemonSets {
		fmt.Println(e.Name, e.Lands, e.Fit.Fits)
	}
	fmt.Println(rep.Requests)
	fmt.Println("together:", rep.Together.Fits, "left:", rep.Together.Left)
	// Output:
	// kube-proxy true true
	// node-exporter true true
	// cpu=150m,memory=96Mi
	// together: true left: cpu=3850m,memory=16288Mi,pods=108
}
