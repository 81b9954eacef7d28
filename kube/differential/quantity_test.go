package differential

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	apiresource "k8s.io/apimachinery/pkg/api/resource"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan/resource"
)

// Quantity texts are built from parts that cover every branch of
// apimachinery's scanner: signs, leading zeros, long digit runs (beyond the
// 18 digits of its int64 path), fractions finer than 10^-9, every suffix,
// written exponents (including ones that wrap when truncated to 32 bits),
// and near-miss suffixes and stray characters that must be rejected.
var (
	qSigns       = []string{"", "", "", "+", "-"}
	qZeros       = []string{"", "", "", "0", "00", "000"}
	qSISuffixes  = []string{"", "n", "u", "m", "k", "M", "G", "T", "P", "E"}
	qBinSuffixes = []string{"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}
	qBadSuffixes = []string{"ki", "K", "i", "e", "ee3", "Mi3", "m+", "e+", "eE", "Ee5", "kk", "mi", "KI", "iE5", "m3", "E+"}
	// qExpDigits are written exponents; the last few wrap or exceed int32.
	qExpDigits = []string{"0", "1", "2", "3", "5", "6", "9", "10", "12", "17", "18", "19", "21", "27", "40", "0009", "4294967296", "4294967299"}
	qStrays    = []string{" ", ".", "+", "-", "x", "i", "_", "0x", "k"} // no "e": "12e3456789" would hang apimachinery
)

// genDigits draws a digit run biased towards zeros, so that trailing zeros
// (which decide canonical forms) are common.
func genDigits(t *rapid.T, label string, maxLen int) string {
	n := rapid.IntRange(0, maxLen).Draw(t, label+"Len")
	var sb strings.Builder
	for i := 0; i < n; i++ {
		if rapid.IntRange(0, 2).Draw(t, label) == 0 {
			sb.WriteByte('0')
		} else {
			sb.WriteByte(byte('0' + rapid.IntRange(0, 9).Draw(t, label)))
		}
	}
	return sb.String()
}

// genQuantityText draws a text that apimachinery may or may not accept.
// With tame set, written exponents stay within ±40 (plus the 32-bit wraps
// that land there), so that apimachinery's arithmetic on the result stays
// cheap. Otherwise a fifth of the texts carry an exponent near 2^31 on a
// short number: apimachinery parses those on its int64 path in no time,
// while a huge exponent on its exact path (a long number, or a negative
// exponent) makes it compute 10^exponent and run for hours.
func genQuantityText(tame bool) *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		if rapid.IntRange(0, 19).Draw(t, "raw") == 0 {
			// No e or E: "1e-999999999" would hang apimachinery.
			return rapid.StringOfN(rapid.SampledFrom([]rune("0123456789.+-ikmnuKMGTP ")), 0, 12, -1).Draw(t, "rawText")
		}
		if !tame && rapid.IntRange(0, 4).Draw(t, "huge") == 0 {
			return genHugeExponentText(t)
		}
		if rapid.IntRange(0, 9).Draw(t, "noDigits") == 0 {
			// A number without digits: 0 on the int64 path, rejected on
			// the exact path (ErrNumber).
			return rapid.SampledFrom(qSigns).Draw(t, "sign") +
				rapid.SampledFrom([]string{"", "."}).Draw(t, "point") +
				rapid.SampledFrom([]string{"Pi", "Ei", "e-10", "E-12", "Ti", "m", "e3"}).Draw(t, "suffix")
		}
		var sb strings.Builder
		sb.WriteString(rapid.SampledFrom(qSigns).Draw(t, "sign"))
		sb.WriteString(rapid.SampledFrom(qZeros).Draw(t, "zeros"))
		sb.WriteString(genDigits(t, "int", 22))
		if rapid.Bool().Draw(t, "point") {
			sb.WriteByte('.')
			sb.WriteString(genDigits(t, "frac", 13))
		}
		switch rapid.IntRange(0, 9).Draw(t, "suffixKind") {
		case 0, 1, 2, 3:
			sb.WriteString(rapid.SampledFrom(qSISuffixes).Draw(t, "si"))
		case 4, 5, 6:
			sb.WriteString(rapid.SampledFrom(qBinSuffixes).Draw(t, "bin"))
		case 7, 8:
			sb.WriteString(rapid.SampledFrom([]string{"e", "E"}).Draw(t, "e"))
			sb.WriteString(rapid.SampledFrom([]string{"", "", "+", "-"}).Draw(t, "expSign"))
			sb.WriteString(rapid.SampledFrom(qExpDigits).Draw(t, "exp"))
		default:
			sb.WriteString(rapid.SampledFrom(qBadSuffixes).Draw(t, "bad"))
		}
		s := sb.String()
		if rapid.IntRange(0, 14).Draw(t, "stray") == 0 {
			i := rapid.IntRange(0, len(s)).Draw(t, "strayAt")
			s = s[:i] + rapid.SampledFrom(qStrays).Draw(t, "strayText") + s[i:]
		}
		return s
	})
}

