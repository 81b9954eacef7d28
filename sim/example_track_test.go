package sim_test

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/sim"
)

// ExampleCluster_Track rolls an image update over three nodes with
// maxUnavailable 1 and a 30 s grace period on a tracked cluster: each sync
// plans with a daemonplan.Tracker, NextEvent says when a pod next changes
// (Ready, or gone), and Changed names the nodes whose pods changed.
func ExampleCluster_Track() {
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
	start := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	c := sim.New(ds, tmpl("agent:v1"), []api.Node{{Name: "node-a"}, {Name: "node-b"}, {Name: "node-c"}}, start)
	c.GracePeriod = 30 * time.Second
	// Settle on agent:v1: the pods are created, then Ready.
	for range 2 {
		if _, err := c.Sync(); err != nil {
			panic(err)
		}
		c.Advance(c.ReadyAfter)
	}
	if err := c.Track(); err != nil {
		panic(err)
	}
	c.Changed() // forget the changes so far
	c.Update(tmpl("agent:v2"), "")
	start = c.Now
	for range 30 {
		p, err := c.Sync()
		if err != nil {
			panic(err)
		}
		changed, _ := c.Changed()
		slices.Sort(changed)
		var writes []string
		for _, cr := range p.Create {
			writes = append(writes, "+"+cr.Node)
		}
		for _, d := range p.Delete {
			writes = append(writes, "-"+d.Node)
		}
		wait := c.NextEvent()
		if len(writes) > 0 {
			wait = 0 // the controller follows its own writes at once
		}
		if len(writes) > 0 || wait == 0 {
			fmt.Printf("%-6v %-8s changed %s\n", c.Now.Sub(start), strings.Join(writes, " "), strings.Join(changed, ","))
		}
		if len(writes) == 0 && wait == 0 {
			fmt.Println(p.Rollout.Message)
			return
		}
		c.Advance(wait)
	}
	// Output:
	// 0s     -node-a  changed node-a
	// 30s    +node-a  changed node-a
	// 40s    -node-b  changed node-a,node-b
	// 1m10s  +node-b  changed node-b
	// 1m20s  -node-c  changed node-b,node-c
	// 1m50s  +node-c  changed node-c
	// 2m0s            changed node-c
	// daemon set "agent" successfully rolled out
}
