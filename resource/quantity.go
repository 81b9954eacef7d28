package resource

import (
	"math/big"
)

// Format says how a [Quantity] is printed. It is remembered from the text a
// Quantity was parsed from (see [Parse]) and carried through arithmetic (see
// [Quantity.Add]).
type Format uint8

const (
	// DecimalExponent prints a power of ten as "e" and an exponent: 12e6.
	DecimalExponent Format = iota + 1
	// BinarySI prints a power of 1024 as Ki, Mi, Gi, Ti, Pi or Ei: 12Mi.
	BinarySI
	// DecimalSI prints a power of 1000 as n, u, m, k, M, G, T, P or E: 12M.
	DecimalSI
)

// String returns the name apimachinery uses for the format ("BinarySI",
// ...), or "" for the zero [Format] and any value outside the constants.
func (f Format) String() string {
	switch f {
	case DecimalExponent:
		return "DecimalExponent"
	case BinarySI:
		return "BinarySI"
	case DecimalSI:
		return "DecimalSI"
	}
	return ""
}

// Quantity is an exact decimal number with a [Format], the value type of
// Kubernetes resource requests, limits and capacities. It is an immutable
// value: methods return new Quantities and never change their receiver or
// arguments, so Quantities may be copied and shared freely.
//
// The zero Quantity is 0 with no [Format]; it prints as "0", and adding to it
// adopts the other operand's Format. Compare Quantities with Cmp or Equal,
// never with ==: equal values may be held in different forms (1 and 1000m)
// and remember different spellings.
type Quantity struct {
	// The value is unscaled × 10^exp. unscaled is small when big is nil and
	// big otherwise; big never fits an int64 (see make) and is never
	// modified once a Quantity holds it.
	small int64
	big   *big.Int
	exp   int64
	f     Format
	// text is the input Parse kept because apimachinery prints it as
	// written (see doc.go, Printing); "" means print the canonical form.
	text string
}

// makeBig returns the Quantity u × 10^exp in format f, holding u as an
// int64 when it fits. u is owned by the result from now on.
func makeBig(u *big.Int, exp int64, f Format) Quantity {
	if u.IsInt64() {
		return Quantity{small: u.Int64(), exp: exp, f: f}
	}
	return Quantity{big: u, exp: exp, f: f}
}

// unscaledBig returns the unscaled value as a new big.Int the caller may
// modify.
func (q Quantity) unscaledBig() *big.Int {
	if q.big != nil {
		return new(big.Int).Set(q.big)
	}
	return big.NewInt(q.small)
}

// NewQuantity returns the integer v in format f.
func NewQuantity(v int64, f Format) Quantity {
	return Quantity{small: v, f: f}
}

// NewMilliQuantity returns v thousandths in format f: NewMilliQuantity(1500,
// [DecimalSI]) is 1.5 and prints as 1500m.
func NewMilliQuantity(v int64, f Format) Quantity {
	return Quantity{small: v, exp: -3, f: f}
}

// Format returns the format q prints in. A zero [Quantity] keeps the format
// it was parsed with (Parse("0Ki") is [BinarySI]), but prints as "0" whatever
// its format.
func (q Quantity) Format() Format { return q.f }

// WithFormat returns q in format f: the same value, printed as f prints it
// and without a parsed spelling. It carries a format that a printed text
// does not show, as when converting another library's quantity through
// its text: apimachinery prints 0.5Ki as "512", which [Parse] reads as
// [DecimalSI], while the quantity is [BinarySI].
func (q Quantity) WithFormat(f Format) Quantity {
	q.f = f
	q.text = ""
	return q
}

// Sign returns -1, 0 or +1 as q is negative, zero or positive.
func (q Quantity) Sign() int {
	if q.big != nil {
		return q.big.Sign()
	}
	switch {
	case q.small < 0:
		return -1
	case q.small > 0:
		return 1
	}
	return 0
}

// IsZero reports whether q is 0.
func (q Quantity) IsZero() bool { return q.big == nil && q.small == 0 }
