package daemonplan_test

import (
	"fmt"
	"time"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/selector"
	"github.com/daemonplan/daemonplan/taints"
)

// The README's program: a DaemonSet on two nodes, one of them tainted.
func ExampleSync() {
	ds := &api.DaemonSet{Namespace: "kube-system", Name: "agent", UID: "u1",
		Selector: &selector.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
		Template: api.PodTemplate{Labels: map[string]string{"app": "agent"}}}
	nodes := []api.Node{{Name: "a"}, {Name: "b", Taints: []taints.Taint{{Key: "gpu", Effect: taints.NoSchedule}}}}
	now := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	plan, err := daemonplan.Sync(daemonplan.Input{DaemonSet: ds, Nodes: nodes, Now: now}, daemonplan.Options{})
	if err != nil {
		panic(err)
	}
	for _, c := range plan.Create {
		fmt.Println("create on", c.Node, "labels", len(c.Labels))
	}
	for _, n := range plan.Nodes {
		fmt.Println(n.Node, n.Reason, n.Message())
	}
	fmt.Println("new revisions:", len(plan.Revisions.Create))
	fmt.Print(plan.Rollout.Message)
	// Output:
	// create on a labels 2
	// a Eligible node should run the daemon pod
	// b UntoleratedNoSchedule untolerated taint gpu:NoSchedule: no new pod, existing pods stay
	// new revisions: 1
	// Waiting for daemon set "agent" rollout to finish: 0 out of 1 new pods have been updated...
}
