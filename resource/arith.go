package resource

import (
	"math"
	"math/big"
	"math/bits"
)

// pow10s[i] is 10^i for the exponents an int64 holds.
var pow10s = [...]int64{
	1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
	1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
}

// mulPow10 returns v × 10^d for d >= 0, or false if it overflows an int64.
func mulPow10(v int64, d int64) (int64, bool) {
	if v == 0 || d == 0 {
		return v, true
	}
	if d >= int64(len(pow10s)) {
		return 0, false
	}
	m := uint64(v)
	if v < 0 {
		m = uint64(-v) // MinInt64 stays 1<<63, as wanted
	}
	hi, lo := bits.Mul64(m, uint64(pow10s[d]))
	if hi != 0 || lo > math.MaxInt64 {
		return 0, false
	}
	if v < 0 {
		return -int64(lo), true
	}
	return int64(lo), true
}

// add64 returns a+b, or false if it overflows.
func add64(a, b int64) (int64, bool) {
	c := a + b
	if (c > a) != (b > 0) {
		return 0, false
	}
	return c, true
}

func cmp64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// numDigits returns the number of decimal digits of |u|, counting 0 as one
// digit.
func numDigits(u *big.Int) int64 {
	n := int64(len(u.Text(10)))
	if u.Sign() < 0 {
		n--
	}
	return n
}

// alignGap is the largest exponent difference Cmp bridges by multiplying
// without first comparing orders of magnitude.
const alignGap = 64

// Cmp returns -1, 0 or +1 as q is less than, equal to or greater than y.
// It compares exact values; formats and spellings play no part.
func (q Quantity) Cmp(y Quantity) int {
	if q.big == nil && y.big == nil {
		switch {
		case q.exp == y.exp:
			return cmp64(q.small, y.small)
		case q.exp > y.exp:
			if a, ok := mulPow10(q.small, q.exp-y.exp); ok {
				return cmp64(a, y.small)
			}
		default:
			if b, ok := mulPow10(y.small, y.exp-q.exp); ok {
				return cmp64(q.small, b)
			}
		}
	}
	sq, sy := q.Sign(), y.Sign()
	if sq != sy || sq == 0 {
		return cmp64(int64(sq), int64(sy))
	}
	return sq * cmpMagnitude(q, y)
}

// cmpMagnitude compares |q| with |y|. Exponents far apart are compared by
// order of magnitude first, so that 1e2000000000 against 1 does not build a
// two-billion-digit number.
func cmpMagnitude(q, y Quantity) int {
	a, b := q.unscaledBig(), y.unscaledBig()
	a.Abs(a)
	b.Abs(b)
	gap := q.exp - y.exp
	if gap > alignGap || gap < -alignGap {
		da, db := numDigits(a)+q.exp, numDigits(b)+y.exp
		if da != db {
			return cmp64(da, db)
		}
	}
	switch {
	case gap > 0:
		a.Mul(a, pow10(gap))
	case gap < 0:
		b.Mul(b, pow10(-gap))
	}
	return a.Cmp(b)
}

// Equal reports whether q and y have the same value (Cmp == 0). It lets
// github.com/google/go-cmp compare Quantities.
func (q Quantity) Equal(y Quantity) bool { return q.Cmp(y) == 0 }

// Add returns q + y, exactly. The sum has q's format, unless q is zero, in
// which case it has y's (apimachinery's rule, so 0 + 1Ki prints 1Ki and
// 1Ki + 1 prints 1025). The sum never keeps a parsed spelling.
func (q Quantity) Add(y Quantity) Quantity {
	if q.big == nil && y.big == nil {
		f := q.f
		if q.small == 0 {
			f = y.f
		}
		switch {
		case y.small == 0:
			return Quantity{small: q.small, exp: q.exp, f: f}
		case q.small == 0:
			return Quantity{small: y.small, exp: y.exp, f: f}
		case q.exp == y.exp:
			if s, ok := add64(q.small, y.small); ok {
				return Quantity{small: s, exp: q.exp, f: f}
			}
		case q.exp > y.exp:
			if a, ok := mulPow10(q.small, q.exp-y.exp); ok {
				if s, ok := add64(a, y.small); ok {
					return Quantity{small: s, exp: y.exp, f: f}
				}
			}
		default:
			if b, ok := mulPow10(y.small, y.exp-q.exp); ok {
				if s, ok := add64(q.small, b); ok {
					return Quantity{small: s, exp: q.exp, f: f}
				}
			}
		}
	}
	f := q.f
	if q.IsZero() {
		f = y.f
	}
	switch {
	case y.IsZero():
		q.text, q.f = "", f
		return q
	case q.IsZero():
		y.text, y.f = "", f
		return y
	}
	a, b := q.unscaledBig(), y.unscaledBig()
	e := q.exp
	switch {
	case q.exp > y.exp:
		a.Mul(a, pow10(q.exp-y.exp))
		e = y.exp
	case q.exp < y.exp:
		b.Mul(b, pow10(y.exp-q.exp))
	}
	return makeBig(a.Add(a, b), e, f)
}

