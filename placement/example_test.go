package placement_test

import (
	"fmt"
	"time"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
)

func exampleDaemonSet() *api.DaemonSet {
	return &api.DaemonSet{
		Namespace: "kube-system",
		Name:      "log-agent",
		UID:       "uid-1",
		Selector:  &api.LabelSelector{MatchLabels: map[string]string{"app": "log-agent"}},
		Template: api.PodTemplate{
			Labels:       map[string]string{"app": "log-agent"},
			NodeSelector: map[string]string{"kubernetes.io/os": "linux"},
		},
		UpdateStrategy: api.UpdateStrategy{Type: api.OnDelete},
	}
}

func ExampleEligibility_Decide() {
	e := placement.NewEligibility(exampleDaemonSet(), placement.Options{})
	linux := map[string]string{"kubernetes.io/os": "linux"}
	nodes := []api.Node{
		{Name: "worker-1", Labels: linux},
		{Name: "worker-2", Labels: map[string]string{"kubernetes.io/os": "windows"}},
		{Name: "worker-3", Labels: linux, Taints: []api.Taint{{Key: "dedicated", Value: "db", Effect: api.TaintEffectNoSchedule}}},
		{Name: "worker-4", Labels: linux, Taints: []api.Taint{{Key: api.TaintNodeUnschedulable, Effect: api.TaintEffectNoSchedule}}},
	}
	for i := range nodes {
		d := e.Decide(&nodes[i])
		fmt.Printf("%s: run=%v continue=%v %v (%s)\n", nodes[i].Name, d.ShouldRun, d.ShouldContinueRunning, d.Reason, d.Message())
	}
	// Output:
	// worker-1: run=true continue=true Eligible (node should run the daemon pod)
	// worker-2: run=false continue=false NodeSelectorMismatch (node does not match nodeSelector key kubernetes.io/os)
	// worker-3: run=false continue=true UntoleratedNoSchedule (untolerated taint dedicated=db:NoSchedule: no new pod, existing pods stay)
	// worker-4: run=true continue=true Eligible (node should run the daemon pod)
}

func ExampleIndex_Manage() {
	ds := exampleDaemonSet()
	linux := map[string]string{"kubernetes.io/os": "linux"}
	nodes := []api.Node{{Name: "worker-1", Labels: linux}, {Name: "worker-2", Labels: linux}, {Name: "worker-3"}}
	created := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	pod := func(name, node string, age time.Duration, phase api.PodPhase) api.Pod {
		return api.Pod{
			Namespace: "kube-system", Name: name, Labels: map[string]string{"app": "log-agent"},
			Controller: &api.OwnerRef{Kind: "DaemonSet", Name: "log-agent", UID: "uid-1"},
			NodeName:   node, Phase: phase, Ready: phase == api.PodRunning, Created: created.Add(-age),
		}
	}
	pods := []api.Pod{
		pod("log-agent-a", "worker-2", time.Hour, api.PodRunning),
		pod("log-agent-b", "worker-2", time.Minute, api.PodRunning), // younger duplicate
		pod("log-agent-c", "worker-3", time.Hour, api.PodRunning),   // node no longer selected
	}

	c, err := placement.Compile(ds, placement.Options{})
	if err != nil {
		panic(err)
	}
	ix, err := c.Index(nodes, pods)
	if err != nil {
		panic(err)
	}
	now := created.Add(time.Hour)
	plan, err := ix.Manage(now, "5d4f8c", nil)
	if err != nil {
		panic(err)
	}
	for _, cr := range plan.Create {
		fmt.Printf("create on %s with hash %s\n", cr.Node, cr.Labels[api.LabelRevisionHash])
	}
	for _, d := range plan.Delete {
		fmt.Printf("delete %s on %s: %v\n", d.Pod, d.Node, d.Reason)
	}
	fmt.Println("keep", plan.Keep)
	s := ix.Status(now, "5d4f8c")
	fmt.Printf("desired=%d current=%d ready=%d misscheduled=%d\n", s.DesiredNumberScheduled, s.CurrentNumberScheduled, s.NumberReady, s.NumberMisscheduled)
	// Output:
	// create on worker-1 with hash 5d4f8c
	// delete log-agent-b on worker-2: Duplicate
	// delete log-agent-c on worker-3: NotEligible
	// keep [log-agent-a]
	// desired=2 current=1 ready=1 misscheduled=1
}

func ExampleSlowStartBatches() {
	for _, n := range []int{10, 100, 250} {
		fmt.Println(n, placement.SlowStartBatches(n))
	}
	// Output:
	// 10 [1 2 4 3]
	// 100 [1 2 4 8 16 32 37]
	// 250 [1 2 4 8 16 32 64 123]
}
