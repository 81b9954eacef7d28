package rollout_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/rollout"
	"github.com/daemonplan/daemonplan/sim"
)

// progressiveScenario is one golden rollout: six nodes in zones a, a, b,
// b, c, c (pools blue, green alternating) roll from v1 to v2 under opts.
// react runs after each sync of the update and may change the cluster
// (promote, lower the partition, roll back); it reports whether it did.
type progressiveScenario struct {
	name     string
	strategy api.UpdateStrategy
	opts     rollout.Progressive
	hangV1   bool // v1 pods never become Ready
	crashV2  bool // v2 pods report 5 restarts each
	react    func(c *sim.Cluster, p daemonplan.Plan, b *strings.Builder) bool
}

// TestGoldenProgressive renders rollouts under each extension, sync by
// sync, into testdata/progressive.golden: the writes, the status counts,
// the hold and the canary and zone state. Regenerate with -update and read
// the diff before committing it.
func TestGoldenProgressive(t *testing.T) {
	verdicts := func() map[string]rollout.Verdict { return map[string]rollout.Verdict{} }
	scenarios := []progressiveScenario{
		{
			name: "partition 4 of 6, then lowered to 0", strategy: maxUnavailable(api.Int(1)),
			opts: rollout.Progressive{Partition: api.Int(4)},
			react: func(c *sim.Cluster, p daemonplan.Plan, b *strings.Builder) bool {
				if p.Progress.Held == rollout.PartitionReached && c.Options.Progressive.Partition.IntVal != 0 {
					c.Options.Progressive.Partition = api.Int(0)
					fmt.Fprintln(b, "-- partition 0")
					return true
				}
				return false
			},
		},
		{
			name: "scope pool=blue, maxSurge 2", strategy: maxSurge(api.Int(2)),
			opts: rollout.Progressive{Scope: &api.LabelSelector{MatchLabels: map[string]string{"pool": "blue"}}},
		},
		{
			name: "pause after the first sync, then resume", strategy: maxUnavailable(api.Int(2)),
			opts: rollout.Progressive{},
			react: func(c *sim.Cluster, p daemonplan.Plan, b *strings.Builder) bool {
				switch {
				case !c.Options.Progressive.Pause && p.Status.UpdatedNumberScheduled == 0 && len(p.Delete) > 0:
					c.Options.Progressive.Pause = true
					fmt.Fprintln(b, "-- pause")
					return true
				case c.Options.Progressive.Pause && len(p.Create)+len(p.Delete) == 0:
					c.Options.Progressive.Pause = false
					fmt.Fprintln(b, "-- resume")
					return true
				}
				return false
			},
		},
		{
			name: "all old unready, strict maxUnavailable 2", strategy: maxUnavailable(api.Int(2)), hangV1: true,
			opts: rollout.Progressive{StrictBudgets: true},
		},
		{
			name: "all old unready, strict maxSurge 2", strategy: maxSurge(api.Int(2)), hangV1: true,
			opts: rollout.Progressive{StrictBudgets: true},
		},
		{
			name: "maxSurge 1 with maxUnavailable 2", strategy: rollingUpdate(api.Int(2), api.Int(1)),
			opts: rollout.Progressive{SurgeWithUnavailable: true},
		},
		{
			name: "zone by zone, maxUnavailable 1", strategy: maxUnavailable(api.Int(1)),
			opts: rollout.Progressive{Zones: &rollout.Zones{}},
		},
		{
			name: "two zones at a time, maxSurge 50%", strategy: maxSurge(api.Percent("50%")),
			opts: rollout.Progressive{Zones: &rollout.Zones{MaxConcurrent: 2}},
		},
		{
			name: "two zones at a time, maxSurge 50% per group", strategy: maxSurge(api.Percent("50%")),
			opts: rollout.Progressive{Zones: &rollout.Zones{MaxConcurrent: 2, PerGroupBudgets: true}},
		},
		{
			name: "canary of 2 spread over zones, promote, then zone by zone", strategy: maxUnavailable(api.Int(1)),
			opts: rollout.Progressive{Zones: &rollout.Zones{},
				Canary: &rollout.Canary{Nodes: api.Int(2), SpreadKeys: []string{rollout.LabelZone}, Verdicts: verdicts()}},
			react: func(c *sim.Cluster, p daemonplan.Plan, b *strings.Builder) bool {
				if p.Progress.Held == rollout.CanaryWaiting {
					c.Options.Progressive.Canary.Verdicts[p.Hash] = rollout.Promote
					fmt.Fprintln(b, "-- promote")
					return true
				}
				return false
			},
		},
		{
			name: "canary fails on restarts and rolls back", strategy: maxUnavailable(api.Int(2)), crashV2: true,
			opts: rollout.Progressive{Canary: &rollout.Canary{Nodes: api.Int(2), Verdicts: verdicts(),
				AutoFail: &rollout.AutoFail{MaxRestarts: 3}}},
			react: func(c *sim.Cluster, p daemonplan.Plan, b *strings.Builder) bool {
				if cp := p.Progress.Canary; cp != nil && cp.Phase == rollout.PhaseAborted && cp.RollbackTo > 0 {
					c.Options.Progressive.Canary.Verdicts[p.Hash] = rollout.Abort
					c.Options.Progressive.Canary.Verdicts[cp.RollbackHash] = rollout.Promote
					res, err := c.Rollback(cp.RollbackTo)
					if err != nil {
						panic(err)
					}
					fmt.Fprintf(b, "-- rollback to revision %d: %s\n", cp.RollbackTo, res.Message)
					return true
				}
				return false
			},
		},
	}
	var b strings.Builder
	for _, sc := range scenarios {
		fmt.Fprintf(&b, "== %s\n", sc.name)
		nodes := make([]api.Node, 6)
		for i := range nodes {
			nodes[i] = api.Node{Name: fmt.Sprintf("node-%d", i), Labels: map[string]string{
				rollout.LabelZone: string(rune('a' + i/2)), "pool": []string{"blue", "green"}[i%2]}}
		}
		ds := api.DaemonSet{Namespace: "default", Name: "foo", UID: "uid-foo",
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "foo"}}, UpdateStrategy: sc.strategy}
		c := sim.New(ds, simTemplate("v1"), nodes, t0)
		if sc.hangV1 {
			c.FateOf = func(string, *api.Pod) sim.Fate { return sim.Hang }
		}
		traceProgressive(t, &b, c, nil, false)
		c.FateOf = nil
		c.Options.Progressive = sc.opts
		if sc.crashV2 {
			v2 := ""
			c.Options.Progressive.Canary.Restarts = map[string]int32{}
			c.FateOf = func(_ string, pod *api.Pod) sim.Fate {
				if pod.Labels[api.LabelRevisionHash] == v2 {
					c.Options.Progressive.Canary.Restarts[pod.Name] = 5
				}
				return sim.BecomeReady
			}
			defer func() { c.FateOf = nil }()
			c.Update(simTemplate("v2"), "")
			v2 = revisionHash(t, c)
		} else {
			c.Update(simTemplate("v2"), "")
		}
		fmt.Fprintln(&b, "-- update to v2")
		traceProgressive(t, &b, c, sc.react, true)
	}
	got := b.String()
	path := filepath.Join("testdata", "progressive.golden")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run with -update to create it")
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("progressive rollouts mismatch (-want +got):\n%s", diff)
	}
}

