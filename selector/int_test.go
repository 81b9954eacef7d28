package selector

import (
	"math"
	"strconv"
	"testing"
)

// TestParseInt64 checks the allocation-free parser against strconv.ParseInt,
// which defines Gt and Lt (docs/eligibility.md, E5), on the toleration
// test's awkward
// inputs and on the int64 edges.
func TestParseInt64(t *testing.T) {
	inputs := []string{
		"0", "7", "007", "+7", "-7", "-0", "+0", "", "-", "+", "+-1", "--1", " 1", "1 ",
		"1.5", "1e3", "0x10", "1_000", "abc", "9223372036854775807", "9223372036854775808",
		"-9223372036854775808", "-9223372036854775809", "99999999999999999999",
		"00000000000000000000000000009", strconv.FormatInt(math.MinInt64, 10), "٣",
	}
	for _, in := range inputs {
		want, err := strconv.ParseInt(in, 10, 64)
		got, ok := parseInt64(in)
		if ok != (err == nil) || (ok && got != want) {
			t.Errorf("parseInt64(%q) = %d, %v; strconv says %d, %v", in, got, ok, want, err)
		}
	}
}
