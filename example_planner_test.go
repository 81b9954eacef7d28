package daemonplan_test

import (
	"fmt"
	"strings"
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

// Nodes with a Version: the Planner decides a node again only when its
// Version changes (or the DaemonSet's placement does). A caller gives a
// node a new Version whenever its labels or taints change.
func ExamplePlanner_nodeVersions() {
	ds := &api.DaemonSet{Namespace: "kube-system", Name: "agent", UID: "u1",
		Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
		Template: api.PodTemplate{Labels: map[string]string{"app": "agent"},
			NodeSelector: map[string]string{"kubernetes.io/os": "linux"}}}
	in := daemonplan.Input{
		DaemonSet: ds,
		Nodes: []api.Node{
			{Name: "a", Labels: map[string]string{"kubernetes.io/os": "linux"}, Version: "7"},
			{Name: "b", Labels: map[string]string{"kubernetes.io/os": "windows"}, Version: "8"},
		},
		Now: time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC),
	}
	pl := daemonplan.NewPlanner(daemonplan.Options{})
	show := func() {
		plan, err := pl.Sync(in)
		if err != nil {
			panic(err)
		}
		var out []string
		for _, n := range plan.Nodes {
			out = append(out, fmt.Sprintf("%s:%v", n.Node, n.ShouldRun))
		}
		fmt.Println(strings.Join(out, " "))
	}
	show()
	// Node b becomes a Linux node: a new state, a new Version.
	in.Nodes = []api.Node{in.Nodes[0], {Name: "b", Labels: map[string]string{"kubernetes.io/os": "linux"}, Version: "9"}}
	show()
	// Output:
	// a:true b:false
	// a:true b:true
}
