package api_test

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/daemonplan/daemonplan/api"
)

func TestIntOrPercentScaled(t *testing.T) {
	cases := []struct {
		name    string
		reason  string
		v       *api.IntOrPercent
		total   int
		roundUp bool
		want    int
		wantErr bool
	}{
		{name: "int", reason: "ints are taken as they are", v: api.Int(3), total: 10, roundUp: true, want: 3},
		{name: "50% of 2", reason: "TestGetUnavailableNumbers", v: api.Percent("50%"), total: 2, roundUp: true, want: 1},
		{name: "50% of 3 up", reason: "TestGetUnavailableNumbers: rounded up", v: api.Percent("50%"), total: 3, roundUp: true, want: 2},
		{name: "50% of 3 down", reason: "rounded down", v: api.Percent("50%"), total: 3, roundUp: false, want: 1},
		{name: "100% of 2", reason: "TestGetUnavailableNumbers: surge", v: api.Percent("100%"), total: 2, roundUp: true, want: 2},
		{name: "1% of 1", reason: "any positive percent of one node rounds up to 1", v: api.Percent("1%"), total: 1, roundUp: true, want: 1},
		{name: "0%", reason: "zero", v: api.Percent("0%"), total: 5, roundUp: true, want: 0},
		{name: "nil", reason: "a nil value is an error", v: nil, total: 5, roundUp: true, wantErr: true},
		{name: "no percent sign", reason: "a string must end in %", v: api.Percent("5"), total: 5, roundUp: true, wantErr: true},
		{name: "fraction", reason: "a non-integer percentage is an error", v: api.Percent("1.5%"), total: 5, roundUp: true, wantErr: true},
		{name: "word", reason: "garbage is an error", v: api.Percent("abc%"), total: 5, roundUp: true, wantErr: true},
		// Issue 15, item 7: upstream's float-to-int conversion overflows,
		// with a result that depends on the platform (on amd64 the smallest
		// int: no pod would ever be updated). The product saturates.
		{name: "max int64 percent", reason: "saturates at the largest budget", v: api.Percent("9223372036854775807%"), total: 3, roundUp: true, want: math.MaxInt32},
		{name: "max int64 percent down", reason: "rounding down saturates too", v: api.Percent("9223372036854775807%"), total: 3, roundUp: false, want: math.MaxInt32},
		{name: "min int64 percent", reason: "saturates at the smallest budget", v: api.Percent("-9223372036854775808%"), total: 3, roundUp: true, want: math.MinInt32},
		{name: "beyond int32", reason: "a product above the int32 range saturates on 32-bit platforms alike", v: api.Percent("4294967296%"), total: 100, roundUp: true, want: math.MaxInt32},
		{name: "just below int32", reason: "exact within the range", v: api.Percent("2147483647%"), total: 99, roundUp: true, want: 2126008811},
		{name: "zero nodes", reason: "any percentage of nothing is nothing", v: api.Percent("9223372036854775807%"), total: 0, roundUp: true, want: 0},
		{name: "beyond int64", reason: "an error on every platform, as upstream on 64-bit ones", v: api.Percent("9223372036854775808%"), total: 3, roundUp: true, wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.v.Scaled(tc.total, tc.roundUp)
			if tc.wantErr {
				require.Error(t, err, tc.reason)
				return
			}
			require.NoError(t, err, tc.reason)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nScaled() mismatch (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}
