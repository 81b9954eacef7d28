package progressive_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan/kube/progressive"
)

// TestPropertyRollout drives whole rollouts with random clusters (1 to 8
// nodes, zones a, b, c or none), policies (a canary, zones in a drawn
// order or by label, maxUnavailable 1 to 3, strict budgets), readiness
// delays, and a driver that is killed between its annotation write and
// its deletes at drawn steps (its deletes fail). At every step and tick,
// no more nodes are unavailable than maxUnavailable, no delete is issued
// while paused or waiting for the promote, every delete of a zone phase
// is in its zone, and the rollout ends with v2 on every node.
//
// It does not catch a driver that forgets its in-flight deletes: here
// the planner picks the same pods again (name order), so the count stays
// within the budget; TestKilledBetweenWriteAndDelete changes the order
// between the two steps and does catch it.
func TestPropertyRollout(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 8).Draw(rt, "nodes")
		zones := make([]string, n)
		for i := range zones {
			zones[i] = rapid.SampledFrom([]string{"a", "b", "c", ""}).Draw(rt, fmt.Sprintf("zone[%d]", i))
		}
		budget := rapid.IntRange(1, 3).Draw(rt, "maxUnavailable")
		pol := progressive.Policy{MaxUnavailable: count(budget), StrictBudgets: rapid.Bool().Draw(rt, "strict")}
		canary := 0
		if rapid.Bool().Draw(rt, "canary") {
			canary = rapid.IntRange(1, 3).Draw(rt, "canaryNodes")
			pol.Canary = &progressive.CanaryPolicy{Nodes: count(canary)}
		}
		if rapid.Bool().Draw(rt, "zones") {
			pol.Zones = &progressive.ZonesPolicy{}
			if rapid.Bool().Draw(rt, "order") {
				pol.Zones.Order = rapid.Permutation([]string{"a", "b", "c"}).Draw(rt, "zoneOrder")
			}
		}
		c := newCluster(rt, zones, "")
		c.readyDelay = time.Duration(rapid.IntRange(1, 3).Draw(rt, "readyDelaySeconds")) * time.Second
		if _, err := progressive.Start(ctx, c.fc, ns, dsName, pol); err != nil {
			rt.Fatal(err)
		}
		c.setImage("agent:v2")
		promoted := false
		for tick := 0; ; tick++ {
			if tick == 40*n+40 {
				rt.Fatalf("no end after %d ticks: images %v", tick, c.images())
			}
			killed := rapid.IntRange(0, 9).Draw(rt, fmt.Sprintf("kill[%d]", tick)) == 0
			if killed {
				c.fc.PrependReactor("delete", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
					return true, nil, errors.New("killed")
				})
			}
			before := c.podDeletes()
			res, err := progressive.Step(ctx, c.fc, ns, dsName, c.fc.Now())
			if killed {
				c.fc.ReactionChain = c.fc.ReactionChain[1:]
			}
			if err != nil {
				rt.Fatalf("Step: %v", err)
			}
			st := res.Rollout.Status
			if (st.Paused != nil || strings.Contains(res.Waiting, "promote")) && c.podDeletes() > before {
				rt.Fatalf("deleted while %q", res.Waiting)
			}
			for _, d := range res.Deletes {
				if z := zones[nodeIndex(d.Node)]; st.Phase == progressive.PhaseZone && z != st.Zone {
					rt.Fatalf("pod %s deleted on node %s of zone %q in phase zone %s", d.Pod, d.Node, z, st.Zone)
				}
			}
			if u := c.unavailable(); u > budget {
				rt.Fatalf("%d nodes unavailable after a step, budget %d: images %v", u, budget, c.images())
			}
			if canary > 0 && !promoted && len(v2Nodes(c)) > canary {
				rt.Fatalf("%d nodes on v2 before the promote, canary %d", len(v2Nodes(c)), canary)
			}
			if st.Phase == progressive.PhaseDone {
				break
			}
			if strings.Contains(res.Waiting, "promote") {
				if _, err := progressive.Promote(ctx, c.fc, ns, dsName); err != nil {
					rt.Fatal(err)
				}
				promoted = true
			}
			c.tick()
			if u := c.unavailable(); u > budget {
				rt.Fatalf("%d nodes unavailable after a tick, budget %d: images %v", u, budget, c.images())
			}
		}
		if got := c.images(); len(got) != n || slices.ContainsFunc(got, func(s string) bool { return !strings.HasSuffix(s, "agent:v2") }) {
			rt.Fatalf("at the end, images %v", got)
		}
	})
}
