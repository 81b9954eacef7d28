package resource

import (
	"math/big"
	"strconv"
)

// maxWrittenExp is the largest multiple of 3 that fits an int32: the
// largest exponent String writes.
const maxWrittenExp = 2147483646

var (
	// decimalSI[(e+9)/3] is the DecimalSI suffix of 10^e, for e from -9
	// to 18 in steps of 3.
	decimalSI = [...]string{"n", "u", "m", "", "k", "M", "G", "T", "P", "E"}
	// binarySI[k] is the BinarySI suffix of 1024^k.
	binarySI = [...]string{"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}
)

// String returns q as Kubernetes prints it (apimachinery's Quantity.String;
// doc.go, Printing, has the rules). A parsed spelling that apimachinery
// keeps is returned as written ("+1", "1.500", "1E3"); everything else is
// the canonical form ("1.5Gi" prints "1536Mi", "1000m" prints "1").
func (q Quantity) String() string {
	if q.text != "" {
		return q.text
	}
	var buf [48]byte
	return string(q.appendCanonical(buf[:0]))
}

// Canonical returns q without its parsed spelling, so that String prints the
// canonical form: Canonical of "+1" prints "1", of "1E3" prints "1e3". The
// value and format are unchanged.
func (q Quantity) Canonical() Quantity {
	q.text = ""
	return q
}

// appendCanonical appends the canonical form of q to b.
func (q Quantity) appendCanonical(b []byte) []byte {
	if q.IsZero() {
		return append(b, '0')
	}
	if q.f == BinarySI {
		if out, ok := q.appendBinary(b); ok {
			return out
		}
		return q.appendDecimal(b, DecimalSI)
	}
	if q.f == DecimalSI {
		return q.appendDecimal(b, DecimalSI)
	}
	return q.appendDecimal(b, DecimalExponent)
}

// appendBinary appends q as an integer times a power of 1024 with a BinarySI
// suffix. It declines (false) values strictly between -1024 and 1024 and
// values that are not integers, which print as DecimalSI.
func (q Quantity) appendBinary(b []byte) ([]byte, bool) {
	if q.big == nil {
		m, ok := q.small, true
		switch {
		case q.exp > 0:
			m, ok = mulPow10(q.small, q.exp)
		case q.exp < 0:
			if -q.exp >= int64(len(pow10s)) || q.small%pow10s[-q.exp] != 0 {
				return b, false
			}
			m = q.small / pow10s[-q.exp]
		}
		if ok {
			if -1024 < m && m < 1024 {
				return b, false
			}
			k := 0
			for k < len(binarySI)-1 && m%1024 == 0 {
				m /= 1024
				k++
			}
			b = strconv.AppendInt(b, m, 10)
			return append(b, binarySI[k]...), true
		}
	}
	m := q.unscaledBig()
	switch {
	case q.exp > 0:
		m.Mul(m, pow10(q.exp))
	case q.exp < 0:
		r := new(big.Int)
		if m.QuoRem(m, pow10(-q.exp), r); r.Sign() != 0 {
			return b, false
		}
	}
	if m.CmpAbs(big1024) < 0 {
		return b, false
	}
	k := 0
	quo, rem := new(big.Int), new(big.Int)
	for k < len(binarySI)-1 {
		if quo.QuoRem(m, big1024, rem); rem.Sign() != 0 {
			break
		}
		m, quo = quo, m
		k++
	}
	b = m.Append(b, 10)
	return append(b, binarySI[k]...), true
}

// appendDecimal appends q as an integer times a power of ten whose exponent
// is a multiple of three, the largest such that no fraction remains, with
// the suffix of format f (DecimalSI or DecimalExponent).
func (q Quantity) appendDecimal(b []byte, f Format) []byte {
	start := len(b)
	if q.big == nil {
		b = strconv.AppendInt(b, q.small, 10)
	} else {
		b = q.big.Append(b, 10)
	}
	// Move trailing zeros into the exponent, then take back up to two so
	// that the exponent is a multiple of three.
	e := q.exp
	end := len(b)
	for end-1 > start && b[end-1] == '0' {
		end--
		e++
	}
	b = b[:end]
	for e%3 != 0 {
		b = append(b, '0')
		e--
	}
	if f == DecimalSI {
		if e > 18 {
			// apimachinery has no suffix for 10^21 and up and prints the
			// number without one, changing the value; print it exactly
			// with E instead (doc.go, Divergences).
			for ; e > 18; e-- {
				b = append(b, '0')
			}
		}
		if e >= -9 {
			return append(b, decimalSI[(e+9)/3]...)
		}
		// Below 10^-9 a DecimalSI value cannot arise (Parse rounds to
		// 10^-9 and arithmetic keeps that); print it exactly regardless.
	}
	if e == 0 {
		return b
	}
	if e > maxWrittenExp {
		// Parse truncates written exponents to 32 bits; keep ours below
		// that so that every printed value parses back to itself.
		for ; e > maxWrittenExp; e-- {
			b = append(b, '0')
		}
	}
	b = append(b, 'e')
	return strconv.AppendInt(b, e, 10)
}
