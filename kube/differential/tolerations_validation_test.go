package differential

import (
	"strconv"
	"testing"

	"k8s.io/apimachinery/pkg/api/validate/content"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan/api"
)

// TestComparisonValueAgreesWithUpstream: with the comparison operators
// gate on, the problems api.ValidateTolerations reports for an Lt or Gt
// value are, in order, apimachinery's content.IsDecimalInteger messages
// and then strconv.ParseInt's error, as upstream's core validation builds
// them, for generated values (digits, signs, leading zeros, letters,
// lengths around int64's).
func TestComparisonValueAgreesWithUpstream(t *testing.T) {
	var c counter
	rapid.Check(t, func(t *rapid.T) {
		value := rapid.OneOf(
			rapid.StringMatching(`-?[0-9]{0,20}`),
			rapid.StringMatching(`[-+0-9a ]{0,4}`),
			rapid.SampledFrom([]string{"", "0", "-0", "-", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809"}),
		).Draw(t, "value")
		var want []string
		want = append(want, content.IsDecimalInteger(value)...)
		if _, err := strconv.ParseInt(value, 10, 64); err != nil {
			want = append(want, err.Error())
		}
		errs := api.ValidateTolerations([]api.Toleration{{Key: "k", Operator: api.TolerationOpGt, Value: value}}, api.ValidateOptions{ComparisonOperators: true})
		var got []string
		for _, e := range errs {
			if e.Field != "[0].value" || e.BadValue != value {
				t.Fatalf("error %v: want path [0].value and bad value %q", e, value)
			}
			got = append(got, e.Detail)
		}
		if len(got) != len(want) {
			t.Fatalf("value %q: problems %q, upstream %q", value, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("value %q: problems %q, upstream %q", value, got, want)
			}
		}
		c.cases.Add(1)
		if len(want) == 0 {
			c.a.Add(1)
		} else {
			c.b.Add(1)
		}
	})
	c.report(t, "accepted", "refused")
}
