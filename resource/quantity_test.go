package resource_test

import (
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/resource"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, in string
		// want is String(), canonical Canonical().String() ("" when the
		// same as want), format the Format, milli the MilliValue.
		want, canonical string
		format          resource.Format
		milli           int64
		reason          string
	}{
		{"milli", "100m", "100m", "", resource.DecimalSI, 100, "the usual cpu request is canonical already"},
		{"fraction", "0.5", "500m", "", resource.DecimalSI, 500, "fractions print as the largest power of 1000 without a fraction"},
		{"leading point", ".5", "500m", "", resource.DecimalSI, 500, "an empty integer part is allowed"},
		{"trailing point", "5.", "5.", "5", resource.DecimalSI, 5000, "an empty fraction is allowed, and apimachinery prints the text as written"},
		{"thousand milli", "1000m", "1", "", resource.DecimalSI, 1000, "trailing zeros move into the suffix"},
		{"kibi to mebi", "1024Ki", "1Mi", "", resource.BinarySI, 1048576000, "BinarySI takes the largest power of 1024"},
		{"binary fraction", "1.5Gi", "1536Mi", "", resource.BinarySI, 1610612736000, "a binary fraction that is a whole number of Mi"},
		{"binary below 1024", "0.5Ki", "512", "", resource.BinarySI, 512000, "BinarySI below 1024 prints as DecimalSI but stays BinarySI"},
		{"binary not integer", "1.1Ki", "1126400m", "", resource.BinarySI, 1126400, "a BinarySI fraction prints as DecimalSI"},
		{"binary below one", "0.0001Ki", "102400u", "", resource.DecimalSI, 103, "a BinarySI value below 1 becomes DecimalSI when parsed"},
		{"binary cap", "8Ei", "9223372036854775807", "", resource.BinarySI, math.MaxInt64, "BinarySI is capped at 2^63-1; the milli value clamps"},
		{"exponent", "1e3", "1e3", "", resource.DecimalExponent, 1000000, "a written exponent gives DecimalExponent"},
		{"capital exponent", "1E3", "1E3", "1e3", resource.DecimalExponent, 1000000, "E3 is kept as written but is canonically e3"},
		{"exa", "1E", "1E", "", resource.DecimalSI, math.MaxInt64, "a lone E is the exa suffix, not an exponent"},
		{"exponent not multiple of 3", "15e2", "1500", "", resource.DecimalExponent, 1500000, "DecimalExponent omits e0"},
		{"big exponent", "1e1000", "10e999", "", resource.DecimalExponent, math.MaxInt64, "exponents are multiples of 3"},
		{"plus", "+1", "+1", "1", resource.DecimalSI, 1000, "apimachinery keeps a plus sign as written"},
		{"leading zeros", "0001", "0001", "1", resource.DecimalSI, 1000, "and leading zeros"},
		{"trailing fraction zeros", "1.500", "1.500", "1500m", resource.DecimalSI, 1500, "and a fraction of three digits not ending in 000"},
		{"fraction of 000", "1.000", "1", "", resource.DecimalSI, 1000, "digits ending in 000 are not kept"},
		{"sub-nano", "0.1n", "1n", "", resource.DecimalSI, 1, "non-zero values round up to a multiple of 1n"},
		{"negative sub-nano", "-1.5n", "-2n", "", resource.DecimalSI, -1, "rounding is away from zero"},
		{"sign only", "-", "0", "", resource.DecimalSI, 0, "a sign without digits is zero"},
		{"suffix only", "Mi", "0", "", resource.BinarySI, 0, "a suffix without digits is zero in its format"},
		{"point only", ".", "0", "", resource.DecimalSI, 0, "a point without digits is zero"},
		{"wrapped exponent", "1e4294967296", "1e4294967296", "1", resource.DecimalExponent, 1000, "written exponents are truncated to 32 bits"},
		{"twenty digits", "99999999999999999999", "99999999999999999999", "", resource.DecimalSI, math.MaxInt64, "decimal formats are not capped"},
		{"beyond exa", "1000E", "1000E", "", resource.DecimalSI, math.MaxInt64, "apimachinery prints 1 here; we print the value"},
		{"negative binary", "-1.5Ki", "-1536", "", resource.BinarySI, -1536000, "signs carry through every format"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := resource.Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v (%s)", tt.in, err, tt.reason)
			}
			canonical := tt.canonical
			if canonical == "" {
				canonical = tt.want
			}
			got := []any{q.String(), q.Canonical().String(), q.Format(), q.MilliValue()}
			want := []any{tt.want, canonical, tt.format, tt.milli}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Parse(%q) mismatch (-want +got):\n%s\nreason: %s", tt.in, diff, tt.reason)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in string
		want     error
		reason   string
	}{
		{"empty", "", resource.ErrSyntax, "the empty text is not a quantity"},
		{"leading space", " 1", resource.ErrSyntax, "no whitespace is trimmed"},
		{"trailing space", "1 ", resource.ErrSyntax, "nor at the end"},
		{"two points", "1.5.5", resource.ErrSyntax, "one point at most"},
		{"digits after suffix letters then junk", "1e3e3", resource.ErrSyntax, "the tail is letters, a sign, digits, and nothing more"},
		{"lower-case ki", "1ki", resource.ErrSuffix, "suffixes are case-sensitive"},
		{"capital K", "1K", resource.ErrSuffix, "kilo is a lower-case k"},
		{"bare e", "1e", resource.ErrSuffix, "an exponent needs digits"},
		{"digits after Mi", "1Mi3", resource.ErrSuffix, "only e and E take digits"},
		{"exponent overflow", "1e99999999999999999999", resource.ErrSuffix, "the written exponent must fit an int64"},
		{"no digits, exact path", ".e-10", resource.ErrNumber, "the exact path needs a digit"},
		{"no digits, large binary", ".Pi", resource.ErrNumber, "Pi always takes the exact path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := resource.Parse(tt.in)
			var pe *resource.ParseError
			if !errors.As(err, &pe) || pe.Text != tt.in || !errors.Is(err, tt.want) {
				t.Errorf("Parse(%q) = %v, want a *ParseError for the text wrapping %v (%s)", tt.in, err, tt.want, tt.reason)
			}
		})
	}
}

