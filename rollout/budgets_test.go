package rollout_test

import (
	"testing"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/rollout"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

func rollingUpdate(maxUnavailable, maxSurge *api.IntOrPercent) api.UpdateStrategy {
	return api.UpdateStrategy{Type: api.RollingUpdate, RollingUpdate: &api.RollingUpdateParams{
		MaxUnavailable: maxUnavailable, MaxSurge: maxSurge,
	}}
}

// TestGetUnavailableNumbers covers docs/rolling-update.md, R4 (upstream's
// TestGetUnavailableNumbers and the scaling rules behind it).
func TestGetUnavailableNumbers(t *testing.T) {
	tests := []struct {
		name     string
		reason   string
		strategy api.UpdateStrategy
		desired  int
		want     rollout.Budgets
		wantErr  bool
	}{
		{
			name:     "no nodes",
			reason:   "upstream row: no desired nodes, both budgets 0 and no fallback (it needs desired > 0)",
			strategy: rollingUpdate(api.Int(0), nil),
			desired:  0,
			want:     rollout.Budgets{},
		},
		{
			name:     "two nodes, maxUnavailable 1",
			reason:   "an int is taken as it is",
			strategy: rollingUpdate(api.Int(1), nil),
			desired:  2,
			want:     rollout.Budgets{Desired: 2, MaxUnavailable: 1},
		},
		{
			name:     "int larger than desired is kept",
			reason:   "ints are not clamped to the node count",
			strategy: rollingUpdate(api.Int(7), api.Int(0)),
			desired:  3,
			want:     rollout.Budgets{Desired: 3, MaxUnavailable: 7},
		},
		{
			name:     "both zero falls back to maxUnavailable 1",
			reason:   "upstream row 'Two nodes, one node without pods': 0/0 → unavailable 1",
			strategy: rollingUpdate(api.Int(0), api.Int(0)),
			desired:  2,
			want:     rollout.Budgets{Desired: 2, MaxUnavailable: 1},
		},
		{
			name:     "both zero percent falls back to maxUnavailable 1",
			reason:   "the fallback looks at the scaled values, 0% scales to 0",
			strategy: rollingUpdate(api.Percent("0%"), api.Percent("0%")),
			desired:  5,
			want:     rollout.Budgets{Desired: 5, MaxUnavailable: 1},
		},
		{
			name:     "surge int",
			reason:   "upstream row 'Two nodes, one node without pods, surge': unavailable 0, surge 1",
			strategy: rollingUpdate(api.Int(0), api.Int(1)),
			desired:  2,
			want:     rollout.Budgets{Desired: 2, MaxSurge: 1},
		},
		{
			name:     "50% of 2 nodes",
			reason:   "upstream row: 50% of 2 is 1",
			strategy: rollingUpdate(api.Percent("50%"), nil),
			desired:  2,
			want:     rollout.Budgets{Desired: 2, MaxUnavailable: 1},
		},
		{
			name:     "50% of 3 nodes rounds up",
			reason:   "upstream row with a terminating pod: 50% of 3 = 1.5 → 2 (roundUp=true)",
			strategy: rollingUpdate(api.Percent("50%"), nil),
			desired:  3,
			want:     rollout.Budgets{Desired: 3, MaxUnavailable: 2},
		},
		{
			name:     "1% of 3 nodes rounds up to 1",
			reason:   "any positive fraction rounds up",
			strategy: rollingUpdate(api.Percent("1%"), nil),
			desired:  3,
			want:     rollout.Budgets{Desired: 3, MaxUnavailable: 1},
		},
		{
			name:     "34% of 3 nodes rounds up to 2",
			reason:   "1.02 → 2",
			strategy: rollingUpdate(api.Percent("34%"), nil),
			desired:  3,
			want:     rollout.Budgets{Desired: 3, MaxUnavailable: 2},
		},
		{
			name:     "surge 50% of 2 nodes",
			reason:   "upstream row: surge in percents",
			strategy: rollingUpdate(api.Int(0), api.Percent("50%")),
			desired:  2,
			want:     rollout.Budgets{Desired: 2, MaxSurge: 1},
		},
		{
			name:     "surge 100% of 2 nodes",
			reason:   "upstream row 'MaxUnavailable 0, MaxSurge 100%': surge 2",
			strategy: rollingUpdate(api.Int(0), api.Percent("100%")),
			desired:  2,
			want:     rollout.Budgets{Desired: 2, MaxSurge: 2},
		},
		{
			name:     "surge 10% of 101 nodes rounds up",
			reason:   "10.1 → 11",
			strategy: rollingUpdate(api.Int(0), api.Percent("10%")),
			desired:  101,
			want:     rollout.Budgets{Desired: 101, MaxSurge: 11},
		},
		{
			name:     "nil maxSurge is 0",
			reason:   "a nil maxSurge scales to 0, not an error",
			strategy: rollingUpdate(api.Int(3), nil),
			desired:  10,
			want:     rollout.Budgets{Desired: 10, MaxUnavailable: 3},
		},
		{
			name:     "nil rollingUpdate block",
			reason:   "non-defaulted RollingUpdate without parameters scales both to 0; the fallback then gives 1",
			strategy: api.UpdateStrategy{Type: api.RollingUpdate},
			desired:  4,
			want:     rollout.Budgets{Desired: 4, MaxUnavailable: 1},
		},
		{
			name:     "OnDelete ignores the parameters",
			reason:   "non-RollingUpdate scales both to 0 (UnavailableCount, SurgeCount); updatedDesiredNodeCounts' fallback still applies",
			strategy: api.UpdateStrategy{Type: api.OnDelete, RollingUpdate: &api.RollingUpdateParams{MaxUnavailable: api.Int(5), MaxSurge: api.Int(5)}},
			desired:  4,
			want:     rollout.Budgets{Desired: 4, MaxUnavailable: 1},
		},
		{
			name:     "OnDelete without nodes",
			reason:   "no fallback when nothing is desired",
			strategy: api.UpdateStrategy{Type: api.OnDelete},
			desired:  0,
			want:     rollout.Budgets{},
		},
		{
			name:     "nil maxUnavailable is an error",
			reason:   "upstream fails on a nil IntOrString; the API defaults it to 1",
			strategy: rollingUpdate(nil, api.Int(1)),
			desired:  2,
			wantErr:  true,
		},
		{
			name:     "maxUnavailable without percent sign",
			reason:   "a string must be N%",
			strategy: rollingUpdate(api.Percent("50"), nil),
			desired:  2,
			wantErr:  true,
		},
		{
			name:     "maxUnavailable not a number",
			reason:   "malformed string",
			strategy: rollingUpdate(api.Percent("abc%"), nil),
			desired:  2,
			wantErr:  true,
		},
		{
			name:     "maxUnavailable fractional percent",
			reason:   "N must be an integer",
			strategy: rollingUpdate(api.Percent("1.5%"), nil),
			desired:  2,
			wantErr:  true,
		},
		{
			name:     "maxUnavailable empty string",
			reason:   "the empty string is not a percentage",
			strategy: rollingUpdate(api.Percent(""), nil),
			desired:  2,
			wantErr:  true,
		},
		{
			name:     "maxSurge malformed",
			reason:   "maxSurge is scaled with the same rules",
			strategy: rollingUpdate(api.Int(0), api.Percent("x%")),
			desired:  2,
			wantErr:  true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := &api.DaemonSet{Name: "foo", UpdateStrategy: tt.strategy}
			got, err := rollout.ResolveBudgets(ds, tt.desired)
			if tt.wantErr {
				require.Error(t, err, tt.reason)
				return
			}
			require.NoError(t, err, tt.reason)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ResolveBudgets() mismatch (-want +got):\n%s\nreason: %s", diff, tt.reason)
			}
			if got.Surge() != (tt.want.MaxSurge > 0) {
				t.Errorf("Surge() = %v, want %v (%s)", got.Surge(), tt.want.MaxSurge > 0, tt.reason)
			}
		})
	}
}

