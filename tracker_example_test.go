package daemonplan_test

import (
	"fmt"
	"time"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
)

// exampleInput is a DaemonSet on two nodes, each running its pod, ready
// for ten seconds; a pod counts as available after thirty.
func exampleInput() daemonplan.Input {
	now := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	ds := &api.DaemonSet{Namespace: "kube-system", Name: "agent", UID: "u1", Generation: 1,
		Selector:        &api.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
		Template:        api.PodTemplate{Labels: map[string]string{"app": "agent"}},
		MinReadySeconds: 30,
		Status:          api.Status{ObservedGeneration: 1}}
	in := daemonplan.Input{DaemonSet: ds, Now: now}
	for _, n := range []string{"a", "b"} {
		in.Nodes = append(in.Nodes, api.Node{Name: n})
		in.Pods = append(in.Pods, api.Pod{Namespace: "kube-system", Name: "agent-" + n,
			Labels:     map[string]string{"app": "agent"},
			Controller: &api.OwnerRef{Kind: "DaemonSet", Name: "agent", UID: "u1"},
			NodeName:   n, Phase: api.PodRunning, Ready: true, ReadySince: now.Add(-10 * time.Second), Created: now.Add(-time.Minute)})
	}
	return in
}

// A controller builds a Tracker once, then feeds it the changes its
// informers see and plans after each.
func ExampleTracker() {
	in := exampleInput()
	p, err := daemonplan.NewTracker(in, daemonplan.Options{})
	if err != nil {
		panic(err)
	}
	show := func(what string) {
		plan, err := p.Plan()
		if err != nil {
			panic(err)
		}
		var creates []string
		for _, c := range plan.Create {
			creates = append(creates, c.Node)
		}
		fmt.Printf("%-22s creates %v, available %d of %d\n", what+":", creates,
			plan.Status.NumberAvailable, plan.Status.DesiredNumberScheduled)
	}
	show("start")

	p.SetNode(api.Node{Name: "c"})
	show("node c added")

	p.SetPod(api.Pod{Namespace: "kube-system", Name: "agent-c", Labels: map[string]string{"app": "agent"},
		Controller: &api.OwnerRef{Kind: "DaemonSet", Name: "agent", UID: "u1"},
		NodeName:   "c", Phase: api.PodRunning, Ready: true, ReadySince: in.Now, Created: in.Now})
	show("its pod is ready")

	p.SetNow(in.Now.Add(25 * time.Second))
	show("25 s later")

	p.DeleteNode("b")
	show("node b removed")
	// Output:
	// start:                 creates [], available 0 of 2
	// node c added:          creates [c], available 0 of 3
	// its pod is ready:      creates [], available 0 of 3
	// 25 s later:            creates [], available 2 of 3
	// node b removed:        creates [], available 1 of 2
}

// FullPlan is the plan a whole Sync returns, node decisions and kept pods
// included.
func ExampleTracker_FullPlan() {
	p, err := daemonplan.NewTracker(exampleInput(), daemonplan.Options{})
	if err != nil {
		panic(err)
	}
	p.SetNode(api.Node{Name: "c"})
	full, err := p.FullPlan()
	if err != nil {
		panic(err)
	}
	sync, err := daemonplan.Sync(p.Input(), daemonplan.Options{})
	if err != nil {
		panic(err)
	}
	for _, n := range full.Nodes {
		fmt.Println(n.Node, n.Reason)
	}
	fmt.Println("keep", full.Keep)
	fmt.Println("same as Sync:", len(full.Nodes) == len(sync.Nodes) && fmt.Sprint(full.Keep) == fmt.Sprint(sync.Keep))
	// Output:
	// a Eligible
	// b Eligible
	// c Eligible
	// keep [agent-a agent-b]
	// same as Sync: true
}

// A controller with one Tracker per DaemonSet syncs, after a node event,
// only the DaemonSets whose Tracker reports that the change may change a
// plan.
func ExampleTracker_SetNode() {
	in := exampleInput()
	in.DaemonSet.Template.NodeSelector = map[string]string{"pool": "agents"}
	for i := range in.Nodes {
		in.Nodes[i].Labels = map[string]string{"pool": "agents"}
	}
	p, err := daemonplan.NewTracker(in, daemonplan.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println("label unrelated to the DaemonSet:", p.SetNode(api.Node{Name: "a", Labels: map[string]string{"pool": "agents", "rack": "r1"}}))
	fmt.Println("node leaves the pool, its pod must go:", p.SetNode(api.Node{Name: "a", Labels: map[string]string{"rack": "r1"}}))
	fmt.Println("a node outside the pool comes:", p.SetNode(api.Node{Name: "c"}))
	fmt.Println("and goes:", p.DeleteNode("c"))
	// Output:
	// label unrelated to the DaemonSet: false
	// node leaves the pool, its pod must go: true
	// a node outside the pool comes: false
	// and goes: false
}
