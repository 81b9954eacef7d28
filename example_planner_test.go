package daemonplan_test

import (
	"fmt"
	"time"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
)

// A controller loop: one Planner plans every sync of the DaemonSet and
// reuses its memory; the caller applies each plan (here, by hand).
func ExamplePlanner() {
	ds := &api.DaemonSet{Namespace: "kube-system", Name: "agent", UID: "u1",
		Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
		Template: api.PodTemplate{Labels: map[string]string{"app": "agent"}}}
	in := daemonplan.Input{
		DaemonSet: ds,
		Nodes:     []api.Node{{Name: "a"}, {Name: "b"}},
		Now:       time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC),
	}
	pl := daemonplan.NewPlanner(daemonplan.Options{})
	for sync := 1; sync <= 2; sync++ {
		plan, err := pl.Sync(in)
		if err != nil {
			panic(err)
		}
		fmt.Printf("sync %d: %d creates, %d revisions to create\n", sync, len(plan.Create), len(plan.Revisions.Create))
		// Apply the plan: the revision, then the pods, bound and ready.
		in.Revisions = append(in.Revisions, plan.Revisions.Create...)
		for _, c := range plan.Create {
			in.Pods = append(in.Pods, api.Pod{Namespace: "kube-system", Name: "agent-" + c.Node, Labels: c.Labels,
				Controller: &api.OwnerRef{Kind: "DaemonSet", Name: "agent", UID: "u1"},
				NodeName:   c.Node, Phase: api.PodRunning, Ready: true, Created: in.Now})
		}
		if plan.StatusChanged {
			ds.Status = plan.Status
		}
		in.Backoff = plan.Backoff
	}
	// Output:
	// sync 1: 2 creates, 1 revisions to create
	// sync 2: 0 creates, 0 revisions to create
}
