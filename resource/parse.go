package resource

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
)

// The three ways a text can fail to be a quantity. They match
// apimachinery's ErrFormatWrong, ErrNumeric and ErrSuffix one for one; a
// [*ParseError] wraps exactly one of them, so errors.Is tells them apart.
var (
	// ErrSyntax: the text is empty or is not a number followed by a
	// suffix-shaped tail (letters from "eEinumkKMGTP", an optional sign,
	// digits).
	ErrSyntax = errors.New("not a quantity")
	// ErrNumber: the number has no digit and the value needs the exact
	// decimal path, which requires one (".e-10", ".Pi"; see doc.go).
	ErrNumber = errors.New("number has no digits")
	// ErrSuffix: the tail is not a known suffix ("1ki", "1e", "1Mi3").
	ErrSuffix = errors.New("unknown suffix")
)

// ParseError says why [Parse] rejected a text.
type ParseError struct {
	// Text is the input, unchanged.
	Text string
	// Err is ErrSyntax, ErrNumber or ErrSuffix.
	Err error
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("resource: cannot parse quantity %q: %v", e.Text, e.Err)
}

// Unwrap returns e.Err.
func (e *ParseError) Unwrap() error { return e.Err }

// MustParse is [Parse] for texts known to be valid, such as constants in
// tests and examples; it panics when Parse fails.
func MustParse(s string) Quantity {
	q, err := Parse(s)
	if err != nil {
		panic("resource.MustParse: " + err.Error())
	}
	return q
}

// suffixKind says what a suffix multiplies by.
type suffixKind uint8

const (
	decimalSuffix suffixKind = iota + 1 // × 10^exp, DecimalSI or DecimalExponent
	binarySuffix                        // × 2^exp, BinarySI
)

