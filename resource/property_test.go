package resource

import (
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// genText draws quantity texts with exponents within ±40: signs, leading
// zeros, up to 22 integer and 12 fraction digits (both paths of Parse),
// every suffix, and a few malformed tails.
func genText() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		var sb strings.Builder
		sb.WriteString(rapid.SampledFrom([]string{"", "", "+", "-"}).Draw(t, "sign"))
		sb.WriteString(rapid.SampledFrom([]string{"", "", "0", "00"}).Draw(t, "zeros"))
		digits := func(label string, max int) {
			for i, n := 0, rapid.IntRange(0, max).Draw(t, label); i < n; i++ {
				sb.WriteByte(rapid.SampledFrom([]byte("00123456789")).Draw(t, label+"Digit"))
			}
		}
		digits("int", 22)
		if rapid.Bool().Draw(t, "point") {
			sb.WriteByte('.')
			digits("frac", 12)
		}
		suffixes := []string{"", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "ki", "e"}
		if rapid.IntRange(0, 3).Draw(t, "exponent") == 0 {
			sb.WriteString(rapid.SampledFrom([]string{"e", "E"}).Draw(t, "e"))
			sb.WriteString(rapid.SampledFrom([]string{"", "+", "-"}).Draw(t, "expSign"))
			sb.WriteString(strconv.Itoa(rapid.IntRange(0, 40).Draw(t, "exp")))
		} else {
			sb.WriteString(rapid.SampledFrom(suffixes).Draw(t, "suffix"))
		}
		return sb.String()
	})
}

// genQuantity draws the Quantity of an accepted text.
func genQuantity() *rapid.Generator[Quantity] {
	return rapid.Custom(func(t *rapid.T) Quantity {
		s := genText().Filter(func(s string) bool {
			_, err := Parse(s)
			return err == nil
		}).Draw(t, "text")
		return MustParse(s)
	})
}

// ratOf returns q's exact value.
func ratOf(q Quantity) *big.Rat {
	r := new(big.Rat).SetInt(q.unscaledBig())
	p := new(big.Rat).SetInt(pow10(abs64(q.exp)))
	if q.exp >= 0 {
		return r.Mul(r, p)
	}
	return r.Quo(r, p)
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// refText splits a text the naive way, with a regular expression.
var refText = regexp.MustCompile(`^([+-]?)([0-9]*)(?:\.([0-9]*))?(n|u|m||k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?[0-9]+)$`)

// refValue is a deliberately naive reading of an accepted text with a
// small exponent: the number as a fraction, times the suffix's power, then
// apimachinery's two corrections: magnitudes rounded up to a multiple of
// 10^-9 and BinarySI capped at 2^63-1.
func refValue(s string) (*big.Rat, bool) {
	m := refText.FindStringSubmatch(s)
	if m == nil {
		return nil, false
	}
	num := m[2] + "." + m[3]
	if num == "." {
		num = "0"
	}
	v, ok := new(big.Rat).SetString(num)
	if !ok {
		return nil, false
	}
	pow := map[string]int64{"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
	binary := strings.HasSuffix(m[4], "i")
	switch e, ok := pow[m[4]]; {
	case ok:
		v.Mul(v, ratPow10(e))
	case binary:
		shift := map[string]uint{"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}[m[4]]
		v.Mul(v, new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), shift)))
	default:
		e, _ := strconv.ParseInt(m[4][1:], 10, 64)
		v.Mul(v, ratPow10(e))
	}
	nanos := new(big.Rat).Mul(v, ratPow10(9))
	if !nanos.IsInt() {
		n := new(big.Int).Quo(nanos.Num(), nanos.Denom())
		n.Add(n, bigOne)
		v.SetFrac(n, pow10(9))
	}
	if limit := new(big.Rat).SetInt(maxAllowed); binary && v.Cmp(limit) > 0 {
		v = limit
	}
	if m[1] == "-" {
		v.Neg(v)
	}
	return v, true
}

