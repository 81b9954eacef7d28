package rollout_test

import (
	"fmt"
	"time"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/rollout"
)

func ExampleResolveBudgets() {
	ds := &api.DaemonSet{UpdateStrategy: api.UpdateStrategy{
		Type: api.RollingUpdate,
		RollingUpdate: &api.RollingUpdateParams{
			MaxUnavailable: api.Percent("25%"),
			MaxSurge:       api.Int(0),
		},
	}}
	for _, desired := range []int{0, 3, 10} {
		b, err := rollout.ResolveBudgets(ds, desired)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%d nodes: maxUnavailable %d, maxSurge %d, surge %v\n", desired, b.MaxUnavailable, b.MaxSurge, b.Surge())
	}
	// Output:
	// 0 nodes: maxUnavailable 0, maxSurge 0, surge false
	// 3 nodes: maxUnavailable 1, maxSurge 0, surge false
	// 10 nodes: maxUnavailable 3, maxSurge 0, surge false
}

func ExampleStatusMessage() {
	ds := &api.DaemonSet{Name: "fluentd", Generation: 4, UpdateStrategy: api.UpdateStrategy{Type: api.RollingUpdate}}
	for _, s := range []api.Status{
		{ObservedGeneration: 3, DesiredNumberScheduled: 3},
		{ObservedGeneration: 4, DesiredNumberScheduled: 3, UpdatedNumberScheduled: 1, NumberAvailable: 3},
		{ObservedGeneration: 4, DesiredNumberScheduled: 3, UpdatedNumberScheduled: 3, NumberAvailable: 2},
		{ObservedGeneration: 4, DesiredNumberScheduled: 3, UpdatedNumberScheduled: 3, NumberAvailable: 3},
	} {
		st := rollout.StatusMessage(ds, s)
		fmt.Printf("done=%v %s", st.Done, st.Message)
	}
	// Output:
	// done=false Waiting for daemon set spec update to be observed...
	// done=false Waiting for daemon set "fluentd" rollout to finish: 1 out of 3 new pods have been updated...
	// done=false Waiting for daemon set "fluentd" rollout to finish: 2 of 3 updated pods are available...
	// done=true daemon set "fluentd" successfully rolled out
}

func ExampleRollingUpdate() {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	ds := &api.DaemonSet{
		Namespace: "default", Name: "agent", UID: "uid-agent",
		Annotations: map[string]string{api.AnnotationTemplateGeneration: "2"},
		Selector:    &api.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
		Template:    api.PodTemplate{Labels: map[string]string{"app": "agent"}},
		UpdateStrategy: api.UpdateStrategy{Type: api.RollingUpdate, RollingUpdate: &api.RollingUpdateParams{
			MaxUnavailable: api.Int(1), MaxSurge: api.Int(0),
		}},
	}
	owner := &api.OwnerRef{Kind: "DaemonSet", Name: "agent", UID: "uid-agent"}
	var nodes []api.Node
	var pods []api.Pod
	for i, ready := range []bool{true, true, false} {
		node := fmt.Sprintf("node-%d", i)
		nodes = append(nodes, api.Node{Name: node})
		pods = append(pods, api.Pod{
			Namespace: "default", Name: "agent-old-" + node, Controller: owner, NodeName: node,
			Labels:  map[string]string{"app": "agent", api.LabelRevisionHash: "old", api.LabelTemplateGeneration: "1"},
			Phase:   api.PodRunning,
			Ready:   ready,
			Created: now.Add(-time.Hour),
		})
	}
	c, err := placement.Compile(ds, placement.Options{})
	if err != nil {
		panic(err)
	}
	ix, err := c.Index(nodes, pods)
	if err != nil {
		panic(err)
	}
	step, _, err := rollout.RollingUpdate(ix, now, "new", rollout.Progressive{})
	if err != nil {
		panic(err)
	}
	// The unready old pod on node-2 goes at once and uses up the budget of
	// one: the Ready ones wait for a later pass.
	fmt.Printf("budgets: %+v\n", step.Budgets)
	for _, d := range step.Delete {
		fmt.Printf("delete %s on %s: %s\n", d.Pod, d.Node, d.Reason)
	}
	fmt.Println("creates:", len(step.Create))
	// Output:
	// budgets: {Desired:3 MaxUnavailable:1 MaxSurge:0}
	// delete agent-old-node-2 on node-2: Outdated
	// creates: 0
}
