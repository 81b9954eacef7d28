package taints

// Set is a compiled list of tolerations: each toleration's operator, effect
// and comparison value are decoded once by NewSet, so that checking a node's
// taints does no parsing and no allocation.
//
// The zero Set holds no tolerations and tolerates nothing. A Set is read-only
// after NewSet and may be shared between goroutines.
type Set struct {
	tols []compiled
	// wildcard holds the effect bits for which the set has an
	// "empty key, Exists" toleration: any taint with one of these effects is
	// tolerated without looking further.
	wildcard uint8
	src      []Toleration // deep copy of the input, for Tolerations
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

// compiled is one toleration, decoded.
type compiled struct {
	key   string
	value string
	// keyPrint is a cheap fingerprint of key (length, first and last byte)
	// compared before the key itself; unused when the key is empty.
	keyPrint uint64
	num      int64 // the parsed value for opLt and opGt
	// effects holds the effect bits the toleration can match: all of them
	// for an empty effect, else the effect's own bit. An effect outside the
	// three known ones has bitOther and effect is compared as a string.
	effects     uint8
	checkEffect bool
	effect      Effect
	anyKey      bool
	op          opKind
}

// keyFingerprint packs the length and the first and last byte of a non-empty
// key. Equal keys have equal fingerprints; most different keys do not.
func keyFingerprint(k string) uint64 {
	return uint64(len(k))<<16 | uint64(k[0])<<8 | uint64(k[len(k)-1])
}

// NewSet compiles tols under opts. It copies what it needs and keeps no
// reference to tols or to its TolerationSeconds pointers.
func NewSet(tols []Toleration, opts Options) Set {
	s := Set{
		tols: make([]compiled, 0, len(tols)),
		src:  cloneTolerations(tols),
	}
	for _, t := range tols {
		c := compiled{key: t.Key, value: t.Value, effect: t.Effect, anyKey: t.Key == ""}
		if !c.anyKey {
			c.keyPrint = keyFingerprint(t.Key)
		}
		if t.Effect == "" {
			c.effects = knownBits | bitOther
		} else {
			c.effects = effectBit(t.Effect)
			c.checkEffect = c.effects == bitOther
		}
		switch t.Operator {
		case "", Equal:
			c.op = opEqual
		case Exists:
			c.op = opExists
		case Lt, Gt:
			if n, ok := parseCanonicalInt(t.Value); ok && opts.ComparisonOperators {
				c.num = n
				c.op = opLt
				if t.Operator == Gt {
					c.op = opGt
				}
			}
		}
		if c.op == opNever {
			continue // tolerates nothing; leave it out of every scan
		}
		if c.anyKey && c.op == opExists && !c.checkEffect {
			s.wildcard |= c.effects
		}
		s.tols = append(s.tols, c)
	}
	return s
}

// Tolerations returns a deep copy of the tolerations the set was built from,
// in their original order.
func (s *Set) Tolerations() []Toleration {
	return cloneTolerations(s.src)
}

// Tolerates reports whether some toleration in the set tolerates t. It agrees
// with Toleration.Tolerates applied to each toleration given to NewSet.
func (s *Set) Tolerates(t Taint) bool {
	bit := effectBit(t.Effect)
	if s.wildcard&bit != 0 {
		return true
	}
	return s.match(t, bit)
}

// FirstUntolerated returns the first taint, in the order given, whose effect
// is in effects and that no toleration in the set tolerates (upstream
// FindMatchingUntoleratedTaint with an effect filter). It reports false when
// every selected taint is tolerated. It does not allocate.
func (s *Set) FirstUntolerated(taints []Taint, effects Effects) (Taint, bool) {
	sel := uint8(effects) & knownBits
	for i := range taints {
		t := &taints[i]
		bit := effectBit(t.Effect)
		if sel&bit == 0 || s.wildcard&bit != 0 {
			continue
		}
		if !s.match(*t, bit) {
			return *t, true
		}
	}
	return Taint{}, false
}

// match scans the compiled tolerations for one that tolerates t, whose
// effect bit is bit.
func (s *Set) match(t Taint, bit uint8) bool {
	var fp uint64
	if t.Key != "" {
		fp = keyFingerprint(t.Key)
	}
	for i := range s.tols {
		c := &s.tols[i]
		if c.effects&bit == 0 || (c.checkEffect && c.effect != t.Effect) {
			continue
		}
		if !c.anyKey && (c.keyPrint != fp || c.key != t.Key) {
			continue
		}
		switch c.op {
		case opEqual:
			if c.value == t.Value {
				return true
			}
		case opExists:
			return true
		case opLt:
			if n, ok := parseCanonicalInt(t.Value); ok && n < c.num {
				return true
			}
		case opGt:
			if n, ok := parseCanonicalInt(t.Value); ok && n > c.num {
				return true
			}
		}
	}
	return false
}

// cloneTolerations returns a copy of tols whose TolerationSeconds pointers
// point to fresh values. A nil input gives nil.
func cloneTolerations(tols []Toleration) []Toleration {
	if tols == nil {
		return nil
	}
	out := make([]Toleration, len(tols))
	for i, t := range tols {
		out[i] = cloneToleration(t)
	}
	return out
}

// cloneToleration returns t with its own copy of TolerationSeconds.
func cloneToleration(t Toleration) Toleration {
	if t.TolerationSeconds != nil {
		v := *t.TolerationSeconds
		t.TolerationSeconds = &v
	}
	return t
}
