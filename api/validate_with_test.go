package api_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
)

// TestValidateWith checks the one relaxation ValidateOptions offers: the
// pair maxSurge and maxUnavailable, both non-zero, is accepted only with
// AllowSurgeWithUnavailable; both zero stays an error either way.
func TestValidateWith(t *testing.T) {
	strategy := func(u, s *api.IntOrPercent) *api.DaemonSet {
		ds := validDS()
		ds.UpdateStrategy = api.UpdateStrategy{Type: api.RollingUpdate, RollingUpdate: &api.RollingUpdateParams{MaxUnavailable: u, MaxSurge: s}}
		return ds
	}
	surge := field.NewPath("spec", "updateStrategy", "rollingUpdate", "maxSurge").String()
	unavail := field.NewPath("spec", "updateStrategy", "rollingUpdate", "maxUnavailable").String()
	tests := []struct {
		name, reason string
		ds           *api.DaemonSet
		opts         api.ValidateOptions
		want         []string // fields
	}{
		{"pair rejected by default", "the API server's rule", strategy(api.Int(1), api.Percent("10%")), api.ValidateOptions{}, []string{surge}},
		{"pair accepted with the option", "surge with unavailability is on", strategy(api.Int(1), api.Percent("10%")), api.ValidateOptions{AllowSurgeWithUnavailable: true}, nil},
		{"both zero still rejected", "one budget must be non-zero", strategy(api.Int(0), api.Int(0)), api.ValidateOptions{AllowSurgeWithUnavailable: true}, []string{unavail}},
		{"format still checked", "a malformed percentage is Invalid with the option too", strategy(api.Int(1), api.Percent("x%")), api.ValidateOptions{AllowSurgeWithUnavailable: true}, []string{surge}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range api.ValidateWith(tt.ds, tt.opts) {
				got = append(got, e.Field)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ValidateWith() fields mismatch (-want +got):\n%s\nreason: %s", diff, tt.reason)
			}
		})
	}
}