// Neg returns -q in q's format. It does not keep a parsed spelling.
func (q Quantity) Neg() Quantity {
	q.text = ""
	switch {
	case q.big != nil:
		return makeBig(new(big.Int).Neg(q.big), q.exp, q.f)
	case q.small == math.MinInt64:
		return makeBig(new(big.Int).Neg(big.NewInt(q.small)), q.exp, q.f)
	}
	q.small = -q.small
	return q
}

// Sub returns q - y, exactly, with the format rule of Add: q's format,
// or y's when q is zero.
func (q Quantity) Sub(y Quantity) Quantity { return q.Add(y.Neg()) }

// ScaledValue returns q / 10^scale rounded away from zero: ScaledValue(0)
// is the integer value, ScaledValue(-3) the value in thousandths. It
// reports false when the result does not fit an int64, and then returns
// math.MaxInt64 or math.MinInt64 with q's sign.
func (q Quantity) ScaledValue(scale int32) (int64, bool) {
	d := q.exp - int64(scale)
	if q.big == nil {
		switch {
		case q.small == 0:
			return 0, true
		case d >= 0:
			if v, ok := mulPow10(q.small, d); ok {
				return v, true
			}
			return clamp(q.Sign()), false
		case -d >= int64(len(pow10s)):
			return int64(q.Sign()), true
		}
		p := pow10s[-d]
		v := q.small / p
		if q.small%p != 0 {
			v += int64(q.Sign())
		}
		return v, true
	}
	u := q.unscaledBig()
	neg := u.Sign() < 0
	u.Abs(u)
	switch {
	case d > 19: // |u| >= 1, so the result is at least 10^20
		return clamp(q.Sign()), false
	case d >= 0:
		u.Mul(u, pow10(d))
	default:
		u = ceilDivPow10(u, -d)
	}
	if neg {
		u.Neg(u)
	}
	if !u.IsInt64() {
		return clamp(q.Sign()), false
	}
	return u.Int64(), true
}

func clamp(sign int) int64 {
	if sign < 0 {
		return math.MinInt64
	}
	return math.MaxInt64
}

// Value returns q rounded away from zero to an integer, clamped to the
// int64 range (apimachinery's Value, which overflows silently instead).
func (q Quantity) Value() int64 {
	v, _ := q.ScaledValue(0)
	return v
}

// MilliValue returns q × 1000 rounded away from zero, clamped to the int64
// range (apimachinery's MilliValue, which overflows silently instead).
func (q Quantity) MilliValue() int64 {
	v, _ := q.ScaledValue(-3)
	return v
}

// roundUp returns q rounded away from zero to a multiple of 10^exp. A q
// that is already a multiple comes back unchanged, spelling included; a
// rounded one loses its spelling. This is apimachinery's Quantity.RoundUp,
// which the API server applies with exp -3 to every resource list it
// stores.
func (q Quantity) roundUp(exp int64) Quantity {
	if q.exp >= exp || q.IsZero() {
		return q
	}
	d := exp - q.exp
	if q.big == nil && d < int64(len(pow10s)) {
		p := pow10s[d]
		if q.small%p == 0 {
			return q
		}
		v := q.small/p + int64(q.Sign())
		return Quantity{small: v, exp: exp, f: q.f}
	}
	u := q.unscaledBig()
	neg := u.Sign() < 0
	u.Abs(u)
	if d <= numDigits(u) {
		r := new(big.Int)
		if _, r = new(big.Int).QuoRem(u, pow10(d), r); r.Sign() == 0 {
			return q
		}
	}
	u = ceilDivPow10(u, d)
	if neg {
		u.Neg(u)
	}
	return makeBig(u, exp, q.f)
}