// genHugeExponentText draws a short number with an exponent near 2^31 that
// apimachinery reads on its int64 path: a positive one, or -2147483648 after
// a fraction, which wraps to a positive scale.
func genHugeExponentText(t *rapid.T) string {
	var sb strings.Builder
	sb.WriteString(rapid.SampledFrom(qSigns).Draw(t, "sign"))
	sb.WriteString(genDigits(t, "int", 8))
	frac := genDigits(t, "frac", 8)
	wrap := rapid.Bool().Draw(t, "wrap")
	if wrap && frac == "" {
		frac = "5"
	}
	if frac != "" || rapid.Bool().Draw(t, "point") {
		sb.WriteString("." + frac)
	}
	sb.WriteString(rapid.SampledFrom([]string{"e", "E"}).Draw(t, "e"))
	if wrap {
		sb.WriteString("-2147483648")
	} else {
		sb.WriteString(rapid.SampledFrom([]string{"2147483647", "+2147483646", "2147483645", "999999999", "1000000000"}).Draw(t, "exp"))
	}
	return sb.String()
}

// fataler is what the checks need from *testing.T and *rapid.T.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// sameParseError reports whether our error kind matches apimachinery's
// error value.
func sameParseError(ours, theirs error) bool {
	switch {
	case errors.Is(ours, resource.ErrSyntax):
		return theirs == apiresource.ErrFormatWrong
	case errors.Is(ours, resource.ErrNumber):
		return theirs == apiresource.ErrNumeric
	case errors.Is(ours, resource.ErrSuffix):
		return theirs == apiresource.ErrSuffix
	}
	return false
}

// hugeExponent reports whether s, a printed quantity, has a written
// exponent within 3 of the int32 limits or beyond. apimachinery computes
// canonical exponents in 32 bits and wraps there; resource computes them
// exactly (doc.go, Divergences).
func hugeExponent(s string) bool {
	i := strings.LastIndexAny(s, "eE")
	if i < 0 {
		return false
	}
	e, err := strconv.ParseInt(s[i+1:], 10, 64)
	if err != nil {
		// A trailing E is the exa suffix; digits too long for an int64
		// are beyond 32 bits.
		return len(s) > i+1
	}
	return e > math.MaxInt32-3 || e < math.MinInt32+3
}

// sameDecimal reports whether printed, a DecimalExponent text like
// "150e2147483646" or a plain integer, has the value q holds.
func sameDecimal(printed string, q apiresource.Quantity) bool {
	mant, exp := printed, int64(0)
	if i := strings.IndexAny(printed, "eE"); i >= 0 {
		var err error
		if exp, err = strconv.ParseInt(printed[i+1:], 10, 64); err != nil {
			return false
		}
		mant = printed[:i]
	}
	d := q.DeepCopy()
	dec := d.AsDec()
	m1, e1 := normalizeDecimal(mant, exp)
	m2, e2 := normalizeDecimal(dec.UnscaledBig().String(), -int64(dec.Scale()))
	return m1 == m2 && e1 == e2
}

// normalizeDecimal moves the trailing zeros of a non-zero mantissa into the
// exponent.
func normalizeDecimal(mant string, exp int64) (string, int64) {
	for len(mant) > 1 && strings.HasSuffix(mant, "0") {
		mant = mant[:len(mant)-1]
		exp++
	}
	return mant, exp
}

// upstreamLossy reports whether apimachinery's printed form of q parses
// back to a different value. That happens only for DecimalSI values of
// 10^21 and more and BinarySI multiples of 1024^7, whose suffix
// apimachinery lacks; resource prints those exactly (doc.go, Divergences).
func upstreamLossy(q apiresource.Quantity) bool {
	back, err := apiresource.ParseQuantity(q.String())
	return err != nil || back.Cmp(q) != 0
}

