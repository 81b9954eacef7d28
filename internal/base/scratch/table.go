package scratch

import (
	"hash/maphash"
	"math"
	"math/bits"

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

// NodeIndex finds a node's position by name in a name-sorted node list. It
// is smaller and quicker to build than a map[string]int32 of the same
// nodes, and a [github.com/daemonplan/daemonplan/placement.Index] keeps it
// across Reset: when the nodes are the same as last time (the usual case for a
// controller that plans again), it is not rebuilt.
//
// The zero NodeIndex keeps the names it indexes, for Build to compare the
// next list with; one with Once set is built once and keeps none.
type NodeIndex struct {
	slotTable
	names []string // the names indexed, in order, unless Once
	// Once says the index is built once: it keeps no names, and Build
	// always indexes.
	Once bool
}

// Build indexes nodes (sorted by name, unique), unless they carry the
// names indexed last time.
func (x *NodeIndex) Build(nodes []*api.Node) {
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

// Start empties the index and sizes it for n nodes, for a caller that Puts
// them in itself (an index built Once: it keeps no names).
func (x *NodeIndex) Start(n int) { x.reset(n) }

// Put indexes position i under h, the Hash of the node's name.
func (x *NodeIndex) Put(h uint64, i int) { x.put(h, i) }

// index builds the table for nodes, with tags or without.
func (x *NodeIndex) index(nodes []*api.Node, tagged bool) {
	x.resetTagged(len(nodes), tagged)
	x.names = x.names[:0]
	if !x.Once {
		x.names = Resize(x.names, len(nodes))
	}
	for i, n := range nodes {
		if !x.Once {
			x.names[i] = n.Name
		}
		x.put(maphash.String(x.seed, n.Name), i)
	}
}

// Hash returns the hash of name, which places and tags it.
func (x *NodeIndex) Hash(name string) uint64 { return maphash.String(x.seed, name) }

// First returns the position in the first slot of hash h's probe if its tag
// is h's, or -1: the likely position of the name, which Lookup confirms.
func (x *NodeIndex) First(h uint64) int32 {
	s := x.slots[h&x.mask]
	if s == 0 || s&^x.posMask != x.tag(h) {
		return -1
	}
	return x.pos(s)
}

// Lookup returns the position of the node called name, whose hash is h, or
// -1.
func (x *NodeIndex) Lookup(nodes []*api.Node, name string, h uint64) int32 {
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

// Forget drops the names the index holds, so that it keeps no snapshot
// alive, and makes it an index built Once, which takes nothing from one
// list to the next.
func (x *NodeIndex) Forget() {
	clear(x.names[:cap(x.names)])
	x.Once = true
}
