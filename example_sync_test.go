package daemonplan_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
)

// The README's program: a DaemonSet on two nodes, one of them tainted.
func ExampleSync() {
	ds := &api.DaemonSet{Namespace: "kube-system", Name: "agent", UID: "u1",
		Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
		Template: api.PodTemplate{Labels: map[string]string{"app": "agent"}}}
	nodes := []api.Node{{Name: "a"}, {Name: "b", Taints: []api.Taint{{Key: "gpu", Effect: api.TaintEffectNoSchedule}}}}
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

// CheckInput refuses a snapshot that lists an object twice: planning it
// would delete the pod as a duplicate of itself. Sync refuses it too.
func ExampleCheckInput() {
	ds := &api.DaemonSet{Namespace: "ns", Name: "agent", UID: "u1",
		Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
		Template: api.PodTemplate{Labels: map[string]string{"app": "agent"}}}
	pod := api.Pod{Namespace: "ns", Name: "agent-x", UID: "p1", NodeName: "a", Labels: map[string]string{"app": "agent"},
		Controller: &api.OwnerRef{Kind: "DaemonSet", Name: "agent", UID: "u1"}, Phase: api.PodRunning, Ready: true}
	in := daemonplan.Input{DaemonSet: ds, Nodes: []api.Node{{Name: "a"}}, Pods: []api.Pod{pod, pod}}
	for _, e := range daemonplan.CheckInput(in) {
		fmt.Println(e)
	}
	_, err := daemonplan.Sync(in, daemonplan.Options{})
	fmt.Println(errors.Is(err, daemonplan.ErrInvalidInput))
	// Output:
	// pods[1].name: Duplicate value: "agent-x": also pods[0]
	// pods[1].uid: Duplicate value: "p1": also pods[0]
	// true
}

// CheckPlan recounts what a plan may touch from the input: a caller can run
// it before applying a plan. Each violation is a Violation naming its rule.
func ExampleCheckPlan() {
	ds := &api.DaemonSet{Namespace: "ns", Name: "agent", UID: "u1",
		Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
		Template: api.PodTemplate{Labels: map[string]string{"app": "agent"}}}
	foreign := api.Pod{Namespace: "ns", Name: "web-1", NodeName: "a", Labels: map[string]string{"app": "agent"},
		Controller: &api.OwnerRef{Kind: "ReplicaSet", Name: "web", UID: "rs1"}}
	in := daemonplan.Input{DaemonSet: ds, Nodes: []api.Node{{Name: "a"}}, Pods: []api.Pod{foreign}}
	plan, err := daemonplan.Sync(in, daemonplan.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(daemonplan.CheckPlan(in, plan))

	plan.Delete = append(plan.Delete, placement.Delete{Pod: "web-1", Node: "a", Reason: placement.Duplicate})
	err = daemonplan.CheckPlan(in, plan)
	fmt.Println(err)
	var v daemonplan.Violation
	fmt.Println(errors.As(err, &v), "rule", v.Rule)
	// Output:
	// <nil>
	// deletes pod web-1, which the DaemonSet does not claim
	// true rule 3
}
