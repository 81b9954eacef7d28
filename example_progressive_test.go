package daemonplan_test

import (
	"fmt"
	"time"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/rollout"
	"github.com/daemonplan/daemonplan/sim"
)

// A canary through Sync: one node takes the new image, the rollout waits
// for the caller's verdict on that revision, then goes on.
func ExampleSync_canary() {
	ds := api.DaemonSet{Namespace: "default", Name: "agent", UID: "u1",
		Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
		UpdateStrategy: api.UpdateStrategy{Type: api.RollingUpdate,
			RollingUpdate: &api.RollingUpdateParams{MaxUnavailable: api.Int(3)}}}
	tmpl := func(image string) sim.Template {
		return sim.Template{Image: image, PodTemplate: api.PodTemplate{Labels: map[string]string{"app": "agent"}}}
	}
	nodes := []api.Node{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	c := sim.New(ds, tmpl("v1"), nodes, time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC))
	for range 3 { // v1 runs everywhere
		if _, err := c.Sync(); err != nil {
			panic(err)
		}
		c.Advance(10 * time.Second)
	}
	verdicts := map[string]rollout.Verdict{}
	c.Options = daemonplan.Options{Progressive: rollout.Progressive{
		Canary: &rollout.Canary{Nodes: api.Int(1), Verdicts: verdicts}}}
	c.Update(tmpl("v2"), "")
	for range 8 {
		plan, err := c.Sync()
		if err != nil {
			panic(err)
		}
		fmt.Printf("creates %d, deletes %d", len(plan.Create), len(plan.Delete))
		if cp := plan.Progress.Canary; cp != nil {
			fmt.Printf(", canary %v %v", cp.Phase, cp.Nodes)
		}
		fmt.Println()
		if plan.Progress.Held == rollout.CanaryWaiting {
			verdicts[plan.Hash] = rollout.Promote
		}
		if plan.Rollout.Done && len(plan.Create)+len(plan.Delete) == 0 {
			break
		}
		c.Advance(10 * time.Second)
	}
	// Output:
	// creates 0, deletes 1, canary Running [a]
	// creates 1, deletes 0
	// creates 0, deletes 0, canary WaitingVerdict [a]
	// creates 0, deletes 2, canary Promoted []
	// creates 2, deletes 0
	// creates 0, deletes 0, canary Promoted []
}
