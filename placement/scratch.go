package placement

import (
	"hash/maphash"
	"math"
	"math/bits"
	"unicode/utf8"

	"github.com/daemonplan/daemonplan/api"
)

// slotTable is an open-addressing table of positions in a list, probed
// linearly from a key's hash; the caller compares the keys. Each slot
// holds, besides the position, the top bits of the key's hash (its tag)
// while positions leave room for them: a probe then passes over the slots
// of other keys without reading them, and the table can be fuller, and so
// smaller, for as few reads.
type slotTable struct {
	seed    maphash.Seed
	slots   []uint32 // tag | position+1; 0 is empty
	mask    uint64
	posMask uint32 // the position bits of a slot
}

// tagShift is where a slot's tag starts: tags are used while positions fit
// below it, up to 16,777,214 keys.
const tagShift = 24

// reset empties the table and sizes it for n keys, with tags when they
// fit.
func (t *slotTable) reset(n int) { t.resetTagged(n, n < 1<<tagShift-1) }

func (t *slotTable) resetTagged(n int, tagged bool) {
	if t.slots == nil {
		t.seed = maphash.MakeSeed()
	}
	// A load factor below four fifths keeps probe sequences within a
	// cache line or two; the tags make passing a slot cheap. Without tags
	// every probe reads a key: the table stays at most half full.
	size := 1 << bits.Len(uint(n+n/4))
	t.posMask = 1<<tagShift - 1
	if !tagged {
		t.posMask = math.MaxUint32
		size = 1 << bits.Len(uint(2*n))
	}
	if cap(t.slots) >= size {
		t.slots = t.slots[:size]
		clear(t.slots)
	} else {
		t.slots = make([]uint32, size)
	}
	t.mask = uint64(size - 1)
}

// tag returns the tag bits of hash h, zero without tags.
func (t *slotTable) tag(h uint64) uint32 { return uint32(h>>32) &^ t.posMask }

// pos returns the position a full slot holds.
func (t *slotTable) pos(slot uint32) int32 { return int32(slot&t.posMask) - 1 }

// put stores position i under hash h in the first empty slot of its probe.
func (t *slotTable) put(h uint64, i int) {
	s := h & t.mask
	for t.slots[s] != 0 {
		s = (s + 1) & t.mask
	}
	t.slots[s] = t.tag(h) | uint32(i+1)
}

// nameIndex finds a node's position by name in a name-sorted node list. It
// is smaller and quicker to build than a map[string]int32 of the same
// nodes, and a Cluster keeps it across Reset: when the nodes are the same
// as last time (the usual case for a controller that plans again), it is
// not rebuilt.
type nameIndex struct {
	slotTable
	names []string // the names indexed, in order, unless once
	once  bool     // the index is built once: keep no names
}

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

// start empties the index and sizes it for n nodes, for a caller that puts
// them in itself.
func (x *nameIndex) start(n int) { x.reset(n) }

// index builds the table for nodes, with tags or without.
func (x *nameIndex) index(nodes []*api.Node, tagged bool) {
	x.resetTagged(len(nodes), tagged)
	x.names = x.names[:0]
	if !x.once {
		x.names = resize(x.names, len(nodes))
	}
	for i, n := range nodes {
		if !x.once {
			x.names[i] = n.Name
		}
		x.put(maphash.String(x.seed, n.Name), i)
	}
}

// hash returns the hash of name, which places and tags it.
func (x *nameIndex) hash(name string) uint64 { return maphash.String(x.seed, name) }

// first returns the position in the first slot of hash h's probe if its tag
// is h's, or -1: the likely position of the name, which lookup confirms.
func (x *nameIndex) first(h uint64) int32 {
	s := x.slots[h&x.mask]
	if s == 0 || s&^x.posMask != x.tag(h) {
		return -1
	}
	return x.pos(s)
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
			if p := x.pos(s); nodes[p].Name == name {
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
	slotTable
	// sorted reports, after done returned true, that the pods came in
	// (namespace, name) order, as a list from the API server does.
	sorted bool
	bad    bool // a pod added so far fails the check
	// order is, after done returned true for pods not in order, every
	// pod's position, sorted by name (pods of one name next to each
	// other): Keep lists the bucketed pods in this order.
	order     []int32
	orderSort []keyed[int32]
}

// valid reports whether pods are valid as api.ValidatePods judges them.
func (x *podCheck) valid(pods []api.Pod) bool {
	x.start(len(pods))
	for i := range pods {
		x.add(pods, i)
	}
	return x.done(pods)
}

// start begins the check of a list of n pods, which add then checks one
// by one, in order, so that a pass over the pods that does other work
// checks them too.
func (x *podCheck) start(n int) {
	x.reset(n)
	x.sorted, x.bad = true, false
}

// add checks pods[i]; pods[:i] were added before.
func (x *podCheck) add(pods []api.Pod, i int) {
	if x.bad {
		return
	}
	p := &pods[i]
	// Pods mostly share a namespace: it is checked when it changes.
	sameNS := i > 0 && pods[i-1].Namespace == p.Namespace
	if p.Name == "" || !sameNS && !utf8.ValidString(p.Namespace) || !utf8.ValidString(p.Name) ||
		!utf8.ValidString(p.UID) || !utf8.ValidString(p.NodeName) {
		x.bad = true
		return
	}
	// The API server lists pods in (namespace, name) order: then no name
	// repeats, and only the UIDs need a table.
	if i > 0 && x.sorted {
		x.sorted = sameNS && pods[i-1].Name < p.Name || !sameNS && pods[i-1].Namespace < p.Namespace
	}
	if p.UID == "" {
		return
	}
	h := maphash.String(x.seed, p.UID)
	tag := x.tag(h)
	for s := h & x.mask; x.slots[s] != 0; s = (s + 1) & x.mask {
		if v := x.slots[s]; v&^x.posMask == tag && pods[x.pos(v)].UID == p.UID {
			x.bad = true
			return
		}
	}
	x.put(h, i)
}

// done reports whether the pods added are valid as api.ValidatePods judges
// them.
func (x *podCheck) done(pods []api.Pod) bool {
	if x.bad {
		x.sorted = false
		return false
	}
	if x.sorted {
		return true
	}
	// Pods in lister order: sort their positions by name. Only a name
	// that occurs twice can be a (namespace, name) that does.
	x.order = resize(x.order, len(pods))
	for i := range x.order {
		x.order[i] = int32(i)
	}
	var repeats bool
	x.orderSort, repeats = sortByName(x.order, func(i int32) string { return pods[i].Name }, x.orderSort)
	return !repeats || x.distinctNames(pods)
}

// distinctNames reports whether no two pods share a namespace and name.
func (x *podCheck) distinctNames(pods []api.Pod) bool {
	x.reset(len(pods))
	var hh maphash.Hash
	hh.SetSeed(x.seed)
	for i := range pods {
		p := &pods[i]
		hh.Reset()
		hh.WriteString(p.Namespace)
		hh.WriteByte(0)
		hh.WriteString(p.Name)
		h := hh.Sum64()
		tag := x.tag(h)
		for s := h & x.mask; x.slots[s] != 0; s = (s + 1) & x.mask {
			if v := x.slots[s]; v&^x.posMask == tag {
				if q := &pods[x.pos(v)]; q.Namespace == p.Namespace && q.Name == p.Name {
					return false
				}
			}
		}
		x.put(h, i)
	}
	return true
}
