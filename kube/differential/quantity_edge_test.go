package differential

import (
	"math"
	"testing"

	apiresource "k8s.io/apimachinery/pkg/api/resource"

	"github.com/daemonplan/daemonplan/resource"
)

// TestQuantityEdgeCases: hand-picked texts where apimachinery's behaviour
// is surprising, each with the reason it is worth pinning. Both libraries
// must agree on acceptance, error kind, value, format, printed form and
// rounded values.
func TestQuantityEdgeCases(t *testing.T) {
	tests := []struct {
		text, reason string
		// diverges names the documented divergence the printed forms
		// show, if any.
		diverges string
	}{
		{"0", "apimachinery short-cuts the text 0", noDivergence},
		{"-0", "negative zero is zero", noDivergence},
		{"+", "a sign alone is 0", noDivergence},
		{"-", "either sign", noDivergence},
		{".", "a point alone is 0", noDivergence},
		{"Mi", "a suffix alone is 0, in BinarySI", noDivergence},
		{"m", "in DecimalSI", noDivergence},
		{"e3", "in DecimalExponent", noDivergence},
		{"E", "E alone is the exa suffix, so this is 0 in DecimalSI", noDivergence},
		{"1E", "10^18", noDivergence},
		{"1E3", "but E3 is an exponent", noDivergence},
		{"1e+3", "exponents take a sign, and the text is kept as written", noDivergence},
		{"1e-0", "a zero exponent, kept as written", noDivergence},
		{"1e0009", "leading zeros in the exponent", noDivergence},
		{"+1", "the plus sign is kept as written", noDivergence},
		{"0001", "leading zeros are kept as written", noDivergence},
		{"1.500", "three fraction digits not ending in 000 are kept as written", noDivergence},
		{"1.100", "likewise", noDivergence},
		{"1.000", "digits ending in 000 are not kept", noDivergence},
		{"1.0", "an exponent of -1 is not a multiple of 3, so not kept", noDivergence},
		{"5.", "an empty fraction is allowed and kept as written", noDivergence},
		{"1.G", "even before a suffix", noDivergence},
		{".5", "an empty integer part is allowed but not kept", noDivergence},
		{"0.5", "likewise with a zero", noDivergence},
		{"1000m", "canonical form is 1", noDivergence},
		{"100m", "canonical already", noDivergence},
		{"1.5Gi", "a binary fraction on the exact path", noDivergence},
		{"1024Ki", "promoted to 1Mi", noDivergence},
		{"+5Ti", "binary texts not a multiple of 8 are kept as written", noDivergence},
		{"+5Pi", "but Pi always takes the exact path and is never kept", noDivergence},
		{"2000Ki", "a multiple of 8 is not kept", noDivergence},
		{"0.1Ki", "BinarySI below 1024 prints as DecimalSI", noDivergence},
		{"1.1Ki", "a BinarySI non-integer prints as DecimalSI", noDivergence},
		{"0.0001Ki", "a BinarySI value below 1 becomes DecimalSI", noDivergence},
		{"-1.5Ki", "negative binary", noDivergence},
		{"7Ei", "the largest Ei below the cap; MilliValue overflows", noDivergence},
		{"8Ei", "capped at 2^63-1", noDivergence},
		{"99999999999999999999", "20 digits: the exact path, uncapped", noDivergence},
		{"123456789012345678", "18 digits: the int64 path", noDivergence},
		{"1234567890123456789", "19 digits: the exact path", noDivergence},
		{"0.000000001", "1n on the int64 path", noDivergence},
		{"0.0000000001", "a tenth of 1n rounds up to 1n", noDivergence},
		{"0.1n", "likewise with a suffix", noDivergence},
		{"1e-10", "likewise with an exponent", noDivergence},
		{"-1.5n", "negative values round away from zero", noDivergence},
		{"0.1m", "prints as 100u", noDivergence},
		{"15e2", "DecimalExponent omits e0", noDivergence},
		{"1e1000", "a large exponent", noDivergence},
		{"1e4294967296", "the exponent is truncated to 32 bits: 0", noDivergence},
		{"1e4294967299", "truncated to 3", noDivergence},
		{"1.5e-2147483648", "MinInt32 minus one fraction digit wraps to a huge positive exponent", noDivergence},
		{"1e2147483646", "the largest exponent both print alike", noDivergence},
		{"100e2147483647", "apimachinery's canonical exponent wraps and comes back (100e2147483647); ours is 1000e2147483646", exponentOver32},
		{"1000e2147483647", "apimachinery's wraps to 1e-2147483646, a tiny value; ours keeps the exponent below 2^31 with zeros in the mantissa", exponentOver32},
		{"1000000e2147483647", "likewise, further out", exponentOver32},
		{".e-3", "no digits, int64 path: 0", noDivergence},
		{".e-10", "no digits, exact path: rejected", noDivergence},
		{".Ti", "no digits, Ti fits the int64 path: 0", noDivergence},
		{".Pi", "no digits, Pi takes the exact path: rejected", noDivergence},
		{"", "empty", noDivergence},
		{" 1", "no whitespace trimming", noDivergence},
		{"1 ", "nor at the end", noDivergence},
		{"1.5.5", "two points", noDivergence},
		{"1e3e3", "digits then letters in the tail", noDivergence},
		{"1ki", "suffixes are case-sensitive", noDivergence},
		{"1K", "kilo is lower case", noDivergence},
		{"1e", "an e needs digits", noDivergence},
		{"1ee3", "one e", noDivergence},
		{"1Mi3", "only e and E take digits", noDivergence},
		{"1m+", "a sign needs digits after it", noDivergence},
		{"1e99999999999999999999", "the exponent must fit an int64", noDivergence},
		{"0x10", "no hexadecimal", noDivergence},
		{"1_000", "no digit separators", noDivergence},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			ours, theirs, ok := parseBoth(t, tt.text)
			if !ok {
				return
			}
			if d := checkSame(t, "Parse("+tt.text+")", ours, theirs); d != tt.diverges {
				t.Errorf("Parse(%q) prints %q, apimachinery %q: divergence %q, want %q (%s)", tt.text, ours.String(), theirs.String(), d, tt.diverges, tt.reason)
			}
		})
	}
}