// revisionHash is the hash the next sync gives the current template.
func revisionHash(t *testing.T, c *sim.Cluster) string {
	t.Helper()
	p, err := daemonplan.Sync(daemonplan.Input{DaemonSet: &c.DaemonSet, Nodes: c.Nodes, Pods: c.Pods, Revisions: c.Revisions, Now: c.Now},
		daemonplan.Options{})
	require.NoError(t, err)
	return p.Hash
}

// traceProgressive syncs c, advancing ReadyAfter after each sync, until a
// sync writes nothing and react changes nothing, writing one line per sync
// when print is set.
func traceProgressive(t *testing.T, b *strings.Builder, c *sim.Cluster, react func(*sim.Cluster, daemonplan.Plan, *strings.Builder) bool, print bool) {
	t.Helper()
	for i := 1; i <= 40; i++ {
		p, err := c.Sync()
		require.NoError(t, err)
		require.Empty(t, p.Errors)
		var w []string
		for _, cr := range p.Create {
			w = append(w, "+"+cr.Node)
		}
		for _, d := range p.Delete {
			w = append(w, fmt.Sprintf("-%s(%s)", d.Node, d.Reason))
		}
		quiet := len(w) == 0
		if quiet {
			w = []string{"nothing"}
		}
		if print {
			s := p.Status
			fmt.Fprintf(b, "sync %d t=%s: %s  [updated %d available %d of %d]%s\n", i, c.Now.Sub(t0).Truncate(time.Second),
				strings.Join(w, " "), s.UpdatedNumberScheduled, s.NumberAvailable, s.DesiredNumberScheduled, progressNote(p.Progress))
		}
		changed := react != nil && react(c, p, b)
		if quiet && !changed {
			return
		}
		c.Advance(c.ReadyAfter)
	}
	t.Fatal("no quiet sync within 40 syncs")
}

// progressNote renders the hold, the canary and the zone order.
func progressNote(pr rollout.Progress) string {
	var parts []string
	if pr.Held != rollout.NotHeld {
		parts = append(parts, "held "+pr.Held.String())
	}
	if c := pr.Canary; c != nil {
		s := fmt.Sprintf("canary %s %v", c.Phase, c.Nodes)
		if c.Reason != "" {
			s += " (" + c.Reason + ")"
		}
		parts = append(parts, s)
	}
	if z := pr.Zones; z != nil && len(z.Active)+len(z.Waiting) > 0 {
		parts = append(parts, fmt.Sprintf("zones active %v waiting %v", z.Active, z.Waiting))
	}
	if len(parts) == 0 {
		return ""
	}
	return "  " + strings.Join(parts, "; ")
}