func ratPow10(e int64) *big.Rat {
	p := new(big.Rat).SetInt(pow10(abs64(e)))
	if e < 0 {
		return p.Inv(p)
	}
	return p
}

// TestParseMatchesNaiveReference: every accepted text has the value the
// naive regular-expression reading gives it.
func TestParseMatchesNaiveReference(t *testing.T) {
	var accepted int
	rapid.Check(t, func(t *rapid.T) {
		s := genText().Draw(t, "text")
		q, err := Parse(s)
		if err != nil {
			return
		}
		accepted++
		want, ok := refValue(s)
		if !ok {
			t.Fatalf("Parse(%q) accepted a text the reference cannot read", s)
		}
		if got := ratOf(q); got.Cmp(want) != 0 {
			t.Fatalf("Parse(%q) = %s, reference %s", s, got.RatString(), want.RatString())
		}
	})
	if accepted == 0 {
		t.Error("no generated text was accepted")
	}
}

// TestPrintedFormParsesBack: String and Canonical print texts that parse
// back to the same value and print the same again (a fixed point).
func TestPrintedFormParsesBack(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		q := genQuantity().Draw(t, "q")
		for _, s := range []string{q.String(), q.Canonical().String()} {
			back, err := Parse(s)
			if err != nil {
				t.Fatalf("printed %q does not parse: %v", s, err)
			}
			if back.Cmp(q) != 0 {
				t.Fatalf("printed %q parses to %s, a different value", s, ratOf(back).RatString())
			}
			if back.String() != s {
				t.Fatalf("printed %q prints again as %q", s, back.String())
			}
		}
	})
}

// TestArithmeticMatchesRationals: Add, Sub, Neg and Cmp agree with
// big.Rat, Add is commutative in value, and the result's format follows
// the zero rule.
func TestArithmeticMatchesRationals(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := genQuantity().Draw(t, "a")
		b := genQuantity().Draw(t, "b")
		if rapid.IntRange(0, 4).Draw(t, "negate") == 0 {
			b = a.Neg()
		}
		ra, rb := ratOf(a), ratOf(b)
		sum := a.Add(b)
		if got, want := ratOf(sum), new(big.Rat).Add(ra, rb); got.Cmp(want) != 0 {
			t.Fatalf("%s + %s = %s, want %s", a, b, got.RatString(), want.RatString())
		}
		if got, want := ratOf(a.Sub(b)), new(big.Rat).Sub(ra, rb); got.Cmp(want) != 0 {
			t.Fatalf("%s - %s = %s, want %s", a, b, got.RatString(), want.RatString())
		}
		if got, want := a.Cmp(b), ra.Cmp(rb); got != want {
			t.Fatalf("Cmp(%s, %s) = %d, want %d", a, b, got, want)
		}
		if !sum.Equal(b.Add(a)) {
			t.Fatalf("%s + %s != %s + %s", a, b, b, a)
		}
		wantFormat := a.Format()
		if a.IsZero() {
			wantFormat = b.Format()
		}
		if sum.Format() != wantFormat {
			t.Fatalf("format of %s + %s = %v, want %v", a, b, sum.Format(), wantFormat)
		}
		if sum.text != "" {
			t.Fatalf("sum %s kept a spelling", sum)
		}
	})
}

// TestScaledValueMatchesRationals: ScaledValue is the rational value
// rounded away from zero, and reports exactly when it does not fit.
func TestScaledValueMatchesRationals(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		q := genQuantity().Draw(t, "q")
		scale := int32(rapid.IntRange(-12, 21).Draw(t, "scale"))
		v := new(big.Rat).Mul(ratOf(q), ratPow10(-int64(scale)))
		want := new(big.Int).Quo(v.Num(), v.Denom()) // truncated
		if !v.IsInt() {
			want.Add(want, big.NewInt(int64(v.Sign())))
		}
		got, ok := q.ScaledValue(scale)
		if ok != want.IsInt64() {
			t.Fatalf("ScaledValue(%s, %d) ok = %v, want %v (value %s)", q, scale, ok, want.IsInt64(), want)
		}
		if ok && got != want.Int64() {
			t.Fatalf("ScaledValue(%s, %d) = %d, want %s", q, scale, got, want)
		}
	})
}