func TestArithmetic(t *testing.T) {
	tests := []struct {
		name      string
		a, b      string
		sum, diff string
		format    resource.Format
		cmp       int
		reason    string
	}{
		{"binary plus decimal", "1Ki", "1", "1025", "1023", resource.BinarySI, 1, "the sum keeps the first operand's format"},
		{"zero adopts", "0", "1Ki", "1Ki", "-1Ki", resource.BinarySI, -1, "a zero first operand takes the second's format"},
		{"binary zero adopts too", "0Ki", "1", "1", "-1", resource.DecimalSI, -1, "whatever format the zero had"},
		{"spelling dropped", "1E3", "0", "1e3", "1e3", resource.DecimalExponent, 1, "results never keep a parsed spelling"},
		{"beyond int64", "7Ei", "7Ei", "14Ei", "0", resource.BinarySI, 0, "sums beyond int64 are exact and keep BinarySI"},
		{"nano plus one", "1n", "1", "1000000001n", "-999999999n", resource.DecimalSI, -1, "no precision is lost"},
		{"milli plus gibi", "100m", "1Gi", "1073741824100m", "-1073741823900m", resource.DecimalSI, -1, "DecimalSI first operand"},
		{"same value, other form", "1e3", "1k", "2e3", "0", resource.DecimalExponent, 0, "1e3 equals 1k"},
		{"int64 overflow", "9223372036854775807", "1", "9223372036854775808", "9223372036854775806", resource.DecimalSI, 1, "the int64 path overflows into math/big"},
		{"far exponents", "1e40", "1", "10000000000000000000000000000000000000001", "9999999999999999999999999999999999999999", resource.DecimalExponent, 1, "the exponents are aligned exactly"},
		{"cpu", "1", "250m", "1250m", "750m", resource.DecimalSI, 1, "the everyday case"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := resource.MustParse(tt.a), resource.MustParse(tt.b)
			sum := a.Add(b)
			got := []any{sum.String(), a.Sub(b).String(), sum.Format(), a.Cmp(b), b.Cmp(a), a.Equal(b)}
			want := []any{tt.sum, tt.diff, tt.format, tt.cmp, -tt.cmp, tt.cmp == 0}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s op %s mismatch (-want +got):\n%s\nreason: %s", tt.a, tt.b, diff, tt.reason)
			}
		})
	}
}

