package overhead_test

import (
	"fmt"
	"time"

	"github.com/daemonplan/daemonplan/admission"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/overhead"
	"github.com/daemonplan/daemonplan/resource"
)

// A node agent at system-node-critical priority, admitted, on a full node:
// the scheduler preempts the least important pods there until it fits,
// reprieving the one a PodDisruptionBudget protects.
func ExampleCatalog_Schedule() {
	rules, err := admission.Compile(admission.ClusterObjects{})
	if err != nil {
		fmt.Println(err)
		return
	}
	ds := &api.DaemonSet{Namespace: "kube-system", Name: "csi-node", UID: "csi", Template: api.PodTemplate{
		PriorityClassName: admission.SystemNodeCritical,
		Containers: []api.Container{{Name: "driver", Resources: api.Resources{
			Requests: resource.List{"cpu": resource.MustParse("500m"), "memory": resource.MustParse("256Mi")},
		}}},
	}}
	s := overhead.Compile([]*api.DaemonSet{ds}, overhead.Options{Admission: rules})
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	use := func(name string, prio int32, cpu string, labels map[string]string) overhead.PodUsage {
		return overhead.PodUsage{Namespace: "shop", Name: name, Priority: prio, Labels: labels, StartTime: start,
			Requests: resource.List{"cpu": resource.MustParse(cpu), "memory": resource.MustParse("512Mi")}}
	}
	st := overhead.NodeState{
		Allocatable: resource.List{"cpu": resource.MustParse("2"), "memory": resource.MustParse("4Gi"), "pods": resource.MustParse("110")},
		Pods: []overhead.PodUsage{
			use("checkout", 1000, "700m", map[string]string{"app": "checkout"}),
			use("cache", 0, "400m", map[string]string{"app": "cache"}),
			use("report", 0, "600m", nil),
		},
		Budgets: []overhead.DisruptionBudget{{Namespace: "shop", Name: "cache", Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "cache"}}}},
	}
	sch := s.Schedule(0, &st)
	fmt.Println(sch.Outcome, "insufficient:", sch.Fit.Insufficient)
	for _, k := range sch.Victims {
		fmt.Println("preempts", st.Pods[k].Namespace+"/"+st.Pods[k].Name)
	}
	fmt.Println("PDB violations:", sch.PDBViolations)

	ds.Template.PreemptionPolicy = api.PreemptNever
	ds.Template.PriorityClassName = ""
	s = overhead.Compile([]*api.DaemonSet{ds}, overhead.Options{})
	sch = s.Schedule(0, &st)
	fmt.Println(sch.Outcome, sch.Reason)
	// Output:
	// Preempts insufficient: [cpu]
	// preempts shop/report
	// PDB violations: 0
	// Pending PreemptionNever
}

// A rolling update with maxSurge: the new pod of a node agent is created
// while the old one still runs. Schedule leaves the old pod out (F6), as
// for a node that has none yet; ScheduleBeside counts it, and the new pod
// of equal priority stays Pending until the old one is gone.
func ExampleCatalog_ScheduleBeside() {
	cpu := func(q string) resource.List { return resource.List{"cpu": resource.MustParse(q)} }
	ds := &api.DaemonSet{Namespace: "kube-system", Name: "agent", UID: "agent-uid", Template: api.PodTemplate{
		Containers: []api.Container{{Name: "agent", Resources: api.Resources{Requests: cpu("600m")}}},
	}}
	s := overhead.Compile([]*api.DaemonSet{ds}, overhead.Options{})
	st := overhead.NodeState{
		Allocatable: resource.List{"cpu": resource.MustParse("1"), "pods": resource.MustParse("110")},
		Pods: []overhead.PodUsage{
			{OwnerUID: "agent-uid", Namespace: "kube-system", Name: "agent-old", Requests: cpu("500m")},
			{Namespace: "shop", Name: "web", Requests: cpu("300m")},
		},
	}
	fmt.Println("alone:", s.Schedule(0, &st).Outcome)
	sch := s.ScheduleBeside(0, &st)
	fmt.Println("beside the old pod:", sch.Outcome, sch.Reason, sch.Fit.Insufficient)
	// Output:
	// alone: Fits
	// beside the old pod: Pending NoLowerPriority [cpu]
}