// genList draws a list over a few names, nil a sixth of the time.
func genList(t *rapid.T, label string) List {
	if rapid.IntRange(0, 5).Draw(t, label+"Nil") == 0 {
		return nil
	}
	l := List{}
	for i, n := 0, rapid.IntRange(0, 3).Draw(t, label+"Len"); i < n; i++ {
		name := rapid.SampledFrom([]string{"cpu", "memory", "hugepages-2Mi", "example.com/gpu"}).Draw(t, label+"Name")
		l[name] = genQuantity().Draw(t, label+"Quantity")
	}
	return l
}

func genPod() *rapid.Generator[PodResources] {
	return rapid.Custom(func(t *rapid.T) PodResources {
		var p PodResources
		for i, n := 0, rapid.IntRange(0, 3).Draw(t, "containers"); i < n; i++ {
			p.Containers = append(p.Containers, Container{Requests: genList(t, "req"), Limits: genList(t, "lim")})
		}
		for i, n := 0, rapid.IntRange(0, 3).Draw(t, "inits"); i < n; i++ {
			p.InitContainers = append(p.InitContainers, Container{Requests: genList(t, "ireq"), Limits: genList(t, "ilim"), Sidecar: rapid.Bool().Draw(t, "sidecar")})
		}
		if rapid.Bool().Draw(t, "overhead") {
			p.Overhead = genList(t, "overhead")
		}
		if rapid.Bool().Draw(t, "podLevel") {
			p.Requests = genList(t, "pod")
		}
		return p
	})
}

// render prints a pod completely, spellings included, to detect changes.
func render(p PodResources) string {
	var sb strings.Builder
	for _, cs := range [][]Container{p.Containers, p.InitContainers} {
		for _, c := range cs {
			sb.WriteString(c.Requests.String() + "|" + c.Limits.String() + "|" + strconv.FormatBool(c.Sidecar) + ";")
		}
		sb.WriteString("/")
	}
	return sb.String() + p.Overhead.String() + "/" + p.Requests.String()
}

// sameValues reports whether two lists have the same names and values,
// whatever the formats.
func sameValues(a, b List) bool {
	if len(a) != len(b) {
		return false
	}
	for name, q := range a {
		if r, ok := b[name]; !ok || !q.Equal(r) {
			return false
		}
	}
	return true
}

// TestPodRequestsMetamorphic: PodRequests and EffectiveRequests never
// change their input; the order of regular containers changes no value;
// an extra regular container with non-negative requests lowers nothing.
func TestPodRequestsMetamorphic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genPod().Draw(t, "pod")
		before := render(p)
		got := PodRequests(p)
		EffectiveRequests(p)
		Default(p)
		if after := render(p); after != before {
			t.Fatalf("input changed:\n%s\n%s", before, after)
		}

		shuffled := p
		shuffled.Containers = rapid.Permutation(p.Containers).Draw(t, "order")
		if other := PodRequests(shuffled); !sameValues(got, other) {
			t.Fatalf("container order changed requests: %s vs %s", got, other)
		}

		extra := genList(t, "extra")
		for name, q := range extra {
			if q.Sign() < 0 {
				delete(extra, name)
			}
		}
		grown := p
		grown.Containers = append(append([]Container(nil), p.Containers...), Container{Requests: extra})
		more := PodRequests(grown)
		for name, q := range got {
			if podLevelSet(p.Requests) && podLevelResource(name) {
				continue // pod-level requests decide these
			}
			if m, ok := more[name]; !ok || m.Cmp(q) < 0 {
				t.Fatalf("adding container %s lowered %s from %s to %v", extra, name, q, m)
			}
		}
	})
}
