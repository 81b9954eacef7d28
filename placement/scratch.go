package placement

import (
	"hash/maphash"
	"math"
	"math/bits"
	"unicode/utf8"

	"github.com/daemonplan/daemonplan/api"
)

// nameIndex finds a node's position by name: an open-addressing table of
// positions in a name-sorted node list, probed linearly. It is smaller and
// quicker to build than a map[string]int32 of the same nodes, and a
// Cluster keeps it across Reset: when the nodes are the same as last time
// (the usual case for a controller that plans again), it is not rebuilt.
//
// Each slot holds, besides the position, the top bits of the name's hash
// (its tag) when positions leave room for them: a probe then passes over
// other nodes' slots without reading their names, and the table can be
// fuller, and so smaller, for as few reads.
type nameIndex struct {
	seed    maphash.Seed
	slots   []uint32 // tag<<tagShift | position+1; 0 is empty
	mask    uint64
	posMask uint32   // the position bits of a slot
	names   []string // the names indexed, in order, unless once
	once    bool     // the index is built once: keep no names
}

// tagShift is where a slot's tag starts: tags are used while positions fit
// below it, up to 16,777,214 nodes.
const tagShift = 24

// build indexes nodes (sorted by name, unique), unless they carry the
// names indexed last time.
func (x *nameIndex) build(nodes []*api.Node) {
	if len(nodes) == len(x.names) && x.slots != nil {
		same := true
		for i, n := range nodes {
			if n.Name != x.names[i] {
				same = false
				break
			}
		}
		if same {
			return
		}
	}
	x.index(nodes, len(nodes) < 1<<tagShift-1)
}

// index builds the table for nodes, with tags or without.
func (x *nameIndex) index(nodes []*api.Node, tagged bool) {
	if x.slots == nil {
		x.seed = maphash.MakeSeed()
	}
	// A load factor below four fifths keeps probe sequences within a
	// cache line or two; the tags make passing a slot cheap.
	size := 1 << bits.Len(uint(len(nodes)+len(nodes)/4))
	x.posMask = math.MaxUint32
	if tagged {
		x.posMask = 1<<tagShift - 1
	} else {
		// Without tags every probe reads a name: keep the table at most
		// half full.
		size = 1 << bits.Len(uint(2*len(nodes)))
	}
	if cap(x.slots) >= size {
		x.slots = x.slots[:size]
		clear(x.slots)
	} else {
		x.slots = make([]uint32, size)
	}
	x.mask = uint64(size - 1)
	x.names = x.names[:0]
	if !x.once {
		x.names = resize(x.names, len(nodes))
	}
	for i, n := range nodes {
		if !x.once {
			x.names[i] = n.Name
		}
		h := maphash.String(x.seed, n.Name)
		s := h & x.mask
		for x.slots[s] != 0 {
			s = (s + 1) & x.mask
		}
		x.slots[s] = x.tag(h) | uint32(i+1)
	}
}

// hash returns the hash of name, which places and tags it.
func (x *nameIndex) hash(name string) uint64 { return maphash.String(x.seed, name) }

// tag returns the tag bits of hash h, zero without tags.
func (x *nameIndex) tag(h uint64) uint32 { return uint32(h>>32) &^ x.posMask }

// first returns the position in the first slot of hash h's probe if its tag
// is h's, or -1: the likely position of the name, which lookup confirms.
func (x *nameIndex) first(h uint64) int32 {
	s := x.slots[h&x.mask]
	if s == 0 || s&^x.posMask != x.tag(h) {
		return -1
	}
	return int32(s&x.posMask) - 1
}

// lookup returns the position of the node called name, whose hash is h, or
// -1.
func (x *nameIndex) lookup(nodes []*api.Node, name string, h uint64) int32 {
	tag := x.tag(h)
	for i := h & x.mask; ; i = (i + 1) & x.mask {
		s := x.slots[i]
		if s == 0 {
			return -1
		}
		if s&^x.posMask == tag {
			if p := int32(s&x.posMask) - 1; nodes[p].Name == name {
				return p
			}
		}
	}
}

// arena hands out string slices that stay valid until reset: the results of
// Cluster.Keep. After a reset it reuses its largest chunk, grown to what the
// previous snapshot needed, so that a Cluster planning again and again stops
// allocating for them.
type arena struct {
	buf  []string
	used int // strings handed out since the last reset
}

