package overhead

import (
	"math"
	"slices"
	"strconv"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/selector"
)

// domain is what a node template allows for one label key: absence, and a
// set of present values. The set is either a finite sorted list (values)
// or every string except excl, further limited to the integers strictly
// between lo and hi when hasLo or hasHi is set. Values are any strings:
// label syntax plays no part, as it plays none in matching.
type domain struct {
	absent   bool
	anyValue bool
	values   []string // when !anyValue
	excl     []string // when anyValue, sorted
	hasLo    bool
	hasHi    bool
	lo, hi   int64
}

// fullDomain is a key the template says nothing about: absent or any value.
var fullDomain = domain{absent: true, anyValue: true}

// ranged reports that present values must be integers.
func (d *domain) ranged() bool { return d.hasLo || d.hasHi }

// inRange reports whether the integer n is allowed by d's bounds.
func (d *domain) inRange(n int64) bool {
	return (!d.hasLo || n > d.lo) && (!d.hasHi || n < d.hi)
}

// has reports whether the present value v is allowed.
func (d *domain) has(v string) bool {
	if !d.anyValue {
		return sortedHas(d.values, v)
	}
	if sortedHas(d.excl, v) {
		return false
	}
	if d.ranged() {
		n, err := strconv.ParseInt(v, 10, 64)
		return err == nil && d.inRange(n)
	}
	return true
}

// present reports whether some present value is allowed. Exclusions never
// empty an integer range: every integer has endless spellings ("5", "05").
func (d *domain) present() bool {
	if !d.anyValue {
		return len(d.values) > 0
	}
	if d.hasLo && d.lo == math.MaxInt64 || d.hasHi && d.hi == math.MinInt64 {
		return false
	}
	return !(d.hasLo && d.hasHi && d.lo >= d.hi-1)
}

// empty reports that no node of the template can carry the key in any way.
func (d *domain) empty() bool { return !d.absent && !d.present() }

// newDomain is what the well-formed requirements rs, all on one key,
// allow together. Their order plays no part; each value list is sorted
// once, so that long lists cost n log n, never n² (docs/never-harm.md,
// N15).
func newDomain(rs []selector.Requirement) domain {
	d := fullDomain
	var in [][]string // each In list, as a sorted set
	var notIn []string
	doesNotExist := false
	for i := range rs {
		r := &rs[i]
		switch r.Operator {
		case api.SelectorOpIn:
			d.absent = false
			in = append(in, sortedSet(r.Values))
		case api.SelectorOpNotIn:
			notIn = append(notIn, r.Values...)
		case api.SelectorOpExists:
			d.absent = false
		case api.SelectorOpDoesNotExist:
			doesNotExist = true
		case api.SelectorOpGt, api.SelectorOpLt:
			d.absent = false
			b, _ := strconv.ParseInt(r.Values[0], 10, 64)
			if r.Operator == api.SelectorOpGt && (!d.hasLo || b > d.lo) {
				d.hasLo, d.lo = true, b
			}
			if r.Operator == api.SelectorOpLt && (!d.hasHi || b < d.hi) {
				d.hasHi, d.hi = true, b
			}
		}
	}
	d.excl = sortedSet(notIn)
	switch {
	case doesNotExist:
		d.anyValue, d.values, d.excl, d.hasLo, d.hasHi = false, nil, nil, false, false
	case len(in) > 0:
		// The present values are the In lists' intersection, less what
		// the other requirements rule out.
		vs := in[0]
		for _, l := range in[1:] {
			vs = slices.DeleteFunc(vs, func(v string) bool { return !sortedHas(l, v) })
		}
		d.values = slices.DeleteFunc(vs, func(v string) bool { return !d.has(v) })
		d.anyValue, d.excl, d.hasLo, d.hasHi = false, nil, false, false
	}
	if len(d.values) == 0 {
		d.values = nil
	}
	return d
}

// sortedHas reports whether the sorted list vs holds v.
func sortedHas(vs []string, v string) bool {
	_, ok := slices.BinarySearch(vs, v)
	return ok
}

// intCompare is the Gt (gt) or Lt test of the value v against bound b.
func intCompare(v string, gt bool, b int64) bool {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return false
	}
	if gt {
		return n > b
	}
	return n < b
}

func sortedSet(vs []string) []string {
	vs = slices.Clone(vs)
	slices.Sort(vs)
	return slices.Compact(vs)
}

// tri is what a requirement does on a template's nodes.
type tri uint8

const (
	never tri = iota
	some
	always
)

