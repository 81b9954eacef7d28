package taints

import (
	"slices"
	"sort"

	"github.com/daemonplan/daemonplan/api"
)

// Set is a compiled list of tolerations: each toleration's operator, effect
// and comparison value are decoded once by [NewSet], and tolerations are
// grouped by key and effect into rules, so that checking a node's taints
// parses no toleration again (only a taint's value, for Lt and Gt rules),
// allocates nothing and scans no unrelated toleration.
//
// Checking one taint costs one map lookup of its key and a binary search
// among the values the tolerations of that key and effect accept, whatever
// the keys and values: tolerations chosen to collide cannot make matching
// quadratic.
//
// The zero Set, and a nil *Set, hold no tolerations and tolerate nothing. A
// Set is read-only after [NewSet] and may be shared between goroutines.
type Set struct {
	// wildcard holds the effect bits for which the set has an
	// "empty key, Exists" toleration: any taint with one of these effects is
	// tolerated without looking further.
	wildcard uint8
	// byKey holds the tolerations with a non-empty key.
	byKey map[string]*keyRules
	// anyKey holds the tolerations with an empty key that the wildcard
	// bits do not already cover; nil when there are none.
	anyKey *keyRules
	src    []api.Toleration // deep copy of the input, for Tolerations
}

// The rule slots of a key, by taint effect; slotAny holds the tolerations
// with an empty effect, which match every effect.
const (
	slotNoSchedule = iota
	slotPreferNoSchedule
	slotNoExecute
	slotAny
	numSlots
)

// keyRules is what the tolerations of one key accept, by effect.
type keyRules struct {
	slots [numSlots]rule
	// other holds the tolerations whose effect is none of the three known
	// ones: they match only taints with exactly that effect.
	other map[api.TaintEffect]*rule
}

// rule is what the tolerations of one key and one effect accept together.
type rule struct {
	exists bool     // an Exists toleration: any value
	values []string // Equal tolerations: these values, sorted, distinct
	// Lt and Gt tolerations with a valid value (comparison operators on):
	// a canonical integer value below the largest Lt bound, or above the
	// smallest Gt bound.
	hasLt, hasGt bool
	ltMax, gtMin int64
}

// slotOf returns the slot of an effect bit, or -1 for bitOther.
func slotOf(bit uint8) int {
	switch bit {
	case bitNoSchedule:
		return slotNoSchedule
	case bitPreferNoSchedule:
		return slotPreferNoSchedule
	case bitNoExecute:
		return slotNoExecute
	}
	return -1
}

// opKind is a decoded toleration operator.
type opKind uint8

const (
	opNever  opKind = iota // unknown operator, or Lt/Gt that cannot match
	opEqual                // "" or Equal
	opExists               // Exists
	opLt                   // Lt with a valid value, comparison operators on
	opGt                   // Gt with a valid value, comparison operators on
)

// NewSet compiles tols under opts. It copies what it needs and keeps no
// reference to tols or to its TolerationSeconds pointers.
func NewSet(tols []api.Toleration, opts Options) Set {
	s := Set{src: api.CloneTolerations(tols)}
	for _, t := range tols {
		op, num := opNever, int64(0)
		switch t.Operator {
		case "", api.TolerationOpEqual:
			op = opEqual
		case api.TolerationOpExists:
			op = opExists
		case api.TolerationOpLt, api.TolerationOpGt:
			if n, ok := parseCanonicalInt(t.Value); ok && opts.ComparisonOperators {
				op, num = opLt, n
				if t.Operator == api.TolerationOpGt {
					op = opGt
				}
			}
		}
		if op == opNever {
			continue // tolerates nothing; leave it out
		}
		bit := effectBit(t.Effect)
		if t.Key == "" && op == opExists && (t.Effect == "" || bit != bitOther) {
			if t.Effect == "" {
				s.wildcard |= knownBits | bitOther
			} else {
				s.wildcard |= bit
			}
			continue
		}
		var k *keyRules
		if t.Key == "" {
			if s.anyKey == nil {
				s.anyKey = &keyRules{}
			}
			k = s.anyKey
		} else {
			if s.byKey == nil {
				s.byKey = map[string]*keyRules{}
			}
			if k = s.byKey[t.Key]; k == nil {
				k = &keyRules{}
				s.byKey[t.Key] = k
			}
		}
		k.rule(t.Effect, bit).add(op, t.Value, num)
	}
	for _, k := range s.byKey {
		k.finish()
	}
	if s.anyKey != nil {
		s.anyKey.finish()
	}
	return s
}