// TestStatusMessage covers docs/status.md, S11: kubectl's
// TestDaemonSetStatusViewerStatus rows and the wrong-strategy error.
func TestStatusMessage(t *testing.T) {
	tests := []struct {
		name       string
		reason     string
		strategy   api.StrategyType
		generation int64
		status     api.Status
		want       rollout.StatusText
	}{
		{
			name:       "not all updated",
			reason:     "kubectl row 1: generation 0 ≤ observed 1, updated 0 < desired 1",
			strategy:   api.RollingUpdate,
			generation: 0,
			status:     api.Status{ObservedGeneration: 1, UpdatedNumberScheduled: 0, DesiredNumberScheduled: 1, NumberAvailable: 0},
			want:       rollout.StatusText{Message: "Waiting for daemon set \"foo\" rollout to finish: 0 out of 1 new pods have been updated...\n"},
		},
		{
			name:       "updated but not all available",
			reason:     "kubectl row 2: updated 2 = desired 2, available 1 < 2",
			strategy:   api.RollingUpdate,
			generation: 1,
			status:     api.Status{ObservedGeneration: 1, UpdatedNumberScheduled: 2, DesiredNumberScheduled: 2, NumberAvailable: 1},
			want:       rollout.StatusText{Message: "Waiting for daemon set \"foo\" rollout to finish: 1 of 2 updated pods are available...\n"},
		},
		{
			name:       "rolled out",
			reason:     "kubectl row 3: everything updated and available",
			strategy:   api.RollingUpdate,
			generation: 1,
			status:     api.Status{ObservedGeneration: 1, UpdatedNumberScheduled: 2, DesiredNumberScheduled: 2, NumberAvailable: 2},
			want:       rollout.StatusText{Message: "daemon set \"foo\" successfully rolled out\n", Done: true},
		},
		{
			name:       "spec update not observed",
			reason:     "kubectl row 4: generation 2 > observed 1, counters are not looked at",
			strategy:   api.RollingUpdate,
			generation: 2,
			status:     api.Status{ObservedGeneration: 1, UpdatedNumberScheduled: 2, DesiredNumberScheduled: 2, NumberAvailable: 2},
			want:       rollout.StatusText{Message: "Waiting for daemon set spec update to be observed...\n"},
		},
		{
			name:       "updated check comes before available",
			reason:     "with both short, the updated message wins",
			strategy:   api.RollingUpdate,
			generation: 3,
			status:     api.Status{ObservedGeneration: 3, UpdatedNumberScheduled: 1, DesiredNumberScheduled: 4, NumberAvailable: 0},
			want:       rollout.StatusText{Message: "Waiting for daemon set \"foo\" rollout to finish: 1 out of 4 new pods have been updated...\n"},
		},
		{
			name:       "no desired nodes is done",
			reason:     "0 of 0 is complete",
			strategy:   api.RollingUpdate,
			generation: 1,
			status:     api.Status{ObservedGeneration: 1},
			want:       rollout.StatusText{Message: "daemon set \"foo\" successfully rolled out\n", Done: true},
		},
		{
			name:       "OnDelete",
			reason:     "kubectl ...WithWrongUpdateStrategyType: error text, returned with done=true",
			strategy:   api.OnDelete,
			generation: 1,
			status:     api.Status{ObservedGeneration: 1},
			want:       rollout.StatusText{Message: "rollout status is only available for RollingUpdate strategy type", Done: true, Unsupported: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := &api.DaemonSet{Name: "foo", Generation: tt.generation, UpdateStrategy: api.UpdateStrategy{Type: tt.strategy}}
			got := rollout.StatusMessage(ds, tt.status)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("StatusMessage() mismatch (-want +got):\n%s\nreason: %s", diff, tt.reason)
			}
		})
	}
}