// classify says whether r holds on no, some or all nodes allowed by d. It
// is the fast path of a query; rep-based evaluation (reps) is the exact
// reference it must agree with, and a property checks that it does. r's
// values are sorted, as a DaemonSet's are (tplDaemon), so that a long
// list is searched, not scanned.
func (d *domain) classify(r *selector.Requirement) tri {
	present := d.present()
	if !present && !d.absent {
		return never // no state at all: vacuous, said as never
	}
	switch r.Operator {
	case api.SelectorOpExists:
		return pick(!present, !d.absent)
	case api.SelectorOpDoesNotExist:
		return pick(!d.absent, !present)
	case api.SelectorOpIn, api.SelectorOpNotIn:
		hit := false
		for _, v := range r.Values {
			if d.has(v) {
				hit = true
				break
			}
		}
		covered := !d.anyValue && len(d.values) > 0
		if covered {
			for _, v := range d.values {
				if !sortedHas(r.Values, v) {
					covered = false
					break
				}
			}
		}
		if r.Operator == api.SelectorOpIn {
			return pick(!hit, !d.absent && covered)
		}
		return pick(!d.absent && covered, !hit)
	case api.SelectorOpGt, api.SelectorOpLt:
		if !present {
			return never
		}
		b, _ := strconv.ParseInt(r.Values[0], 10, 64)
		gt := r.Operator == api.SelectorOpGt
		if !d.anyValue {
			good, bad := 0, 0
			for _, v := range d.values {
				if intCompare(v, gt, b) {
					good++
				} else {
					bad++
				}
			}
			return pick(good == 0, bad == 0 && !d.absent)
		}
		if gt {
			none := b == math.MaxInt64 || d.hasHi && d.hi-1 <= b
			all := d.hasLo && d.lo >= b
			return pick(none, all && !d.absent)
		}
		none := b == math.MinInt64 || d.hasLo && d.lo+1 >= b
		all := d.hasHi && d.hi <= b
		return pick(none, all && !d.absent)
	}
	return never
}

// pick turns "holds nowhere" and "holds everywhere" into a tri; nowhere
// wins, which only an empty domain makes both true.
func pick(nowhere, everywhere bool) tri {
	switch {
	case nowhere:
		return never
	case everywhere:
		return always
	}
	return some
}

// rep is one representative of a class of a key's possible states: absent,
// or the present value v.
type rep struct {
	absent bool
	v      string
}

// satisfies reports whether the state meets r, by the rules of
// selector.Requirement.Matches for the six node operators. r's values
// are sorted (classify).
func (p rep) satisfies(r *selector.Requirement) bool {
	if p.absent {
		return r.Operator == api.SelectorOpNotIn || r.Operator == api.SelectorOpDoesNotExist
	}
	switch r.Operator {
	case api.SelectorOpIn:
		return sortedHas(r.Values, p.v)
	case api.SelectorOpNotIn:
		return !sortedHas(r.Values, p.v)
	case api.SelectorOpExists:
		return true
	case api.SelectorOpGt, api.SelectorOpLt:
		b, err := strconv.ParseInt(r.Values[0], 10, 64)
		return err == nil && intCompare(p.v, r.Operator == api.SelectorOpGt, b)
	}
	return false
}

// reps returns representatives of d for the requirements rs (all on d's
// key): every state the template allows agrees on every r in rs with one
// of them, and each is allowed. With a finite list the values themselves
// serve; otherwise the values rs name, a fresh spelling of each integer
// that starts a class of the bounds (a bound, one above a bound, the least
// allowed integer), and a fresh non-integer when non-integers are allowed.
func (d *domain) reps(rs []*selector.Requirement) []rep {
	var out []rep
	if d.absent {
		out = append(out, rep{absent: true})
	}
	if !d.anyValue {
		for _, v := range d.values {
			out = append(out, rep{v: v})
		}
		return out
	}
	if !d.present() {
		return out
	}
	avoid := map[string]bool{}
	for _, v := range d.excl {
		avoid[v] = true
	}
	var bounds []int64
	for _, r := range rs {
		switch r.Operator {
		case api.SelectorOpIn, api.SelectorOpNotIn:
			for _, v := range r.Values {
				if !avoid[v] && d.has(v) {
					out = append(out, rep{v: v})
				}
				avoid[v] = true
			}
		case api.SelectorOpGt, api.SelectorOpLt:
			b, _ := strconv.ParseInt(r.Values[0], 10, 64)
			bounds = append(bounds, b)
			if b < math.MaxInt64 {
				bounds = append(bounds, b+1)
			}
		}
	}
	least := int64(math.MinInt64)
	if d.hasLo {
		least = d.lo + 1 // present() ensures lo < MaxInt64
	}
	bounds = append(bounds, least)
	slices.Sort(bounds)
	bounds = slices.Compact(bounds)
	for _, n := range bounds {
		if d.inRange(n) {
			out = append(out, rep{v: freshInt(n, avoid)})
		}
	}
	if !d.ranged() {
		v := "other"
		for avoid[v] {
			v += "-"
		}
		out = append(out, rep{v: v})
	}
	return out
}

// freshInt spells n in a way avoid does not hold, with leading zeros.
func freshInt(n int64, avoid map[string]bool) string {
	s := strconv.FormatInt(n, 10)
	for avoid[s] {
		if s[0] == '-' {
			s = "-0" + s[1:]
		} else {
			s = "0" + s
		}
	}
	return s
}
