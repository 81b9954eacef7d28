package taints

// Set is a compiled list of tolerations: each toleration's operator, effect
// and comparison value are decoded once by NewSet, and tolerations with a key
// are indexed by it, so that checking a node's taints does no parsing, no
// allocation and no scan over unrelated tolerations.
//
// The zero Set holds no tolerations and tolerates nothing. A Set is read-only
// after NewSet and may be shared between goroutines.
type Set struct {
	// keyed holds the tolerations with a non-empty key, grouped by hash
	// bucket: bucket b is keyed[start[b]:start[b+1]].
	keyed []compiled
	start []uint32
	shift uint8 // bucket of hash h is h >> shift
	// anyKey holds the tolerations with an empty key that the wildcard
	// bits below do not already cover.
	anyKey []compiled
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
	hash  uint64 // keyHash(key), compared before the key itself
	num   int64  // the parsed value for opLt and opGt
	// effect is kept for effects outside the three known ones, which are
	// compared as strings (checkEffect).
	effect Effect
	// effects holds the effect bits the toleration can match: all of them
	// for an empty effect, else the effect's own bit (bitOther for an
	// unknown effect).
	effects     uint8
	checkEffect bool
	op          opKind
}

// keyHash mixes the length and the last eight bytes of k: cheap, and
// different for the usual keys, which share prefixes such as
// "node.kubernetes.io/" far more often than suffixes. Equal keys have equal
// hashes.
func keyHash(k string) uint64 {
	h := uint64(len(k)) * 0x9E3779B97F4A7C15
	i := len(k) - 8
	if i < 0 {
		i = 0
	}
	for ; i < len(k); i++ {
		h = (h ^ uint64(k[i])) * 0x100000001B3
	}
	return h ^ h>>29
}

// NewSet compiles tols under opts. It copies what it needs and keeps no
// reference to tols or to its TolerationSeconds pointers.
func NewSet(tols []Toleration, opts Options) Set {
	s := Set{src: CloneTolerations(tols)}
	keyed := make([]compiled, 0, len(tols))
	for _, t := range tols {
		c := compiled{key: t.Key, value: t.Value, effect: t.Effect}
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
		switch {
		case c.op == opNever:
			// Tolerates nothing; leave it out of every scan.
		case t.Key != "":
			c.hash = keyHash(t.Key)
			keyed = append(keyed, c)
		case c.op == opExists && !c.checkEffect:
			s.wildcard |= c.effects
		default:
			s.anyKey = append(s.anyKey, c)
		}
	}
	if len(keyed) > 0 {
		s.index(keyed)
	}
	return s
}

// index fills keyed, start and shift: a hash table with at least twice as
// many buckets as tolerations, laid out as one slice sorted by bucket.
func (s *Set) index(keyed []compiled) {
	bits := uint8(1)
	for 1<<bits < 2*len(keyed) {
		bits++
	}
	s.shift = 64 - bits
	buckets := 1 << bits
	s.start = make([]uint32, buckets+1)
	for _, c := range keyed {
		s.start[c.hash>>s.shift+1]++
	}
	for b := 1; b <= buckets; b++ {
		s.start[b] += s.start[b-1]
	}
	next := append([]uint32(nil), s.start[:buckets]...)
	s.keyed = make([]compiled, len(keyed))
	for _, c := range keyed { // stable: input order within a bucket
		b := c.hash >> s.shift
		s.keyed[next[b]] = c
		next[b]++
	}
}

// Tolerations returns a deep copy of the tolerations the set was built from,
// in their original order.
func (s *Set) Tolerations() []Toleration {
	return CloneTolerations(s.src)
}

// Tolerates reports whether some toleration in the set tolerates t. It agrees
// with Toleration.Tolerates applied to each toleration given to NewSet.
func (s *Set) Tolerates(t Taint) bool {
	return s.tolerates(&t, effectBit(t.Effect))
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
		if sel&bit != 0 && !s.tolerates(t, bit) {
			return *t, true
		}
	}
	return Taint{}, false
}

// tolerates reports whether the set tolerates t, whose effect bit is bit.
func (s *Set) tolerates(t *Taint, bit uint8) bool {
	if s.wildcard&bit != 0 {
		return true
	}
	if t.Key != "" && len(s.start) > 0 {
		h := keyHash(t.Key)
		b := h >> s.shift
		for i := s.start[b]; i < s.start[b+1]; i++ {
			c := &s.keyed[i]
			if c.hash == h && c.key == t.Key && c.matches(t, bit) {
				return true
			}
		}
	}
	for i := range s.anyKey {
		if s.anyKey[i].matches(t, bit) {
			return true
		}
	}
	return false
}

// matches reports whether c tolerates t, whose effect bit is bit, given that
// the keys already match.
func (c *compiled) matches(t *Taint, bit uint8) bool {
	if c.effects&bit == 0 || (c.checkEffect && c.effect != t.Effect) {
		return false
	}
	switch c.op {
	case opEqual:
		return c.value == t.Value
	case opExists:
		return true
	case opLt:
		n, ok := parseCanonicalInt(t.Value)
		return ok && n < c.num
	case opGt:
		n, ok := parseCanonicalInt(t.Value)
		return ok && n > c.num
	}
	return false
}