// Divergence classes checkSame reports (resource doc.go, Divergences).
const (
	noDivergence   = ""
	lossyUpstream  = "apimachinery's printed form has another value"
	exponentOver32 = "printed exponent near or beyond 32 bits"
)

// checkSame fails t unless ours and theirs agree on everything a caller can
// observe: value, sign, format, printed form, and rounded integer values.
// It returns which documented divergence, if any, the printed forms show.
func checkSame(t fataler, what string, ours resource.Quantity, theirs apiresource.Quantity) (diverged string) {
	t.Helper()
	if got, want := ours.Format().String(), string(theirs.Format); got != want {
		t.Fatalf("%s: Format = %q, apimachinery %q", what, got, want)
	}
	if got, want := ours.Sign(), theirs.Sign(); got != want {
		t.Fatalf("%s: Sign = %d, apimachinery %d", what, got, want)
	}
	if got, want := ours.IsZero(), theirs.IsZero(); got != want {
		t.Fatalf("%s: IsZero = %v, apimachinery %v", what, got, want)
	}
	got, want := ours.String(), theirs.String()
	if got != want {
		switch {
		case hugeExponent(got) || hugeExponent(want):
			// apimachinery's printed exponent may be wrong here, but the
			// value it holds is not: compare ours with that.
			if !sameDecimal(got, theirs) {
				d := theirs.DeepCopy()
				dec := d.AsDec() // not dec.String(): that writes out 10^2147483647
				t.Fatalf("%s: String = %q, a different value from apimachinery's %se%d", what, got, dec.UnscaledBig(), -int64(dec.Scale()))
			}
			diverged = exponentOver32
		case upstreamLossy(theirs):
			d := theirs.DeepCopy()
			held, err := resource.Parse(d.AsDec().String())
			if printed, perr := resource.Parse(got); err != nil || perr != nil || held.Cmp(printed) != 0 {
				t.Fatalf("%s: String = %q, a different value from apimachinery's %s", what, got, d.AsDec().String())
			}
			diverged = lossyUpstream
		default:
			t.Fatalf("%s: String = %q, apimachinery %q", what, got, want)
		}
	}
	// Values: apimachinery rounds positive values up; for negative ones its
	// result depends on its internal representation, so compare against the
	// negation of its answer for -q (our rule: away from zero).
	for _, scale := range []int32{0, -3} {
		v, ok := ours.ScaledValue(scale)
		if !ok || ours.IsZero() {
			// Out of range, or 0: apimachinery multiplies zero by ten once
			// per unit of exponent, which for 0e2147483647 takes minutes.
			continue
		}
		pos := theirs.DeepCopy()
		if theirs.Sign() < 0 {
			pos.Neg()
		}
		w := pos.ScaledValue(apiresource.Scale(scale))
		if theirs.Sign() < 0 {
			w = -w
		}
		if v != w {
			t.Fatalf("%s: ScaledValue(%d) = %d, apimachinery %d (value %s)", what, scale, v, w, want)
		}
	}
	return diverged
}

// parseBoth parses s with both libraries and checks that they agree on
// acceptance and, on failure, on the kind of error.
func parseBoth(t fataler, s string) (resource.Quantity, apiresource.Quantity, bool) {
	t.Helper()
	ours, oerr := resource.Parse(s)
	theirs, terr := apiresource.ParseQuantity(s)
	if (oerr == nil) != (terr == nil) {
		t.Fatalf("Parse(%q): error %v, apimachinery error %v", s, oerr, terr)
	}
	if oerr != nil {
		if !sameParseError(oerr, terr) {
			t.Fatalf("Parse(%q): error %v, apimachinery error %v (different kind)", s, oerr, terr)
		}
		var pe *resource.ParseError
		if !errors.As(oerr, &pe) || pe.Text != s {
			t.Fatalf("Parse(%q): error %#v is not a *ParseError naming the text", s, oerr)
		}
		return ours, theirs, false
	}
	return ours, theirs, true
}