// TestQuantityEdgeSums: hand-picked sums and comparisons, compared with
// apimachinery.
func TestQuantityEdgeSums(t *testing.T) {
	tests := []struct {
		terms  []string
		reason string
	}{
		{[]string{"1Ki", "1"}, "BinarySI plus DecimalSI keeps BinarySI"},
		{[]string{"0", "1Ki"}, "a zero receiver adopts the argument's format"},
		{[]string{"0Ki", "1"}, "whatever its own format"},
		{[]string{"1", "-1", "1Ki"}, "a sum that returns to zero adopts the next format"},
		{[]string{"1E3", "0"}, "adding zero drops the kept spelling"},
		{[]string{"7Ei", "7Ei"}, "beyond int64, exact, still BinarySI"},
		{[]string{"9223372036854775807", "1"}, "int64 overflow"},
		{[]string{"-9223372036854775807", "-1", "-1"}, "negative overflow"},
		{[]string{"1n", "1"}, "no precision lost"},
		{[]string{"100m", "1Gi"}, "DecimalSI receiver"},
		{[]string{"1e3", "1k"}, "equal values in two formats"},
		{[]string{"1e40", "1"}, "distant exponents"},
		{[]string{"0.0001Ki", "1Ki"}, "a BinarySI text parsed as DecimalSI"},
		{[]string{"1.5", "-1.5"}, "cancelling"},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			sum, tsum := resource.Quantity{}, apiresource.Quantity{}
			for i, s := range tt.terms {
				q, tq, ok := parseBoth(t, s)
				if !ok {
					t.Fatalf("term %q rejected", s)
				}
				if i == 0 {
					sum, tsum = q, tq
				} else {
					if got, want := sum.Cmp(q), tsum.Cmp(tq); got != want {
						t.Fatalf("Cmp(%s, %s) = %d, apimachinery %d", tsum.String(), s, got, want)
					}
					sum = sum.Add(q)
					tsum.Add(tq)
				}
				checkSame(t, "sum", sum, tsum)
			}
		})
	}
}

// TestQuantityDivergences pins each documented divergence (resource
// doc.go, Divergences) with both libraries' answers.
func TestQuantityDivergences(t *testing.T) {
	t.Run("no suffix beyond E", func(t *testing.T) {
		for _, s := range []string{"1000E", "1000000000000000000000"} {
			if got, want := resource.MustParse(s).String(), "1000E"; got != want {
				t.Errorf("String(%s) = %s, want %s", s, got, want)
			}
			theirs := apiresource.MustParse(s)
			if got := theirs.String(); got != "1" {
				t.Errorf("apimachinery prints %s as %q; the divergence is gone, drop it from doc.go", s, got)
			}
		}
	})
	t.Run("no suffix beyond Ei", func(t *testing.T) {
		sum, tsum := resource.Quantity{}, apiresource.Quantity{}
		for i := 0; i < 256; i++ { // 256 × 4Ei = 2^70 = 1024Ei
			sum = sum.Add(resource.MustParse("4Ei"))
			tsum.Add(apiresource.MustParse("4Ei"))
		}
		if got, want := sum.String(), "1024Ei"; got != want {
			t.Errorf("String = %s, want %s", got, want)
		}
		if got := tsum.String(); got != "1" {
			t.Errorf("apimachinery prints 2^70 as %q; the divergence is gone, drop it from doc.go", got)
		}
	})
	t.Run("32-bit printed exponents", func(t *testing.T) {
		ours, theirs := resource.MustParse("10e2147483647"), apiresource.MustParse("10e2147483647")
		if got, want := ours.String(), "100e2147483646"; got != want {
			t.Errorf("String = %s, want %s", got, want)
		}
		if got := theirs.String(); got != "10e2147483647" {
			t.Errorf("apimachinery prints %q; the divergence is gone, drop it from doc.go", got)
		}
	})
	t.Run("exponent past 2^31", func(t *testing.T) {
		ours, theirs := resource.MustParse("1000e2147483647"), apiresource.MustParse("1000e2147483647")
		if got, want := ours.String(), "10000e2147483646"; got != want {
			t.Errorf("String = %s, want %s", got, want)
		}
		if got := theirs.String(); got != "1e-2147483646" {
			t.Errorf("apimachinery prints %q; the divergence changed, update doc.go", got)
		}
	})
	t.Run("negative rounding", func(t *testing.T) {
		ours, theirs := resource.MustParse("-1.5n"), apiresource.MustParse("-1.5n")
		if got := ours.MilliValue(); got != -1 {
			t.Errorf("MilliValue(-1.5n) = %d, want -1", got)
		}
		if got := theirs.MilliValue(); got != 1 {
			t.Errorf("apimachinery MilliValue(-1.5n) = %d; the divergence is gone, drop it from doc.go", got)
		}
	})
	t.Run("overflow clamps", func(t *testing.T) {
		ours, theirs := resource.MustParse("7Ei"), apiresource.MustParse("7Ei")
		if got := ours.MilliValue(); got != math.MaxInt64 {
			t.Errorf("MilliValue(7Ei) = %d, want MaxInt64", got)
		}
		if got := theirs.MilliValue(); got != math.MinInt64 {
			t.Errorf("apimachinery MilliValue(7Ei) = %d; the divergence changed, update doc.go", got)
		}
	})
}
