package plantest

import (
	"time"

	"github.com/daemonplan/daemonplan/api"
	// ro: the package has a function named rollout.
	ro "github.com/daemonplan/daemonplan/rollout"
	"pgregory.net/rapid"
)

// Progressive generates a combination of the progressive-delivery
// extensions (docs/progressive-delivery.md), for nodes labelled as a test's
// nodes may be (pool=blue, canary=yes, the zone label): half of the time a
// partition (0, 2, 5, 30% or 60%) with or without partitioned scaling, an
// update scope pool=blue in one case out of three, strict budgets and
// surge with unavailability half of the time each, zones half of the time
// (up to two at once, budgets per group or not), and half of the time a
// canary of 1 to 3 nodes, sometimes spread over the zone label, limited to
// canary=yes nodes in one case out of three, with an auto-fail rule half of
// the time. Pause and Freeze stay off and no verdict is given: those are
// the caller's, who decides when a rollout stops.
func Progressive() *rapid.Generator[ro.Progressive] {
	return rapid.Custom(func(t *rapid.T) ro.Progressive {
		var p ro.Progressive
		if rapid.Bool().Draw(t, "partition?") {
			p.Partition = rapid.SampledFrom([]*api.IntOrPercent{api.Int(0), api.Int(2), api.Int(5), api.Percent("30%"), api.Percent("60%")}).Draw(t, "partition")
			p.PartitionedScaling = rapid.Bool().Draw(t, "partitionedScaling")
		}
		if rapid.IntRange(0, 2).Draw(t, "scope?") == 0 {
			p.Scope = &api.LabelSelector{MatchLabels: map[string]string{"pool": "blue"}}
		}
		p.StrictBudgets = rapid.Bool().Draw(t, "strict")
		p.SurgeWithUnavailable = rapid.Bool().Draw(t, "surgeWithUnavailable")
		if rapid.Bool().Draw(t, "zones?") {
			p.Zones = &ro.Zones{MaxConcurrent: rapid.IntRange(0, 2).Draw(t, "maxConcurrent"),
				PerGroupBudgets: rapid.Bool().Draw(t, "perGroupBudgets")}
		}
		if rapid.Bool().Draw(t, "canary?") {
			c := &ro.Canary{Nodes: api.Int(int32(rapid.IntRange(1, 3).Draw(t, "canaries"))), Verdicts: map[string]ro.Verdict{}}
			if rapid.Bool().Draw(t, "spread") {
				c.SpreadKeys = []string{ro.LabelZone}
			}
			if rapid.IntRange(0, 2).Draw(t, "canary-selector") == 0 {
				c.Selector = &api.LabelSelector{MatchLabels: map[string]string{"canary": "yes"}}
			}
			if rapid.Bool().Draw(t, "autoFail") {
				c.AutoFail = &ro.AutoFail{MaxRestarts: int32(rapid.IntRange(0, 2).Draw(t, "maxRestarts")),
					MaxUnready: rapid.SampledFrom([]time.Duration{0, 30 * time.Second, 2 * time.Minute}).Draw(t, "maxUnready")}
			}
			p.Canary = c
		}
		return p
	})
}