func TestScaledValue(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		scale  int32
		want   int64
		ok     bool
		reason string
	}{
		{"whole", "2", 0, 2, true, "no rounding needed"},
		{"round up", "1.1", 0, 2, true, "fractions round away from zero"},
		{"round down negative", "-1.1", 0, -2, true, "away from zero for negatives too"},
		{"milli of nano", "1n", -3, 1, true, "1n is 0.000001m, rounded up to 1m"},
		{"kilo", "1500", 3, 2, true, "positive scales divide"},
		{"overflow", "10E", 0, math.MaxInt64, false, "1e19 does not fit"},
		{"negative overflow", "-10E", 0, math.MinInt64, false, "clamped with the sign"},
		{"big value small scale", "12345678901234567890123", 18, 12346, true, "the math/big path rounds too"},
		{"tiny exponent", "1e1000", 2000, 1, true, "far below 1 rounds to 1 without building 10^1000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := resource.MustParse(tt.in).ScaledValue(tt.scale)
			if got != tt.want || ok != tt.ok {
				t.Errorf("ScaledValue(%s, %d) = %d, %v; want %d, %v (%s)", tt.in, tt.scale, got, ok, tt.want, tt.ok, tt.reason)
			}
		})
	}
}

func TestNeg(t *testing.T) {
	min := resource.NewQuantity(math.MinInt64, resource.DecimalSI)
	if got, want := min.Neg().String(), "9223372036854775808"; got != want {
		t.Errorf("Neg(MinInt64) = %s, want %s: negating the most negative int64 must not wrap", got, want)
	}
	if got := min.Neg().Neg(); !got.Equal(min) {
		t.Errorf("Neg(Neg(MinInt64)) = %s, want %s", got, min)
	}
	if got := resource.MustParse("+1").Neg().String(); got != "-1" {
		t.Errorf("Neg(+1) = %s, want -1: the spelling must not survive", got)
	}
}

func TestList(t *testing.T) {
	a := resource.List{"cpu": resource.MustParse("+1"), "memory": resource.MustParse("1Gi")}
	b := resource.List{"memory": resource.MustParse("1073741824"), "nvidia.com/gpu": resource.MustParse("1")}
	tests := []struct {
		name   string
		got    string
		want   string
		reason string
	}{
		{"add", a.Add(b).String(), "cpu=+1,memory=2Gi,nvidia.com/gpu=1", "names in one list keep their spelling; sums keep the first format"},
		{"max tie keeps first", a.Max(b).String(), "cpu=+1,memory=1Gi,nvidia.com/gpu=1", "1Gi and 1073741824 are equal, so the receiver's is kept"},
		{"max tie other way", b.Max(a).String(), "cpu=+1,memory=1073741824,nvidia.com/gpu=1", "and the other way round"},
		{"nil add", resource.List(nil).Add(nil).String(), "", "nil lists are empty"},
		{"names sorted", cmp.Diff([]string{"cpu", "memory", "nvidia.com/gpu"}, a.Add(b).Names()), "", "Names sorts"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q (%s)", tt.name, tt.got, tt.want, tt.reason)
		}
	}
	if a.String() != "cpu=+1,memory=1Gi" || b.String() != "memory=1073741824,nvidia.com/gpu=1" {
		t.Errorf("Add or Max changed an input: a=%s b=%s", a, b)
	}
}

// TestHugeExponents: values with exponents near 2^31 parse, print, compare
// and round without building numbers of that many digits (a regression
// here shows up as a hang, not a wrong answer).
func TestHugeExponents(t *testing.T) {
	big := resource.MustParse("12345678901234567890e999999999")
	tiny := resource.MustParse("1e-999999999")
	wrapped := resource.MustParse("1000e2147483647")
	got := []any{
		big.String(), tiny.String(), wrapped.String(),
		big.Cmp(resource.MustParse("1")), wrapped.Cmp(big), tiny.Cmp(resource.MustParse("1n")),
		big.Value(), tiny.MilliValue(),
	}
	want := []any{
		"12345678901234567890e999999999", "1e-9", "10000e2147483646",
		1, 1, 0,
		int64(math.MaxInt64), int64(1),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("huge exponents mismatch (-want +got):\n%s", diff)
	}
}
