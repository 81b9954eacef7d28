package daemonplan

import (
	"math/bits"
	"slices"
	"sort"
	"strings"

	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/rollout"
)

// The flags of a node: which lists of a plan it contributes to. Every
// chunk of the ordered list counts its nodes per flag, so that a walk for
// one flag skips the chunks without it. Bit 0 says the node is in the node
// list (not vanished); bits 1 to 5 are its manage kinds
// (placement.KindsOf); then come its kind in the rolling update's pass
// without surge (passBit(k, false)) and with surge (passBit(k, true)).
const fReal uint32 = 1

// The bit positions of the pass kinds, and how many bits there are.
const (
	passBase  = 8  // the first pass kind's bit without surge
	surgeBase = 16 // the first pass kind's bit with surge
	numFlags  = 24
)

// manageBit is the flag of a manage kind.
func manageBit(k placement.ManageKind) uint32 { return 1 << k }

// passBit is the flag of a pass kind, 0 for none.
func passBit(k rollout.PassKind, surge bool) uint32 {
	if k == 0 {
		return 0
	}
	if surge {
		return 1 << (surgeBase + uint(k))
	}
	return 1 << (passBase + uint(k))
}

// chunkSize is the size chunks are split back to; a chunk grows to twice
// that before it splits.
const chunkSize = 256

// chunk is a run of nodes in name order.
type chunk struct {
	nodes []*nodeState
	count [numFlags]int32
}

func (c *chunk) add(flags uint32, delta int32) {
	for flags != 0 {
		c.count[bits.TrailingZeros32(flags)] += delta
		flags &= flags - 1
	}
}

// ordered holds node states in name order, in chunks: inserting or
// removing a node moves at most a chunk's pointers, and walking the nodes
// that carry one flag skips every chunk without it.
type ordered struct {
	chunks []*chunk
	n      int
}

// build replaces the contents with nodes, which must be sorted by name.
func (o *ordered) build(nodes []*nodeState) {
	o.chunks, o.n = nil, len(nodes)
	for lo := 0; lo < len(nodes); lo += chunkSize {
		c := &chunk{nodes: slices.Clone(nodes[lo:min(lo+chunkSize, len(nodes))])}
		for _, ns := range c.nodes {
			ns.chunk = c
			c.add(ns.flags, 1)
		}
		o.chunks = append(o.chunks, c)
	}
}

// locate returns the index of the chunk where name belongs.
func (o *ordered) locate(name string) int {
	i := sort.Search(len(o.chunks), func(i int) bool {
		c := o.chunks[i]
		return c.nodes[len(c.nodes)-1].name >= name
	})
	return min(i, len(o.chunks)-1)
}

func (o *ordered) insert(ns *nodeState) {
	if len(o.chunks) == 0 {
		o.chunks = []*chunk{{}}
	}
	ci := 0
	if len(o.chunks[0].nodes) > 0 {
		ci = o.locate(ns.name)
	}
	c := o.chunks[ci]
	i, _ := slices.BinarySearchFunc(c.nodes, ns.name, byName)
	c.nodes = slices.Insert(c.nodes, i, ns)
	c.add(ns.flags, 1)
	ns.chunk = c
	o.n++
	if len(c.nodes) > 2*chunkSize {
		right := &chunk{nodes: slices.Clone(c.nodes[chunkSize:])}
		clear(c.nodes[chunkSize:])
		c.nodes = c.nodes[:chunkSize]
		for _, m := range right.nodes {
			m.chunk = right
			c.add(m.flags, -1)
			right.add(m.flags, 1)
		}
		o.chunks = slices.Insert(o.chunks, ci+1, right)
	}
}

func (o *ordered) remove(ns *nodeState) {
	c := ns.chunk
	i, found := slices.BinarySearchFunc(c.nodes, ns.name, byName)
	if !found {
		panic("daemonplan: node " + ns.name + " is not where its chunk says")
	}
	c.nodes = slices.Delete(c.nodes, i, i+1)
	c.add(ns.flags, -1)
	ns.chunk = nil
	o.n--
	if len(c.nodes) == 0 {
		o.chunks = slices.DeleteFunc(o.chunks, func(x *chunk) bool { return x == c })
	}
}

// setFlags changes the flags of ns, which is in the list.
func (o *ordered) setFlags(ns *nodeState, flags uint32) {
	if ns.flags == flags {
		return
	}
	ns.chunk.add(ns.flags, -1)
	ns.chunk.add(flags, 1)
	ns.flags = flags
}

// each calls yield for every node carrying flag, in name order, until
// yield returns false.
func (o *ordered) each(flag uint32, yield func(*nodeState) bool) {
	bit := bits.TrailingZeros32(flag)
	for _, c := range o.chunks {
		if c.count[bit] == 0 {
			continue
		}
		for _, ns := range c.nodes {
			if ns.flags&flag != 0 && !yield(ns) {
				return
			}
		}
	}
}

// all calls yield for every node, in name order.
func (o *ordered) all(yield func(*nodeState)) {
	for _, c := range o.chunks {
		for _, ns := range c.nodes {
			yield(ns)
		}
	}
}

func byName(ns *nodeState, name string) int { return strings.Compare(ns.name, name) }
