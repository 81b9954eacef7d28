package rollout

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
)

func TestBudgetsAndAllowsSurge(t *testing.T) {
	ru := func(maxUnavailable, maxSurge *api.IntOrPercent) api.UpdateStrategy {
		return api.UpdateStrategy{Type: api.RollingUpdate, RollingUpdate: &api.RollingUpdateParams{MaxUnavailable: maxUnavailable, MaxSurge: maxSurge}}
	}
	cases := []struct {
		name            string
		reason          string
		strategy        api.UpdateStrategy
		desired         int
		wantSurge       int
		wantUnavailable int
		wantUnavErr     bool
		wantAllows      bool
	}{
		{name: "OnDelete", reason: "no budgets at all", strategy: api.UpdateStrategy{Type: api.OnDelete, RollingUpdate: &api.RollingUpdateParams{MaxSurge: api.Int(1)}}, desired: 5},
		{name: "nil rollingUpdate", reason: "0 and 0", strategy: api.UpdateStrategy{Type: api.RollingUpdate}, desired: 5},
		{name: "maxSurge nil", reason: "nil maxSurge is 0", strategy: ru(api.Int(1), nil), desired: 5, wantUnavailable: 1},
		{name: "maxSurge 0", reason: "no surge", strategy: ru(api.Int(1), api.Int(0)), desired: 5, wantUnavailable: 1},
		{name: "maxSurge 0%", reason: "no surge", strategy: ru(api.Int(1), api.Percent("0%")), desired: 5, wantUnavailable: 1},
		{name: "maxSurge 1", reason: "surge", strategy: ru(api.Int(0), api.Int(1)), desired: 5, wantSurge: 1, wantAllows: true},
		{name: "maxSurge 1%", reason: "rounded up against one node: surge", strategy: ru(api.Int(0), api.Percent("1%")), desired: 5, wantSurge: 1, wantAllows: true},
		{name: "maxSurge 100% of 2", reason: "TestGetUnavailableNumbers", strategy: ru(api.Int(0), api.Percent("100%")), desired: 2, wantSurge: 2, wantAllows: true},
		{name: "maxUnavailable 50% of 3", reason: "rounded up", strategy: ru(api.Percent("50%"), nil), desired: 3, wantUnavailable: 2},
		{name: "maxUnavailable nil", reason: "a nil maxUnavailable is an error", strategy: ru(nil, nil), desired: 3, wantUnavErr: true},
		{name: "malformed maxSurge", reason: "an error: no surge", strategy: ru(api.Int(1), api.Percent("x")), desired: 3, wantUnavailable: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ds := &api.DaemonSet{UpdateStrategy: tc.strategy}
			unav, err := unavailableCount(ds, tc.desired)
			if tc.wantUnavErr {
				require.Error(t, err, tc.reason)
			} else {
				require.NoError(t, err, tc.reason)
			}
			surge, _ := surgeCount(ds, tc.desired)
			type got struct {
				Surge, Unavailable int
				Allows             bool
			}
			want := got{tc.wantSurge, tc.wantUnavailable, tc.wantAllows}
			if diff := cmp.Diff(want, got{surge, unav, placement.AllowsSurge(ds)}); diff != "" {
				t.Errorf("%s\nbudgets mismatch (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}