// lookupSuffix interprets the tail of a quantity. A written exponent is read
// as an int64 and then truncated to 32 bits, as apimachinery does (so
// 1e4294967296 is 1).
func lookupSuffix(s string) (kind suffixKind, exp int32, f Format, ok bool) {
	switch s {
	case "":
		return decimalSuffix, 0, DecimalSI, true
	case "n":
		return decimalSuffix, -9, DecimalSI, true
	case "u":
		return decimalSuffix, -6, DecimalSI, true
	case "m":
		return decimalSuffix, -3, DecimalSI, true
	case "k":
		return decimalSuffix, 3, DecimalSI, true
	case "M":
		return decimalSuffix, 6, DecimalSI, true
	case "G":
		return decimalSuffix, 9, DecimalSI, true
	case "T":
		return decimalSuffix, 12, DecimalSI, true
	case "P":
		return decimalSuffix, 15, DecimalSI, true
	case "E":
		return decimalSuffix, 18, DecimalSI, true
	case "Ki":
		return binarySuffix, 10, BinarySI, true
	case "Mi":
		return binarySuffix, 20, BinarySI, true
	case "Gi":
		return binarySuffix, 30, BinarySI, true
	case "Ti":
		return binarySuffix, 40, BinarySI, true
	case "Pi":
		return binarySuffix, 50, BinarySI, true
	case "Ei":
		return binarySuffix, 60, BinarySI, true
	}
	if len(s) > 1 && (s[0] == 'e' || s[0] == 'E') {
		v, err := strconv.ParseInt(s[1:], 10, 64)
		if err != nil {
			return 0, 0, 0, false
		}
		return decimalSuffix, int32(v), DecimalExponent, true
	}
	return 0, 0, 0, false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// isSuffixLetter reports whether c may start a suffix: one of
// "eEinumkKMGTP".
func isSuffixLetter(c byte) bool {
	switch c {
	case 'e', 'E', 'i', 'n', 'u', 'm', 'k', 'K', 'M', 'G', 'T', 'P':
		return true
	}
	return false
}

// scanned is a text split into its parts by scan.
type scanned struct {
	neg bool
	// intDigits are the digits before the point without leading zeros;
	// fracDigits those after it.
	intDigits, fracDigits string
	// hasDigit says whether the number had any digit at all (leading
	// zeros included).
	hasDigit bool
	suffix   string
}

// scan splits s into sign, digits and suffix tail. The second result is
// false when s has only a sign and zeros ("-", "+000", "00"), which is 0.
func scan(s string, p *scanned) (nonzero bool, err error) {
	i := 0
	if s[0] == '+' || s[0] == '-' {
		p.neg = s[0] == '-'
		i++
	}
	start := i
	for i < len(s) && s[i] == '0' {
		i++
	}
	if i == len(s) {
		return false, nil
	}
	p.hasDigit = i > start
	j := i
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	p.intDigits = s[i:j]
	if j < len(s) && s[j] == '.' {
		j++
		k := j
		for k < len(s) && isDigit(s[k]) {
			k++
		}
		p.fracDigits = s[j:k]
		j = k
	}
	p.hasDigit = p.hasDigit || p.intDigits != "" || p.fracDigits != ""
	// The tail: suffix letters, an optional sign, digits, and nothing else.
	k := j
	for k < len(s) && isSuffixLetter(s[k]) {
		k++
	}
	if k < len(s) && (s[k] == '+' || s[k] == '-') {
		k++
	}
	for k < len(s) && isDigit(s[k]) {
		k++
	}
	if k != len(s) {
		return false, ErrSyntax
	}
	p.suffix = s[j:]
	return true, nil
}

// maxFastDigits is the most digits the int64 path reads (10^18 < 2^63).
const maxFastDigits = 18

// Parse reads a quantity the way apimachinery's resource.ParseQuantity
// does: it accepts and rejects the same texts, yields the same value and
// format, and remembers the text when apimachinery would print it as
// written. doc.go lists the rules. Parse never panics; a rejected text
// gives a [*ParseError].
func Parse(s string) (Quantity, error) {
	if s == "" {
		return Quantity{}, &ParseError{Text: s, Err: ErrSyntax}
	}
	var p scanned
	nonzero, err := scan(s, &p)
	if err != nil {
		return Quantity{}, &ParseError{Text: s, Err: err}
	}
	if !nonzero {
		// Only a sign and zeros: 0, DecimalSI, printed "0".
		return Quantity{f: DecimalSI}, nil
	}
	kind, exp, f, ok := lookupSuffix(p.suffix)
	if !ok {
		return Quantity{}, &ParseError{Text: s, Err: ErrSuffix}
	}
	intDigits := p.intDigits
	if intDigits == "" {
		intDigits = "0"
	}
	nd := len(intDigits) + len(p.fracDigits)
	if q, ok := parseFast(s, &p, intDigits, nd, kind, exp, f); ok {
		return q, nil
	}
	if !p.hasDigit {
		return Quantity{}, &ParseError{Text: s, Err: ErrNumber}
	}
	return parseExact(&p, kind, exp, f), nil
}

// parseFast is apimachinery's int64 path: it applies to decimal numbers of
// at most 18 significant-position digits whose value is a multiple of 10^-9,
// and to binary-suffixed integers small enough not to overflow. It keeps the
// text when apimachinery considers it canonical (doc.go, Printing).
func parseFast(s string, p *scanned, intDigits string, nd int, kind suffixKind, exp int32, f Format) (Quantity, bool) {
	switch kind {
	case decimalSuffix:
		if maxFastDigits-int32(nd) < 0 {
			return Quantity{}, false
		}
		scale := exp - int32(len(p.fracDigits)) // wraps like apimachinery's int32
		if scale < -9 {
			return Quantity{}, false
		}
		v := digitsValue(intDigits, p.fracDigits)
		if p.neg {
			v = -v
		}
		q := Quantity{small: v, exp: int64(scale), f: f}
		if scale%3 == 0 && intDigits[0] != '0' && !hasZeroTail(intDigits, p.fracDigits) {
			q.text = s
		}
		return q, true
	default:
		if p.fracDigits != "" || 14-int32(len(intDigits))-exp*3/10 < 0 {
			return Quantity{}, false
		}
		v := digitsValue(intDigits, "")
		q := Quantity{small: v << exp, f: f}
		if p.neg {
			q.small = -q.small
		}
		if v&7 != 0 {
			q.text = s
		}
		return q, true
	}
}

// hasZeroTail reports whether a followed by b ends in "000".
func hasZeroTail(a, b string) bool {
	if len(a)+len(b) < 3 {
		return false
	}
	for i := 1; i <= 3; i++ {
		c := byte(0)
		if i <= len(b) {
			c = b[len(b)-i]
		} else {
			c = a[len(a)-(i-len(b))]
		}
		if c != '0' {
			return false
		}
	}
	return true
}

// digitsValue returns the number spelled by a then b, which together hold
// at most 18 ASCII digits.
func digitsValue(a, b string) int64 {
	var v int64
	for i := 0; i < len(a); i++ {
		v = v*10 + int64(a[i]-'0')
	}
	for i := 0; i < len(b); i++ {
		v = v*10 + int64(b[i]-'0')
	}
	return v
}

// maxAllowed is the largest magnitude a BinarySI quantity is parsed to;
// larger ones are capped to it.
var maxAllowed = big.NewInt(math.MaxInt64)

// parseExact is apimachinery's exact decimal path, for every text the int64
// path declines: many digits, fractions finer than 10^-9, binary fractions
// and large binary values. It rounds the magnitude up to a multiple of
// 10^-9, caps BinarySI at 2^63-1, and turns BinarySI values strictly
// between -1 and 1 into DecimalSI.
func parseExact(p *scanned, kind suffixKind, exp int32, f Format) Quantity {
	u := new(big.Int)
	digits := p.intDigits + p.fracDigits
	if digits != "" {
		u.SetString(digits, 10) // only ASCII digits: cannot fail
	}
	var e int64
	switch kind {
	case decimalSuffix:
		// apimachinery keeps the scale (the negated exponent) as an int32
		// and adds the written exponent to it with wrapping.
		scale := int32(len(p.fracDigits)) + -exp
		e = -int64(scale)
	default:
		u.Lsh(u, uint(exp))
		e = -int64(len(p.fracDigits))
	}
	if u.Sign() != 0 && e < -9 {
		u = ceilDivPow10(u, -9-e)
		e = -9
	}
	if f == BinarySI {
		if cmpAbsPow10(u, e, maxAllowed) > 0 {
			u.Set(maxAllowed)
			e = 0
		}
		if u.Sign() != 0 && cmpAbsPow10(u, e, bigOne) < 0 {
			f = DecimalSI
		}
	}
	if p.neg {
		u.Neg(u)
	}
	return makeBig(u, e, f)
}

var (
	bigOne  = big.NewInt(1)
	bigTen  = big.NewInt(10)
	big1024 = big.NewInt(1024)
)

// pow10 returns 10^n as a new big.Int.
func pow10(n int64) *big.Int {
	return new(big.Int).Exp(bigTen, big.NewInt(n), nil)
}

// ceilDivPow10 returns ⌈u / 10^n⌉ for a non-negative u and n > 0,
// modifying u. A u with fewer than n digits gives 1 without computing 10^n.
func ceilDivPow10(u *big.Int, n int64) *big.Int {
	if u.Sign() == 0 {
		return u
	}
	if int64(len(u.Text(10))) <= n {
		return u.SetInt64(1)
	}
	d := pow10(n)
	r := new(big.Int)
	u.QuoRem(u, d, r)
	if r.Sign() != 0 {
		u.Add(u, bigOne)
	}
	return u
}

// cmpAbsPow10 compares |u| × 10^e with the non-negative integer x, for
// -9 <= e <= 0 (a rounded BinarySI value) or u = 0.
func cmpAbsPow10(u *big.Int, e int64, x *big.Int) int {
	if u.Sign() == 0 {
		return -x.Sign()
	}
	a := new(big.Int).Abs(u)
	b := new(big.Int).Mul(x, pow10(-e))
	return a.Cmp(b)
}