// TestParseAgreesWithParseQuantity: Parse accepts exactly the texts
// apimachinery's ParseQuantity accepts, fails with the matching error, and
// the results agree on value, format, printed form and rounded values, with
// exponents up to ±2^31.
func TestParseAgreesWithParseQuantity(t *testing.T) {
	var c counter
	diverged := map[string]int{}
	rapid.Check(t, func(t *rapid.T) {
		s := genQuantityText(false).Draw(t, "text")
		ours, theirs, ok := parseBoth(t, s)
		c.cases.Add(1)
		if !ok {
			_, err := resource.Parse(s)
			diverged["rejected: "+errors.Unwrap(err).Error()]++
			c.b.Add(1)
			return
		}
		c.a.Add(1)
		if d := checkSame(t, "Parse("+s+")", ours, theirs); d != noDivergence {
			diverged["printed differently: "+d]++
		}
		// Canonical drops the kept spelling: it prints what apimachinery
		// computes from the value.
		num, suf := theirs.CanonicalizeBytes(nil)
		if got, want := ours.Canonical().String(), string(num)+string(suf); got != want && !hugeExponent(got) && !hugeExponent(want) && !upstreamLossy(theirs) {
			t.Fatalf("Parse(%q).Canonical() = %q, apimachinery CanonicalizeBytes %q", s, got, want)
		}
	})
	c.report(t, "accepted", "rejected")
	t.Logf("outcomes: %v", diverged)
	for _, kind := range []error{resource.ErrSyntax, resource.ErrNumber, resource.ErrSuffix} {
		if diverged["rejected: "+kind.Error()] == 0 {
			t.Errorf("no text was rejected with %v", kind)
		}
	}
}

// TestCmpAgreesWithQuantityCmp: Cmp and Equal agree with apimachinery's Cmp
// on pairs of accepted texts, pairs often sharing a prefix so that equal
// values in different spellings are common.
func TestCmpAgreesWithQuantityCmp(t *testing.T) {
	var c counter
	rapid.Check(t, func(t *rapid.T) {
		a, ta, oka := parseBoth(t, genQuantityText(true).Draw(t, "a"))
		b, tb, okb := parseBoth(t, genQuantityText(true).Draw(t, "b"))
		if !oka || !okb {
			t.Skip("rejected text")
		}
		if rapid.IntRange(0, 3).Draw(t, "same") == 0 {
			b, tb = a, ta.DeepCopy()
		}
		got, want := a.Cmp(b), ta.Cmp(tb)
		if got != want {
			t.Fatalf("Cmp(%s, %s) = %d, apimachinery %d", ta.String(), tb.String(), got, want)
		}
		if a.Equal(b) != (want == 0) {
			t.Fatalf("Equal(%s, %s) = %v, apimachinery Cmp %d", ta.String(), tb.String(), a.Equal(b), want)
		}
		c.cases.Add(1)
		if want == 0 {
			c.a.Add(1)
		} else {
			c.b.Add(1)
		}
	})
	c.report(t, "equal", "unequal")
}

// TestAddAgreesWithQuantityAdd: Add and Sub agree with apimachinery's Add
// and Sub on value, format and printed form, including chains of three
// operands (so a zero partial sum hands over its format).
func TestAddAgreesWithQuantityAdd(t *testing.T) {
	var c counter
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(2, 3).Draw(t, "n")
		ours := make([]resource.Quantity, n)
		theirs := make([]apiresource.Quantity, n)
		for i := range ours {
			var ok bool
			ours[i], theirs[i], ok = parseBoth(t, genQuantityText(true).Draw(t, "text"))
			if !ok {
				t.Skip("rejected text")
			}
		}
		if rapid.IntRange(0, 4).Draw(t, "cancel") == 0 {
			// x + (-x) is zero; what follows must adopt the next format.
			ours[1], theirs[1] = ours[0].Neg(), theirs[0].DeepCopy()
			theirs[1].Neg()
		}
		sum, tsum := ours[0], theirs[0].DeepCopy()
		diff, tdiff := ours[0], theirs[0].DeepCopy()
		for i := 1; i < n; i++ {
			sum = sum.Add(ours[i])
			tsum.Add(theirs[i])
			checkSame(t, "Add", sum, tsum)
			diff = diff.Sub(ours[i])
			tdiff.Sub(theirs[i])
			checkSame(t, "Sub", diff, tdiff)
		}
		if sum.Cmp(resource.Quantity{}) != tsum.Sign() {
			t.Fatalf("sum %s: Cmp(0) = %d, apimachinery sign %d", tsum.String(), sum.Cmp(resource.Quantity{}), tsum.Sign())
		}
		c.cases.Add(1)
		if sum.IsZero() {
			c.a.Add(1)
		} else {
			c.b.Add(1)
		}
	})
	c.report(t, "zero sums", "non-zero sums")
}
