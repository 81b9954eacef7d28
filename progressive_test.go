package daemonplan_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
	"github.com/daemonplan/daemonplan/rollout"
)

// TestSyncProgressive pins how Sync carries Options.Progressive: manage's
// writes under Freeze and PartitionedScaling, validation of the surge and
// unavailable pair, and the rollback target of an aborted canary.
func TestSyncProgressive(t *testing.T) {
	unavailable1 := func(c *syncCluster) {
		c.in.DaemonSet.UpdateStrategy.RollingUpdate = &api.RollingUpdateParams{MaxUnavailable: api.Int(1)}
	}
	tests := []struct {
		name, reason string
		build        func(c *syncCluster)
		opts         rollout.Progressive
		want         writes
		wantProgress rollout.Progress
	}{
		{
			name:   "freeze stops manage",
			reason: "node b has no pod: manage would create one; Freeze issues nothing",
			build: func(c *syncCluster) {
				unavailable1(c)
				c.node("a").node("b").pod("p-a", "a", curHash)
			},
			opts: rollout.Progressive{Freeze: true},
			want: writes{Hash: curHash, StatusChanged: true, Status: api.Status{CurrentNumberScheduled: 1, DesiredNumberScheduled: 2,
				NumberReady: 1, ObservedGeneration: 2, UpdatedNumberScheduled: 1, NumberAvailable: 1, NumberUnavailable: 1}},
			wantProgress: rollout.Progress{Held: rollout.Frozen},
		},
		{
			name:   "partitioned scaling holds creates back",
			reason: "3 desired, none new, partition 2: one create, on the first node by name",
			build: func(c *syncCluster) {
				unavailable1(c)
				c.node("a").node("b").node("c")
			},
			opts: rollout.Progressive{Partition: api.Int(2), PartitionedScaling: true},
			want: writes{Hash: curHash, Create: []string{"a"}, StatusChanged: true, Status: api.Status{DesiredNumberScheduled: 3,
				ObservedGeneration: 2, NumberUnavailable: 3}},
			wantProgress: rollout.Progress{HeldCreates: 2},
		},
		{
			name:   "partition without partitioned scaling lets manage create",
			reason: "OpenKruise's default: the partition bounds the rolling update only",
			build: func(c *syncCluster) {
				unavailable1(c)
				c.node("a").node("b").node("c")
			},
			opts: rollout.Progressive{Partition: api.Int(2)},
			want: writes{Hash: curHash, Create: []string{"a", "b", "c"}, StatusChanged: true, Status: api.Status{DesiredNumberScheduled: 3,
				ObservedGeneration: 2, NumberUnavailable: 3}},
		},
		{
			name:   "surge with unavailable accepted",
			reason: "maxSurge 1 and maxUnavailable 1: no warning with the extension; one surge create and one outright delete",
			build: func(c *syncCluster) {
				c.in.DaemonSet.UpdateStrategy.RollingUpdate = &api.RollingUpdateParams{MaxUnavailable: api.Int(1), MaxSurge: api.Int(1)}
				c.node("a").node("b").node("c").pod("p-a", "a", oldHash).pod("p-b", "b", oldHash).pod("p-c", "c", oldHash)
			},
			opts: rollout.Progressive{SurgeWithUnavailable: true},
			want: writes{Hash: curHash, Create: []string{"a"}, Delete: []string{"p-b"}, StatusChanged: true, Status: api.Status{
				CurrentNumberScheduled: 3, DesiredNumberScheduled: 3, NumberReady: 3, ObservedGeneration: 2, NumberAvailable: 3}},
			wantProgress: rollout.Progress{Outdated: 3, Allowed: 3},
		},
		{
			name:   "surge with unavailable rejected without the extension",
			reason: "the API server's rule 20: a warning, and upstream's surge plan",
			build: func(c *syncCluster) {
				c.in.DaemonSet.UpdateStrategy.RollingUpdate = &api.RollingUpdateParams{MaxUnavailable: api.Int(1), MaxSurge: api.Int(1)}
				c.node("a").node("b").node("c").pod("p-a", "a", oldHash).pod("p-b", "b", oldHash).pod("p-c", "c", oldHash)
			},
			want: writes{Hash: curHash, Create: []string{"a"}, StatusChanged: true, Status: api.Status{
				CurrentNumberScheduled: 3, DesiredNumberScheduled: 3, NumberReady: 3, ObservedGeneration: 2, NumberAvailable: 3},
				Warnings: []string{"spec.updateStrategy.rollingUpdate.maxSurge"}},
		},
		{
			name:   "aborted canary names the revision to roll back to",
			reason: "Abort for the current hash: no writes, RollbackTo is the old revision 1",
			build: func(c *syncCluster) {
				unavailable1(c)
				c.node("a").node("b").pod("p-a", "a", curHash).pod("p-b", "b", oldHash)
			},
			opts: rollout.Progressive{Canary: &rollout.Canary{Nodes: api.Int(1), Verdicts: map[string]rollout.Verdict{curHash: rollout.Abort}}},
			want: writes{Hash: curHash, StatusChanged: true, Status: api.Status{CurrentNumberScheduled: 2, DesiredNumberScheduled: 2,
				NumberReady: 2, ObservedGeneration: 2, UpdatedNumberScheduled: 1, NumberAvailable: 2}},
			wantProgress: rollout.Progress{Held: rollout.CanaryAborted, Outdated: 1, Canary: &rollout.CanaryProgress{
				Phase: rollout.PhaseAborted, Want: 1, Nodes: []string{"a"}, Reason: "aborted by verdict", RollbackTo: 1, RollbackHash: oldHash}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newSyncCluster()
			tt.build(c)
			c.opts.Progressive = tt.opts
			p, err := daemonplan.Sync(c.in, c.opts)
			require.NoError(t, err)
			if diff := cmp.Diff(tt.want, writesOf(p), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Sync() writes mismatch (-want +got):\n%s\nreason: %s", diff, tt.reason)
			}
			if diff := cmp.Diff(tt.wantProgress, p.Progress, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Sync() progress mismatch (-want +got):\n%s\nreason: %s", diff, tt.reason)
			}
		})
	}
}

// TestSyncProgressiveInvalid: invalid options are an error with field
// paths under "progressive", before anything is planned.
func TestSyncProgressiveInvalid(t *testing.T) {
	c := newSyncCluster()
	c.node("a")
	c.opts.Progressive = rollout.Progressive{
		Partition: api.Percent("150%"),
		Zones:     &rollout.Zones{MaxConcurrent: -1},
		Canary:    &rollout.Canary{Verdicts: map[string]rollout.Verdict{"h": 7}},
	}
	_, err := daemonplan.Sync(c.in, c.opts)
	var errs field.ErrorList
	require.True(t, errors.As(err, &errs), "error %v is a field.ErrorList", err)
	type finding struct {
		Type  field.ErrorType
		Field string
	}
	var got []finding
	for _, e := range errs {
		got = append(got, finding{e.Type, e.Field})
	}
	want := []finding{
		{field.TypeInvalid, "progressive.partition"},
		{field.TypeInvalid, "progressive.zones.maxConcurrent"},
		{field.TypeRequired, "progressive.canary.nodes"},
		{field.TypeNotSupported, "progressive.canary.verdicts[h]"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Sync() errors mismatch (-want +got):\n%s", diff)
	}
}