// rule returns the rule of a toleration effect, whose bit is bit.
func (k *keyRules) rule(e api.TaintEffect, bit uint8) *rule {
	if e == "" {
		return &k.slots[slotAny]
	}
	if i := slotOf(bit); i >= 0 {
		return &k.slots[i]
	}
	if k.other == nil {
		k.other = map[api.TaintEffect]*rule{}
	}
	r := k.other[e]
	if r == nil {
		r = &rule{}
		k.other[e] = r
	}
	return r
}

// add merges one toleration into r.
func (r *rule) add(op opKind, value string, num int64) {
	switch op {
	case opExists:
		r.exists = true
	case opEqual:
		r.values = append(r.values, value)
	case opLt:
		if !r.hasLt || num > r.ltMax {
			r.ltMax = num
		}
		r.hasLt = true
	case opGt:
		if !r.hasGt || num < r.gtMin {
			r.gtMin = num
		}
		r.hasGt = true
	}
}

// finish sorts and de-duplicates the values of every rule of k.
func (k *keyRules) finish() {
	for i := range k.slots {
		k.slots[i].finish()
	}
	for _, r := range k.other {
		r.finish()
	}
}

func (r *rule) finish() {
	if r.exists {
		r.values = nil // Exists accepts every value anyway
		return
	}
	if len(r.values) > 1 {
		sort.Strings(r.values)
		r.values = slices.Compact(r.values)
	}
	r.values = slices.Clip(r.values)
}

// Tolerations returns a deep copy of the tolerations the set was built from,
// in their original order.
func (s *Set) Tolerations() []api.Toleration {
	if s == nil {
		return nil
	}
	return api.CloneTolerations(s.src)
}

// Tolerates reports whether some toleration in the set tolerates t. It agrees
// with Tolerates applied to each toleration given to [NewSet].
func (s *Set) Tolerates(t api.Taint) bool {
	return s.tolerates(&t, effectBit(t.Effect))
}

// FirstUntolerated returns the first taint, in the order given, whose effect
// is in effects and that no toleration in the set tolerates (upstream
// FindMatchingUntoleratedTaint with an effect filter). It reports false when
// every selected taint is tolerated. It does not allocate.
func (s *Set) FirstUntolerated(taints []api.Taint, effects Effects) (api.Taint, bool) {
	if i := s.IndexUntolerated(taints, effects); i >= 0 {
		return taints[i], true
	}
	return api.Taint{}, false
}

// IndexUntolerated is FirstUntolerated returning the taint's index in
// taints, or -1 when every selected taint is tolerated: for a caller that
// refers to the node's own taint instead of copying it.
func (s *Set) IndexUntolerated(taints []api.Taint, effects Effects) int {
	sel := uint8(effects) & knownBits
	for i := range taints {
		t := &taints[i]
		bit := effectBit(t.Effect)
		if sel&bit != 0 && !s.tolerates(t, bit) {
			return i
		}
	}
	return -1
}

// tolerates reports whether the set tolerates t, whose effect bit is bit.
func (s *Set) tolerates(t *api.Taint, bit uint8) bool {
	if s == nil {
		return false
	}
	if s.wildcard&bit != 0 {
		return true
	}
	// A toleration with a key matches only taints with that key; one
	// without a key matches every key.
	if t.Key != "" && s.byKey != nil {
		if k := s.byKey[t.Key]; k != nil && k.accepts(t, bit) {
			return true
		}
	}
	return s.anyKey != nil && s.anyKey.accepts(t, bit)
}

// accepts reports whether the tolerations of k tolerate t, whose effect bit
// is bit, given that the keys already match.
func (k *keyRules) accepts(t *api.Taint, bit uint8) bool {
	if i := slotOf(bit); i >= 0 {
		if k.slots[i].accepts(t.Value) {
			return true
		}
	} else if r := k.other[t.Effect]; r != nil && r.accepts(t.Value) {
		return true
	}
	return k.slots[slotAny].accepts(t.Value)
}

// accepts reports whether r tolerates a taint with value v.
func (r *rule) accepts(v string) bool {
	if r.exists {
		return true
	}
	if len(r.values) > 0 {
		if i := sort.SearchStrings(r.values, v); i < len(r.values) && r.values[i] == v {
			return true
		}
	}
	if r.hasLt || r.hasGt {
		n, ok := parseCanonicalInt(v)
		return ok && (r.hasLt && n < r.ltMax || r.hasGt && n > r.gtMin)
	}
	return false
}
