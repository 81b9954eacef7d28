package overhead

import "encoding/binary"

// MaxTemplateSteps bounds the work [Catalog.QueryTemplate] spends on one
// DaemonSet's answer when the fast path does not settle it: splitting the
// template's nodes key by key, one step per part of the nodes and term
// still in play (docs/never-harm.md, N15). Past it the DaemonSet is
// refused with an error that names this limit, unless a node where the pod
// does not land was already found: the answer is then Depends, with Keys
// the keys Where names.
const MaxTemplateSteps = 1 << 20

// A cover decides whether the union of boxes covers a product space, and
// on which coordinates the union's membership depends. The space has
// levels (label keys) 0..n-1, each with a number of blocks (classes of
// the key's states that no term tells apart); a box (one affinity term)
// asks, at some levels, for a block in a set and leaves the other levels
// free.
//
// It builds the reduced ordered decision diagram of the union, top level
// first: a part of the space is split on the next level some box still
// in play asks about, and a part where a box holds throughout, or where
// none is left, is not split further. Each node of the diagram is unique
// (hash-consed) and none has all its children equal, so that two nodes
// are one function exactly when they are one node: the union covers the
// space exactly when the diagram is the single node "true", and it
// depends on a level exactly when the diagram has a node there. Parts
// reached again with the same boxes in play are answered from a memo.
//
// Every part of a split is a choice of blocks at the levels above, and
// each level splits in two at least, so the parts made are at most twice
// the blocks' product (at most the classes the earlier exhaustive walk
// enumerated): a step per part made and box in play, the work never
// exceeds that product times one plus the boxes, and the budget stops it
// sooner whatever the input.
type cover struct {
	blocks []int     // per level
	boxes  [][]need  // per box, its needs by increasing level
	starts [][]int32 // per level, the boxes whose first need is there
	// firstStart[l] is the first level at or below l where a box starts,
	// len(blocks) when none does.
	firstStart []int

	budget, steps int
	// over is set once steps passed the budget: the diagram is unfinished.
	over bool
	// sawFalse is set once a part where no box holds was reached: the
	// union does not cover the space, finished or not.
	sawFalse bool
	// decides marks the levels that have a node in the diagram.
	decides []bool
	memo    map[string]int32
	unique  map[string]int32
	next    int32 // the next node id
	key     []byte
}

// need is what a box asks at one level: a block b with pass[b].
type need struct {
	level int
	pass  []bool
}

// inPlay is a box that held at every level it asks about above the part
// looked at, and asks about more below: need is the index of its next need.
type inPlay struct {
	box, need int32
}

// The two leaves of the diagram; inner nodes are numbered from 2.
const (
	falseNode int32 = 0
	trueNode  int32 = 1
)

// newCover prepares the space of blocks (per level) for the boxes, each
// with at least one need, sorted by level, and none with every pass true.
func newCover(blocks []int, boxes [][]need, budget int) *cover {
	c := &cover{
		blocks: blocks, boxes: boxes, budget: budget,
		starts:     make([][]int32, len(blocks)),
		firstStart: make([]int, len(blocks)+1),
		decides:    make([]bool, len(blocks)),
		memo:       map[string]int32{},
		unique:     map[string]int32{},
		next:       2,
	}
	for b, ns := range boxes {
		c.starts[ns[0].level] = append(c.starts[ns[0].level], int32(b))
	}
	c.firstStart[len(blocks)] = len(blocks)
	for l := len(blocks) - 1; l >= 0; l-- {
		c.firstStart[l] = c.firstStart[l+1]
		if len(c.starts[l]) > 0 {
			c.firstStart[l] = l
		}
	}
	return c
}

// covers builds the diagram and reports whether the boxes cover the
// space; meaningless once over is set.
func (c *cover) covers() bool { return c.build(0, nil) == trueNode }

// build returns the diagram of the union over the levels from level on,
// for the boxes in play (sorted by box) and those that start below.
func (c *cover) build(level int, play []inPlay) int32 {
	// Skip to the first level a box asks about: the union does not depend
	// on the levels in between.
	at := c.firstStart[level]
	for _, p := range play {
		at = min(at, c.boxes[p.box][p.need].level)
	}
	if at == len(c.blocks) {
		// No box in play and none to come: no box holds on this part.
		c.sawFalse = true
		return falseNode
	}
	c.key = binary.AppendUvarint(c.key[:0], uint64(at))
	for _, p := range play {
		c.key = binary.AppendUvarint(c.key, uint64(p.box))
	}
	if n, ok := c.memo[string(c.key)]; ok {
		return n
	}
	memoKey := string(c.key)
	here := mergeStarts(play, c.starts[at])
	children := make([]int32, c.blocks[at])
	for b := range children {
		c.steps += 1 + len(here)
		if c.steps > c.budget {
			c.over = true
			return falseNode
		}
		var below []inPlay
		holds := false
		for _, p := range here {
			ns := c.boxes[p.box]
			switch {
			case ns[p.need].level != at:
				below = append(below, p)
			case !ns[p.need].pass[b]:
				// The box fails on this part.
			case int(p.need)+1 == len(ns):
				holds = true // the box holds on the whole part
			default:
				below = append(below, inPlay{p.box, p.need + 1})
			}
			if holds {
				break
			}
		}
		if holds {
			children[b] = trueNode
			continue
		}
		children[b] = c.build(at+1, below)
		if c.over {
			return falseNode
		}
	}
	n := c.node(at, children)
	c.memo[memoKey] = n
	return n
}

// node returns the unique node at level with children: one of them when
// they are all equal, the union not depending on the level there.
func (c *cover) node(level int, children []int32) int32 {
	same := true
	for _, ch := range children[1:] {
		same = same && ch == children[0]
	}
	if same {
		return children[0]
	}
	c.key = binary.AppendUvarint(c.key[:0], uint64(level))
	for _, ch := range children {
		c.key = binary.AppendUvarint(c.key, uint64(ch))
	}
	if n, ok := c.unique[string(c.key)]; ok {
		return n
	}
	n := c.next
	c.next++
	c.unique[string(c.key)] = n
	// Every node made is part of the final diagram: a node is dropped only
	// when all of a parent's children are the same node, which then takes
	// the parent's place. So the levels marked here are the diagram's.
	c.decides[level] = true
	return n
}

// mergeStarts returns the boxes in play and the boxes starting at this
// level (whose first need is their need 0), sorted by box.
func mergeStarts(play []inPlay, starts []int32) []inPlay {
	if len(starts) == 0 {
		return play
	}
	out := make([]inPlay, 0, len(play)+len(starts))
	i := 0
	for _, s := range starts {
		for i < len(play) && play[i].box < s {
			out = append(out, play[i])
			i++
		}
		out = append(out, inPlay{box: s})
	}
	return append(out, play[i:]...)
}
