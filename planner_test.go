package daemonplan_test

import (
	"runtime"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/plantest"
)

// errorText compares errors by their text: plans hold errors built anew
// by every sync.
var errorText = cmp.Comparer(func(a, b error) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Error() == b.Error()
})

// syncInput draws a whole sync input from the kit: any snapshot, with
// orphans, failed and terminating pods, revisions of a rollout, backoff
// windows, and pending expectations now and then.
func syncInput(t *rapid.T) daemonplan.Input {
	c := plantest.Snapshots(plantest.Options{Rollout: true, Failed: true, Terminating: true, Orphans: true}).Draw(t, "snapshot")
	in := c.Input
	in.ExpectationsPending = rapid.IntRange(0, 9).Draw(t, "pending") == 0
	return in
}

// TestPlannerMatchesSync: a Planner that plans one input after another
// returns, every time, exactly the plan Sync returns for that input: the
// memory it keeps from earlier syncs never leaks into a later plan. The
// inputs follow one another as a controller's do: a new snapshot, the same
// one again, the same nodes shuffled, one node fewer, or one node another.
func TestPlannerMatchesSync(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		opts := daemonplan.Options{Placement: placement.Options{BurstReplicas: rapid.SampledFrom([]int{0, 1, 2}).Draw(t, "burst")}}
		pl := daemonplan.NewPlanner(opts)
		in := syncInput(t)
		for step := range rapid.IntRange(1, 6).Draw(t, "syncs") {
			switch rapid.IntRange(0, 4).Draw(t, "next") {
			case 0:
				in = syncInput(t)
			case 1:
				// the same input again
			case 2:
				in.Nodes = rapid.Permutation(in.Nodes).Draw(t, "shuffled")
			case 3:
				if len(in.Nodes) > 0 {
					in.Nodes = in.Nodes[1:]
				}
			case 4:
				// as many nodes, one of them another
				if len(in.Nodes) > 0 {
					in.Nodes = slices.Clone(in.Nodes)
					in.Nodes[0].Name = "node-renamed"
				}
			}
			want, werr := daemonplan.Sync(in, opts)
			got, gerr := pl.Sync(in)
			if diff := cmp.Diff(werr, gerr, errorText); diff != "" {
				t.Fatalf("sync %d: Planner.Sync() error mismatch (-Sync +Planner):\n%s", step, diff)
			}
			if diff := cmp.Diff(want, got, errorText); diff != "" {
				t.Fatalf("sync %d: Planner.Sync() mismatch (-Sync +Planner):\n%s", step, diff)
			}
		}
	})
}

// TestPlannerAllocatesPerWrite: once it has synced a cluster twice, a Planner
// allocates as much for 100 nodes as for 3,000: what it allocates depends
// on the plan's writes (here the same burst of deletes), not on the nodes.
func TestPlannerAllocatesPerWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 3,000-node cluster")
	}
	bytesPerSync := func(n int) float64 {
		in := midRolloutSettled(n)
		in.DaemonSet.UpdateStrategy.RollingUpdate.MaxUnavailable = api.Int(50)
		pl := daemonplan.NewPlanner(daemonplan.Options{})
		for range 2 {
			if _, err := pl.Sync(in); err != nil {
				t.Fatal(err)
			}
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		const syncs = 5
		for range syncs {
			if _, err := pl.Sync(in); err != nil {
				t.Fatal(err)
			}
		}
		runtime.ReadMemStats(&after)
		return float64(after.TotalAlloc-before.TotalAlloc) / syncs
	}
	small, large := bytesPerSync(100), bytesPerSync(3000)
	if large > 1.5*small {
		t.Errorf("a Planner allocates %.0f bytes per sync of 3,000 nodes and %.0f of 100: want about the same", large, small)
	}
}
