package rollout_test

import (
	"testing"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/rollout"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

type rollingCase struct {
	name       string
	reason     string
	strategy   api.UpdateStrategy
	layout     []string
	minReady   int32
	wantDelete []placement.Delete
	wantCreate []string
	wantErr    bool
}

// rollingCases are the rules of docs/rolling-update.md without surge
// (R7–R10) and with surge (R11–R16), one row per rule, on layouts described at build.
var rollingCases = []rollingCase{
	// Both paths.
	{
		name:     "template unchanged, non-surge",
		reason:   "TestDaemonSetUpdatesNoTemplateChanged: every pod is new and available",
		strategy: maxUnavailable(api.Int(1)),
		layout:   uniform(5, "N"),
	},
	{
		name:     "template unchanged, surge",
		reason:   "TestDaemonSetUpdatesNoTemplateChanged with maxSurge",
		strategy: maxSurge(api.Int(2)),
		layout:   uniform(5, "N"),
	},

	// Without surge (docs/rolling-update.md, R7–R10).
	{
		name:       "available old pods only within the budget",
		reason:     "maxUnavailable 2 of 5 available old pods: the first 2 by node name",
		strategy:   maxUnavailable(api.Int(2)),
		layout:     uniform(5, "O"),
		wantDelete: del(placement.Outdated, "node-000-old0", "node-001-old0"),
	},
	{
		name:       "percent budget rounds up",
		reason:     "50% of 3 → 2",
		strategy:   maxUnavailable(api.Percent("50%")),
		layout:     uniform(3, "O"),
		wantDelete: del(placement.Outdated, "node-000-old0", "node-001-old0"),
	},
	{
		name:       "unavailable old pods outside the budget",
		reason:     "every unavailable old pod is deleted even though maxUnavailable is 1",
		strategy:   maxUnavailable(api.Int(1)),
		layout:     uniform(3, "o"),
		wantDelete: del(placement.Outdated, "node-000-old0", "node-001-old0", "node-002-old0"),
	},
	{
		name:       "unavailable old pod uses up the budget",
		reason:     "node-001's unavailable old pod counts, so no available old pod is added (remaining = 1 − 1)",
		strategy:   maxUnavailable(api.Int(1)),
		layout:     []string{"O", "o", "O"},
		wantDelete: del(placement.Outdated, "node-001-old0"),
	},
	{
		name:       "failed old pod is an unavailable old pod",
		reason:     "failed pods are not skipped by findUpdatedPodsOnNode; not Ready → replaced outside the budget",
		strategy:   maxUnavailable(api.Int(1)),
		layout:     []string{"F", "O"},
		wantDelete: del(placement.Outdated, "node-000-old0"),
	},
	{
		name:       "duplicate old pods count unavailable",
		reason:     "ok=false on node-000 → numUnavailable 1 of 2: one available old pod goes",
		strategy:   maxUnavailable(api.Int(2)),
		layout:     []string{"OO", "O", "O"},
		wantDelete: del(placement.Outdated, "node-001-old0"),
	},
	{
		name:       "duplicate new pods count unavailable",
		reason:     "two new pods on a node also give ok=false",
		strategy:   maxUnavailable(api.Int(1)),
		layout:     []string{"NN", "O"},
		wantDelete: nil,
	},
	{
		name:       "empty desired node counts unavailable",
		reason:     "a desired node without pods is visited and counted",
		strategy:   maxUnavailable(api.Int(2)),
		layout:     []string{"", "O", "O", "O"},
		wantDelete: del(placement.Outdated, "node-001-old0"),
	},
	{
		name:       "old and new on one node count unavailable",
		reason:     "both present → numUnavailable++ even though both are available",
		strategy:   maxUnavailable(api.Int(2)),
		layout:     []string{"ON", "O", "O"},
		wantDelete: del(placement.Outdated, "node-001-old0"),
	},
	{
		name:       "terminating-only node counts unavailable",
		reason:     "pods being deleted are ignored: the node has neither old nor new",
		strategy:   maxUnavailable(api.Int(2)),
		layout:     []string{"T", "O", "O"},
		wantDelete: del(placement.Outdated, "node-001-old0"),
	},
	{
		name:       "terminating pod ignored when classifying",
		reason:     "node-000 has one terminating and one available old pod: only the latter is seen",
		strategy:   maxUnavailable(api.Int(1)),
		layout:     []string{"TO", "O"},
		wantDelete: del(placement.Outdated, "node-000-old1"),
	},
	{
		name:       "available new pod does not count",
		reason:     "only-new and available leaves the budget untouched",
		strategy:   maxUnavailable(api.Int(1)),
		layout:     []string{"N", "O", "O"},
		wantDelete: del(placement.Outdated, "node-001-old0"),
	},
	{
		name:     "unavailable new pod counts",
		reason:   "only-new and not available uses the whole budget of 1",
		strategy: maxUnavailable(api.Int(1)),
		layout:   []string{"n", "O"},
	},
	{
		name:       "updated by template generation",
		reason:     "IsPodUpdated: generation match alone makes node-000's pod new, so node-001 is the first candidate",
		strategy:   maxUnavailable(api.Int(1)),
		layout:     []string{"G", "O"},
		wantDelete: del(placement.Outdated, "node-001-old0"),
	},
	{
		name:       "old pod on a node that should not run is a candidate",
		reason:     "the non-surge path visits every bucket and never asks shouldRun; desired is 1 so maxUnavailable 1",
		strategy:   maxUnavailable(api.Int(1)),
		layout:     []string{"!O", "O"},
		wantDelete: del(placement.Outdated, "node-000-old0"),
	},
	{
		name:       "old pod on a vanished node is a candidate",
		reason:     "the non-surge path never looks nodes up, so no error",
		strategy:   maxUnavailable(api.Int(1)),
		layout:     []string{"?O", "O"},
		wantDelete: del(placement.Outdated, "node-000-old0"),
	},
	{
		name:     "TestDaemonSetUpdatesSaveOldHealthyPods",
		reason:   "20 nodes, 10 unavailable new and 10 available old, maxUnavailable 10: the healthy old pods stay",
		strategy: maxUnavailable(api.Int(10)),
		layout:   append(uniform(10, "n"), uniform(10, "O")...),
	},
	{
		name:       "TestDaemonSetUpdatesAllOldNotReadyPodsAndNewNotReadyPods",
		reason:     "100 nodes, maxUnavailable 10: 88 unavailable new + 2 unavailable old + 10 available old → exactly the 2 unavailable old",
		strategy:   maxUnavailable(api.Int(10)),
		layout:     join(uniform(88, "n"), uniform(2, "o"), uniform(10, "O")),
		wantDelete: del(placement.Outdated, "node-088-old0", "node-089-old0"),
	},
	{
		name:       "TestDaemonSetUpdatesAllOldNotReadyPodsAndNewNotReadyPods, available old visited first",
		reason:     "the available old pods are candidates when visited, but the final remaining = 10 − 90 clamps to 0",
		strategy:   maxUnavailable(api.Int(10)),
		layout:     join(uniform(10, "O"), uniform(2, "o"), uniform(88, "n")),
		wantDelete: del(placement.Outdated, "node-010-old0", "node-011-old0"),
	},

	// With surge (docs/rolling-update.md, R11–R16).
	{
		name:       "surge candidates limited by maxSurge",
		reason:     "maxSurge 2 of 5 available old pods: new pods on the first 2 nodes by name, nothing deleted",
		strategy:   maxSurge(api.Int(2)),
		layout:     uniform(5, "O"),
		wantCreate: []string{"node-000", "node-001"},
	},
	{
		name:       "surge percent rounds up",
		reason:     "100% of 3 → 3",
		strategy:   maxSurge(api.Percent("100%")),
		layout:     uniform(3, "O"),
		wantCreate: []string{"node-000", "node-001", "node-002"},
	},
	{
		name:       "unavailable old pods get a new pod at once",
		reason:     "allowedNewNodes bypass maxSurge 1",
		strategy:   maxSurge(api.Int(1)),
		layout:     uniform(3, "o"),
		wantCreate: []string{"node-000", "node-001", "node-002"},
	},
	{
		name:       "allowed nodes come before candidates",
		reason:     "node-001 (unavailable old) is allowed; node-000 is the one candidate maxSurge 1 admits (TestRollingUpdateBurst: allowed go first under the burst limit)",
		strategy:   maxSurge(api.Int(1)),
		layout:     []string{"O", "o", "O"},
		wantCreate: []string{"node-000", "node-001"},
	},
	{
		name:       "unavailable new pod counts against the surge",
		reason:     "node-000 holds old + unavailable new → numSurge 1 of 2",
		strategy:   maxSurge(api.Int(2)),
		layout:     []string{"On", "O", "O"},
		wantCreate: []string{"node-001"},
	},
	{
		name:       "new pod not yet available for minReadySeconds",
		reason:     "Ready 5 s of minReadySeconds 10 is not available: surge used up, old kept",
		strategy:   maxSurge(api.Int(1)),
		layout:     []string{"Om", "O"},
		minReady:   10,
		wantCreate: nil,
	},
	{
		name:       "available new pod replaces the old one",
		reason:     "old + available new → delete old; the surge is free again for node-001",
		strategy:   maxSurge(api.Int(1)),
		layout:     []string{"ON", "O"},
		wantDelete: del(placement.SurgeReplaced, "node-000-old0"),
		wantCreate: []string{"node-001"},
	},
	{
		name:     "duplicates count against the surge",
		reason:   "ok=false → numSurge++",
		strategy: maxSurge(api.Int(1)),
		layout:   []string{"OO", "O"},
	},
	{
		name:       "empty desired node is left to manage",
		reason:     "no old pod: nothing, and it does not count against the surge",
		strategy:   maxSurge(api.Int(1)),
		layout:     []string{"", "O"},
		wantCreate: []string{"node-001"},
	},
	{
		name:       "old pod on a no-longer-eligible node goes with surplus availability",
		reason:     "3 available pods, 2 desired → deletable 1; node-000's old pod goes (TestDaemonSetUpdatesPodsNotMatchTainstWithMaxSurge)",
		strategy:   maxSurge(api.Int(1)),
		layout:     []string{"!O", "O", "O"},
		wantDelete: del(placement.Unschedulable, "node-000-old0"),
		wantCreate: []string{"node-001"},
	},
	{
		name:       "old pod on a no-longer-eligible node stays without surplus",
		reason:     "2 available pods for 2 desired: the pod on node-000 is kept",
		strategy:   maxSurge(api.Int(1)),
		layout:     []string{"!O", "O", "o"},
		wantCreate: []string{"node-001", "node-002"},
	},
	{
		name:       "available new-only nodes count as available in surge mode",
		reason:     "upstream counts a node holding only an available new pod: 3 available for 2 desired leaves one surplus, so the old pod on the ineligible node-000 goes",
		strategy:   maxSurge(api.Int(1)),
		layout:     []string{"!O", "N", "N"},
		wantDelete: del(placement.Unschedulable, "node-000-old0"),
	},
	{
		name:       "unavailable old pod on a no-longer-eligible node goes at once",
		reason:     "not available and !shouldRun → delete now, regardless of availability",
		strategy:   maxSurge(api.Int(1)),
		layout:     []string{"!o", "O"},
		wantDelete: del(placement.Outdated, "node-000-old0"),
		wantCreate: []string{"node-001"},
	},
	{
		name:     "vanished node whose only pod is old",
		reason:   "the surge path looks the node up and fails",
		strategy: maxSurge(api.Int(1)),
		layout:   []string{"?O", "O"},
		wantErr:  true,
	},
	{
		name:     "vanished node whose only pod is old and unavailable",
		reason:   "the lookup comes before the availability check",
		strategy: maxSurge(api.Int(1)),
		layout:   []string{"?o", "O"},
		wantErr:  true,
	},
	{
		name:       "vanished node whose only pod is new",
		reason:     "no old pod → no lookup; its available pod counts toward numAvailable",
		strategy:   maxSurge(api.Int(1)),
		layout:     []string{"?N", "!O", "O"},
		wantDelete: del(placement.Unschedulable, "node-001-old0"),
		wantCreate: []string{"node-002"},
	},
}

// TestRollingUpdate covers docs/rolling-update.md, R6–R16, on hand-built
// clusters.
func TestRollingUpdate(t *testing.T) {
	for _, tt := range rollingCases {
		t.Run(tt.name, func(t *testing.T) {
			f := build(tt.strategy, tt.layout...)
			f.ds.MinReadySeconds = tt.minReady
			got, err := f.step(t)
			if tt.wantErr {
				require.Error(t, err, tt.reason)
				return
			}
			require.NoError(t, err, tt.reason)
			want := stepShape{Delete: sortedDeletes(tt.wantDelete), Create: tt.wantCreate}
			if diff := cmp.Diff(want, shapeOf(got), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("RollingUpdate() mismatch (-want +got):\n%s\nreason: %s", diff, tt.reason)
			}
		})
	}
}

// TestRollingUpdateBurst checks that the burst limit cuts a step in
// upstream's priority order (pods forced by unavailable old pods first,
// then budgeted candidates), counts what it cut, and sorts what it keeps.
func TestRollingUpdateBurst(t *testing.T) {
	tests := []struct {
		name, reason string
		strategy     api.UpdateStrategy
		layout       []string
		want         stepShape
		wantSkipped  [2]int // creates, deletes
	}{
		{
			name:        "surge: allowed before candidates",
			reason:      "node-001's unavailable old pod makes it allowed; the candidate node-000 is cut",
			strategy:    maxSurge(api.Int(1)),
			layout:      []string{"O", "o", "O"},
			want:        stepShape{Create: []string{"node-001"}},
			wantSkipped: [2]int{1, 0},
		},
		{
			name:        "no surge: forced deletes before candidates",
			reason:      "the unavailable old pod on node-002 is deleted regardless of budget; the candidate on node-000 is cut",
			strategy:    maxUnavailable(api.Int(3)),
			layout:      []string{"O", "N", "o"},
			want:        stepShape{Delete: del(placement.Outdated, "node-002-old0")},
			wantSkipped: [2]int{0, 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := build(tt.strategy, tt.layout...)
			f.opts.BurstReplicas = 1
			got, err := f.step(t)
			require.NoError(t, err, tt.reason)
			if diff := cmp.Diff(tt.want, shapeOf(got), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("RollingUpdate() mismatch (-want +got):\n%s\nreason: %s", diff, tt.reason)
			}
			if gotSkipped := [2]int{got.SkippedCreates, got.SkippedDeletes}; gotSkipped != tt.wantSkipped {
				t.Errorf("skipped (creates, deletes) = %v, want %v: %s", gotSkipped, tt.wantSkipped, tt.reason)
			}
		})
	}
}

// TestRollingUpdateBudgets checks that the step reports the budgets it
// used, resolved against the nodes that should run the pod.
func TestRollingUpdateBudgets(t *testing.T) {
	f := build(maxSurge(api.Percent("50%")), "!O", "O", "O", "?O", "O")
	got, err := f.step(t)
	require.Error(t, err, "vanished node with an old pod in surge mode")
	want := rollout.Budgets{Desired: 3, MaxSurge: 2}
	if diff := cmp.Diff(want, got.Budgets); diff != "" {
		t.Errorf("Budgets mismatch (-want +got):\n%s", diff)
	}
}

// TestRollingUpdateIgnoresInputOrder checks the deterministic choice (STYLE
// "Deterministic by construction"): permuting nodes and pods never changes
// the step, and the input is left unchanged.
func TestRollingUpdateIgnoresInputOrder(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		tt := rapid.SampledFrom(rollingCases).Draw(rt, "case")
		f := build(tt.strategy, tt.layout...)
		f.ds.MinReadySeconds = tt.minReady
		want, wantErr := f.step(rt)

		g := build(tt.strategy, tt.layout...)
		g.ds.MinReadySeconds = tt.minReady
		g.nodes = rapid.Permutation(g.nodes).Draw(rt, "nodes")
		g.pods = rapid.Permutation(g.pods).Draw(rt, "pods")
		nodesBefore, podsBefore := cloneNodes(g.nodes), clonePods(g.pods)
		got, gotErr := g.step(rt)
		if (wantErr == nil) != (gotErr == nil) {
			rt.Fatalf("error %v after permuting, %v before", gotErr, wantErr)
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			rt.Fatalf("RollingUpdate() of permuted input mismatch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(nodesBefore, g.nodes); diff != "" {
			rt.Fatalf("RollingUpdate changed its nodes (-before +after):\n%s", diff)
		}
		if diff := cmp.Diff(podsBefore, g.pods); diff != "" {
			rt.Fatalf("RollingUpdate changed its pods (-before +after):\n%s", diff)
		}
	})
}

func cloneNodes(ns []api.Node) []api.Node {
	out := make([]api.Node, len(ns))
	for i, n := range ns {
		out[i] = n
		out[i].Taints = append(n.Taints[:0:0], n.Taints...)
	}
	return out
}

func clonePods(ps []api.Pod) []api.Pod {
	out := make([]api.Pod, len(ps))
	for i, p := range ps {
		out[i] = p
		out[i].Labels = make(map[string]string, len(p.Labels))
		for k, v := range p.Labels {
			out[i].Labels[k] = v
		}
	}
	return out
}

// TestRollingUpdateZeroIndex: a zero Index, never indexed, is an
// error for the rolling update with and without extensions, not a nil
// dereference.
func TestRollingUpdateZeroIndex(t *testing.T) {
	var ix placement.Index
	if _, _, err := rollout.RollingUpdate(&ix, t0, hashNew, rollout.Progressive{}); err == nil {
		t.Errorf("RollingUpdate on a zero Index: no error")
	}
	if _, _, err := rollout.RollingUpdate(&ix, t0, hashNew, rollout.Progressive{Pause: true}); err == nil {
		t.Errorf("RollingUpdate with Pause on a zero Index: no error")
	}
}
