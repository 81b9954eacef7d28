// Package decimal parses base-10 integers without allocating, for the
// matchers that compare label and taint values as numbers (Gt, Lt). Each
// caller decides the sign and form it accepts; this package only turns a
// run of digits into an int64.
package decimal

import "strings"

// Magnitude returns the int64 whose absolute value the ASCII digits spell,
// negated when neg is set. It fails on an empty string, any non-digit byte,
// or a value outside the int64 range (so "9223372036854775808" fails, while
// the same digits with neg give math.MinInt64).
func Magnitude(digits string, neg bool) (int64, bool) {
	if digits == "" {
		return 0, false
	}
	limit := uint64(1<<63 - 1)
	if neg {
		limit = 1 << 63
	}
	var n uint64
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if n > (limit-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	if neg {
		return int64(-n), true // -(2^63) wraps to MinInt64, as wanted
	}
	return int64(n), true
}

// Canonical splits s, a base-10 integer in canonical form ("0", or
// an optional '-' followed by a digit 1-9 and more digits), into its
// digits and sign. Leading zeros, '+', spaces, "-0" and the empty string
// are not canonical (ok false). The range is not checked.
func Canonical(s string) (digits string, neg, ok bool) {
	if s == "0" {
		return s, false, true
	}
	digits, neg = strings.CutPrefix(s, "-")
	if digits == "" || digits[0] < '1' || digits[0] > '9' {
		return "", false, false
	}
	for i := 1; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return "", false, false
		}
	}
	return digits, neg, true
}
