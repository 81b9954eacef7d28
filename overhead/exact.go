package overhead

import (
	"slices"
	"strings"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/selector"
)

// cond is what one term asks of one key: sat[i] holds when the key's i-th
// representative meets all of the term's requirements on the key.
type cond struct {
	k   int
	sat []bool
	// reqs are the term's requirements on the key.
	reqs []selector.Requirement
}

// classes is the exact path's view of a DaemonSet on a template: each
// key's possible states fall into finitely many classes that no
// requirement of the DaemonSet tells apart (domain.reps), so checking one
// state per class is checking them all. Keys are independent in a
// template, so the nodes are the product of the keys' classes, and each
// live term that holds somewhere a box in it (terms), unless one holds
// everywhere (every).
type classes struct {
	keys  []string
	doms  []*domain
	reps  [][]rep
	terms [][]cond
	every bool
}

func (d *tplDaemon) classesOn(ct *CompiledTemplate) classes {
	var live []*selector.NodeTerm
	byKey := map[string][]*selector.Requirement{}
	for ti := range d.terms {
		t := &d.terms[ti]
		if !fieldsHold(t, ct.name) {
			continue
		}
		live = append(live, t)
		for ri := range t.Labels {
			r := &t.Labels[ri]
			byKey[r.Key] = append(byKey[r.Key], r)
		}
	}
	c := classes{keys: sortedKeys(byKey)}
	index := make(map[string]int, len(c.keys))
	c.doms = make([]*domain, len(c.keys))
	c.reps = make([][]rep, len(c.keys))
	for k, key := range c.keys {
		index[key] = k
		c.doms[k] = ct.domain(key)
		c.reps[k] = c.doms[k].reps(byKey[key])
	}
	for _, t := range live {
		cs, dead := termConds(t, index, c.reps)
		if dead {
			continue
		}
		if len(cs) == 0 {
			return classes{every: true}
		}
		c.terms = append(c.terms, cs)
	}
	return c
}

// settled answers Every when a term holds everywhere and None when none
// holds anywhere; otherwise ok is false, and the answer is Every or
// Depends.
func (c *classes) settled() (ans Answer, ok bool) {
	switch {
	case c.every:
		return Every, true
	case len(c.terms) == 0:
		return None, true
	}
	return 0, false
}

// exact answers the label part from the classes: whether the terms'
// boxes cover the product, and on which keys that depends, is decided
// without enumerating it (cover). It reports false, having answered
// nothing, when that would take more than budget steps (MaxTemplateSteps
// in a query).
func (d *tplDaemon) exact(ct *CompiledTemplate, a *TemplateAnswer, budget int) (Answer, bool) {
	cl := d.classesOn(ct)
	if ans, ok := cl.settled(); ok {
		return ans, true
	}
	keys, doms, reps, terms := cl.keys, cl.doms, cl.reps, cl.terms
	every, deciding, ok := decide(terms, reps, budget)
	if !ok {
		return 0, false
	}
	if every {
		return Every, true
	}
	for k, yes := range deciding {
		if yes {
			a.Keys = append(a.Keys, keys[k])
		}
	}
	seen := map[string]bool{}
	for _, cs := range terms {
		var w []selector.Requirement
		for _, c := range cs {
			w = append(w, describe(keys[c.k], doms[c.k], reps[c.k], c)...)
		}
		s := requirementsString(w)
		if !seen[s] {
			seen[s] = true
			a.Where = append(a.Where, w)
		}
	}
	return Depends, true
}

// termConds returns what term t asks of each key it names, in key order
// (index gives a key's position), leaving out the keys where every class
// qualifies; dead reports a key where none does: the term holds nowhere.
// Its requirements are grouped by key once, so that a long term costs n
// log n.
func termConds(t *selector.NodeTerm, index map[string]int, reps [][]rep) (cs []cond, dead bool) {
	order := make([]int, len(t.Labels))
	for i := range order {
		order[i] = i
	}
	// By key, then in the term's order, as a key's requirements were
	// listed.
	slices.SortStableFunc(order, func(i, j int) int { return index[t.Labels[i].Key] - index[t.Labels[j].Key] })
	for lo := 0; lo < len(order); {
		k := index[t.Labels[order[lo]].Key]
		hi := lo + 1
		for hi < len(order) && index[t.Labels[order[hi]].Key] == k {
			hi++
		}
		rs := make([]selector.Requirement, 0, hi-lo)
		for _, i := range order[lo:hi] {
			rs = append(rs, t.Labels[i])
		}
		lo = hi
		sat := make([]bool, len(reps[k]))
		n := 0
		for i, p := range reps[k] {
			sat[i] = true
			for ri := range rs {
				if !p.satisfies(&rs[ri]) {
					sat[i] = false
					break
				}
			}
			if sat[i] {
				n++
			}
		}
		if n == 0 {
			return nil, true
		}
		if n < len(sat) {
			cs = append(cs, cond{k: k, sat: sat, reqs: rs})
		}
	}
	return cs, false
}

// decide reports whether the terms cover every node and, when they do not
// and it could tell, which keys decide (indexed like reps); ok is false
// when neither was known within budget steps. Once a node where no
// term holds has been found, Depends is certain: if the deciding keys
// then cost too much, every key a term asks about is reported, a superset.
func decide(terms [][]cond, reps [][]rep, budget int) (every bool, deciding []bool, ok bool) {
	c, keyOf := coverOf(terms, reps, budget)
	every = c.covers()
	deciding = make([]bool, len(reps))
	switch {
	case !c.over:
		for l, yes := range c.decides {
			deciding[keyOf[l]] = yes
		}
	case c.sawFalse:
		every = false
		for _, k := range keyOf {
			deciding[k] = true
		}
	default:
		return false, nil, false
	}
	return every, deciding, true
}

