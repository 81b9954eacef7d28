package sim_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/sim"
)

// Example rolls an image update over three nodes with maxUnavailable 1,
// printing what each sync does and what `kubectl rollout status` says.
func Example() {
	ds := api.DaemonSet{
		Namespace: "default", Name: "agent", UID: "uid-agent",
		Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
		UpdateStrategy: api.UpdateStrategy{Type: api.RollingUpdate, RollingUpdate: &api.RollingUpdateParams{
			MaxUnavailable: api.Int(1), MaxSurge: api.Int(0),
		}},
	}
	tmpl := func(image string) sim.Template {
		return sim.Template{Image: image, PodTemplate: api.PodTemplate{Labels: map[string]string{"app": "agent"}, RestartPolicy: "Always"}}
	}
	nodes := []api.Node{{Name: "node-a"}, {Name: "node-b"}, {Name: "node-c"}}
	c := sim.New(ds, tmpl("agent:v1"), nodes, time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))

	roll := func() {
		for range 20 {
			p, err := c.Sync()
			if err != nil {
				panic(err)
			}
			var nodes []string
			for _, cr := range p.Create {
				nodes = append(nodes, "+"+cr.Node)
			}
			for _, d := range p.Delete {
				nodes = append(nodes, "-"+d.Node)
			}
			if len(nodes) == 0 {
				nodes = []string{"nothing"}
			}
			fmt.Printf("%-23s | %s", strings.Join(nodes, " "), p.Rollout.Message)
			if nodes[0] == "nothing" && p.Rollout.Done {
				return
			}
			c.Advance(c.ReadyAfter)
		}
	}
	roll()
	fmt.Println("-- set image agent:v2")
	c.Update(tmpl("agent:v2"), "image v2")
	roll()
	// Output:
	// +node-a +node-b +node-c | Waiting for daemon set "agent" rollout to finish: 0 out of 3 new pods have been updated...
	// nothing                 | daemon set "agent" successfully rolled out
	// -- set image agent:v2
	// -node-a                 | Waiting for daemon set "agent" rollout to finish: 0 out of 3 new pods have been updated...
	// +node-a                 | Waiting for daemon set "agent" rollout to finish: 0 out of 3 new pods have been updated...
	// -node-b                 | Waiting for daemon set "agent" rollout to finish: 1 out of 3 new pods have been updated...
	// +node-b                 | Waiting for daemon set "agent" rollout to finish: 1 out of 3 new pods have been updated...
	// -node-c                 | Waiting for daemon set "agent" rollout to finish: 2 out of 3 new pods have been updated...
	// +node-c                 | Waiting for daemon set "agent" rollout to finish: 2 out of 3 new pods have been updated...
	// nothing                 | daemon set "agent" successfully rolled out
}

// Load starts from a cluster as found: here one node with a pod that is
// still Pending and carries no revision hash. Pods become Ready ReadyAfter
// after their creation; the new node gets a pod, then the rolling update
// replaces the pod of unknown revision.
func ExampleFromInput() {
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	ds := &api.DaemonSet{Namespace: "default", Name: "agent", UID: "uid-agent",
		Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
		Template: api.PodTemplate{Labels: map[string]string{"app": "agent"}}}
	c := sim.FromInput(daemonplan.Input{
		DaemonSet: ds,
		Nodes:     []api.Node{{Name: "node-a"}, {Name: "node-b"}},
		Pods: []api.Pod{{Namespace: "default", Name: "agent-x1", Labels: map[string]string{"app": "agent"},
			Controller: &api.OwnerRef{Kind: "DaemonSet", Name: "agent", UID: "uid-agent"},
			NodeName:   "node-a", Phase: api.PodPending, Created: now}},
		Now: now,
	})
	for range 3 {
		p, err := c.Sync()
		if err != nil {
			panic(err)
		}
		for _, cr := range p.Create {
			fmt.Println("create on", cr.Node)
		}
		for _, d := range p.Delete {
			fmt.Println("delete", d.Pod, d.Reason)
		}
		c.Advance(c.ReadyAfter)
	}
	// Output:
	// create on node-b
	// delete agent-x1 Outdated
	// create on node-a
}

// A crash-looping pod is Running and never Ready; the kubelet restarts it
// on a doubling back-off, which Restarts counts and RestartAt foretells.
func ExampleCluster_Restarts() {
	ds := api.DaemonSet{Namespace: "default", Name: "agent", UID: "uid-agent",
		Selector:       &api.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
		UpdateStrategy: api.UpdateStrategy{Type: api.OnDelete}}
	tmpl := sim.Template{Image: "agent:crash", PodTemplate: api.PodTemplate{Labels: map[string]string{"app": "agent"}, RestartPolicy: "Always"}}
	start := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	c := sim.New(ds, tmpl, []api.Node{{Name: "node-a"}}, start)
	c.ReadyAfter = 5 * time.Second // its first exit
	c.FateOf = func(string, *api.Pod) sim.Fate { return sim.CrashLoop }
	if _, err := c.Sync(); err != nil {
		panic(err)
	}
	pod := c.Pods[0].Name
	fourth, _ := c.RestartAt(pod, 4)
	fmt.Println("4th restart at", fourth.Sub(start))
	c.Advance(time.Minute)
	fmt.Println("after a minute:", c.Pods[0].Phase, "ready", c.Pods[0].Ready, "restarts", c.Restarts(pod))
	// Output:
	// 4th restart at 2m35s
	// after a minute: Running ready false restarts 2
}