// alloc returns an empty slice with room for n strings. Appending more than
// n allocates a separate array, as append does.
func (a *arena) alloc(n int) []string {
	a.used += n
	if a.buf == nil || cap(a.buf)-len(a.buf) < n {
		a.buf = make([]string, 0, n)
	}
	s := a.buf[len(a.buf) : len(a.buf) : len(a.buf)+n]
	a.buf = a.buf[:len(a.buf)+n]
	return s
}

// reset makes every slice handed out reusable.
func (a *arena) reset() {
	if a.used > cap(a.buf) {
		a.buf = make([]string, 0, a.used)
	}
	a.buf, a.used = a.buf[:0], 0
}

// podCheck tells, without allocating once warm, whether api.ValidatePods
// finds nothing in a pod list: every pod named, every namespace, name, UID
// and node name valid UTF-8, no (namespace, name) and no non-empty UID
// twice. Only when it does not is api.ValidatePods called, for the
// findings. A Cluster keeps its table across Reset.
type podCheck struct {
	seed  maphash.Seed
	slots []int32 // pod position+1; 0 is empty
	mask  uint64
	// sorted reports, after valid returned true, that the pods came in
	// (namespace, name) order, as listers return them.
	sorted bool
}

// valid reports whether pods are valid as api.ValidatePods judges them.
func (x *podCheck) valid(pods []api.Pod) bool {
	sorted := true
	for i := range pods {
		p := &pods[i]
		// Pods mostly share a namespace: it is checked when it changes.
		sameNS := i > 0 && pods[i-1].Namespace == p.Namespace
		if p.Name == "" || !sameNS && !utf8.ValidString(p.Namespace) || !utf8.ValidString(p.Name) ||
			!utf8.ValidString(p.UID) || !utf8.ValidString(p.NodeName) {
			return false
		}
		// Listers return pods in (namespace, name) order: then no name
		// repeats, and only the UIDs need a table.
		if i > 0 && sorted {
			sorted = sameNS && pods[i-1].Name < p.Name || !sameNS && pods[i-1].Namespace < p.Namespace
		}
	}
	x.sorted = sorted
	if !x.distinctUIDs(pods) {
		return false
	}
	return sorted || x.distinct(pods, func(p *api.Pod) (string, string, bool) { return p.Namespace, p.Name, true })
}

// distinctUIDs reports whether no two pods share a non-empty UID.
func (x *podCheck) distinctUIDs(pods []api.Pod) bool {
	x.table(len(pods))
	for i := range pods {
		uid := pods[i].UID
		if uid == "" {
			continue
		}
		s := maphash.String(x.seed, uid) & x.mask
		for x.slots[s] != 0 {
			if pods[x.slots[s]-1].UID == uid {
				return false
			}
			s = (s + 1) & x.mask
		}
		x.slots[s] = int32(i + 1)
	}
	return true
}

// table empties the slots, sized for n keys.
func (x *podCheck) table(n int) {
	if x.slots == nil {
		x.seed = maphash.MakeSeed()
	}
	size := 1 << bits.Len(uint(2*n))
	if cap(x.slots) >= size {
		x.slots = x.slots[:size]
		clear(x.slots)
	} else {
		x.slots = make([]int32, size)
	}
	x.mask = uint64(size - 1)
}

// distinct reports whether no two pods share a key (a pair of strings;
// pods without a key are skipped).
func (x *podCheck) distinct(pods []api.Pod, key func(*api.Pod) (string, string, bool)) bool {
	x.table(len(pods))
	var h maphash.Hash
	h.SetSeed(x.seed)
	for i := range pods {
		a, b, ok := key(&pods[i])
		if !ok {
			continue
		}
		h.Reset()
		h.WriteString(a)
		h.WriteByte(0)
		h.WriteString(b)
		s := h.Sum64() & x.mask
		for x.slots[s] != 0 {
			if c, d, _ := key(&pods[x.slots[s]-1]); c == a && d == b {
				return false
			}
			s = (s + 1) & x.mask
		}
		x.slots[s] = int32(i + 1)
	}
	return true
}