// coverOf lays the terms out as boxes of a cover: a level per key some
// term asks about, the last key on top (the order in which the earlier
// enumeration walked the classes, so that a node where no term holds is
// met no later than it met one), each key's classes grouped into blocks
// that no term tells apart. keyOf maps levels back to keys.
func coverOf(terms [][]cond, reps [][]rep, budget int) (c *cover, keyOf []int) {
	byKey := make([][]*cond, len(reps))
	for _, cs := range terms {
		for i := range cs {
			byKey[cs[i].k] = append(byKey[cs[i].k], &cs[i])
		}
	}
	levelOf := make([]int, len(reps))
	for k := len(reps) - 1; k >= 0; k-- {
		if len(byKey[k]) > 0 {
			levelOf[k] = len(keyOf)
			keyOf = append(keyOf, k)
		}
	}
	blocks := make([]int, len(keyOf))
	pass := map[*cond][]bool{}
	for l, k := range keyOf {
		first := blocksOf(len(reps[k]), byKey[k])
		blocks[l] = len(first)
		for _, cd := range byKey[k] {
			p := make([]bool, len(first))
			for b, i := range first {
				p[b] = cd.sat[i]
			}
			pass[cd] = p
		}
	}
	boxes := make([][]need, len(terms))
	for t, cs := range terms {
		for i := range cs {
			boxes[t] = append(boxes[t], need{level: levelOf[cs[i].k], pass: pass[&cs[i]]})
		}
		slices.SortFunc(boxes[t], func(x, y need) int { return x.level - y.level })
	}
	return newCover(blocks, boxes, budget), keyOf
}

// blocksOf groups n classes by what the conds say of them (partition
// refinement, one pass per cond) and returns each block's first class, in
// class order.
func blocksOf(n int, conds []*cond) (first []int) {
	block := make([]int, n)
	count := 1
	for _, cd := range conds {
		remap := make([]int, 2*count)
		for i := range remap {
			remap[i] = -1
		}
		count = 0
		for i := range block {
			j := 2 * block[i]
			if cd.sat[i] {
				j++
			}
			if remap[j] < 0 {
				remap[j] = count
				count++
			}
			block[i] = remap[j]
		}
	}
	first = make([]int, count)
	seen := make([]bool, count)
	for i, b := range block {
		if !seen[b] {
			seen[b], first[b] = true, i
		}
	}
	return first
}

// describe says what cond c asks of key, in the words a user can act on:
// on a key the template limits to a list of values, the values of that
// list that qualify; otherwise the DaemonSet's own requirements.
func describe(key string, d *domain, reps []rep, c cond) []selector.Requirement {
	if d.anyValue {
		out := make([]selector.Requirement, len(c.reqs))
		for i, r := range c.reqs {
			out[i] = selector.Requirement{Key: r.Key, Operator: r.Operator, Values: slices.Clone(r.Values)}
		}
		return out
	}
	var in, out []string
	absentOK := false
	for i, p := range reps {
		switch {
		case p.absent:
			absentOK = c.sat[i]
		case c.sat[i]:
			in = append(in, p.v)
		default:
			out = append(out, p.v)
		}
	}
	return []selector.Requirement{listed(key, in, out, absentOK)}
}

// describeOne is describe for a single requirement r that holds on some of
// d's states, written into dst, whose Values it reuses.
func (d *domain) describeOne(r *selector.Requirement, dst *selector.Requirement) {
	if d.anyValue {
		// Copy the values: dst's buffer is reused by the next query and
		// must never be the Set's own.
		*dst = selector.Requirement{Key: r.Key, Operator: r.Operator, Values: append(dst.Values[:0], r.Values...)}
		return
	}
	absentOK := d.absent && rep{absent: true}.satisfies(r)
	in := 0
	for _, v := range d.values {
		if (rep{v: v}).satisfies(r) {
			in++
		}
	}
	op, want := api.SelectorOpIn, true
	switch {
	case absentOK && in == 0:
		op = api.SelectorOpDoesNotExist
	case absentOK:
		op, want = api.SelectorOpNotIn, false
	}
	vs := dst.Values[:0]
	if op != api.SelectorOpDoesNotExist {
		for _, v := range d.values {
			if (rep{v: v}).satisfies(r) == want {
				vs = append(vs, v)
			}
		}
	} else {
		vs = nil
	}
	*dst = selector.Requirement{Key: r.Key, Operator: op, Values: vs}
}

// listed says "the present values in, and absence when absentOK" of a
// key whose present values are in and out: In, DoesNotExist or NotIn.
func listed(key string, in, out []string, absentOK bool) selector.Requirement {
	switch {
	case !absentOK:
		return selector.Requirement{Key: key, Operator: api.SelectorOpIn, Values: in}
	case len(in) == 0:
		return selector.Requirement{Key: key, Operator: api.SelectorOpDoesNotExist}
	}
	return selector.Requirement{Key: key, Operator: api.SelectorOpNotIn, Values: out}
}

func requirementsString(rs []selector.Requirement) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = RequirementString(r)
	}
	return strings.Join(parts, ", ")
}

// RequirementString renders r as Karpenter and node affinity spell it:
// "topology.kubernetes.io/zone In [a b]", "gpu Exists", "cpu Gt 4".
func RequirementString(r selector.Requirement) string {
	switch r.Operator {
	case api.SelectorOpExists, api.SelectorOpDoesNotExist:
		return r.Key + " " + string(r.Operator)
	case api.SelectorOpGt, api.SelectorOpLt:
		return r.Key + " " + string(r.Operator) + " " + strings.Join(r.Values, "")
	}
	return r.Key + " " + string(r.Operator) + " [" + strings.Join(r.Values, " ") + "]"
}
