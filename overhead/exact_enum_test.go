package overhead

import (
	"slices"

	"github.com/daemonplan/daemonplan/selector"
)

// The exact path as it was before the cover (cover.go), kept as the
// reference the cover is checked against (TestCoverAgreesWithEnumeration):
// it enumerates every class of the keys the terms ask about, and is
// exponential in their number.

// enumMaxCells bounds the states enumerated to find the deciding keys of a
// Depends answer; beyond it Keys are the keys Where names.
const enumMaxCells = 1 << 16

// exactByEnumeration answers the label part from representatives
// (domain.reps), as exact does, by walking the product of the classes of
// the keys the terms ask about: up to enumMaxCells of them it tabulates
// every class to find the deciding keys; beyond, it walks until a class
// where no term holds, and reports every key asked about.
func (d *tplDaemon) exactByEnumeration(ct *CompiledTemplate, a *TemplateAnswer) Answer {
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
	keys := sortedKeys(byKey)
	doms := make([]*domain, len(keys))
	reps := make([][]rep, len(keys))
	for k, key := range keys {
		doms[k] = ct.domain(key)
		reps[k] = doms[k].reps(byKey[key])
	}
	var terms [][]cond
	for _, t := range live {
		var cs []cond
		dead := false
		for k, key := range keys {
			var rs []selector.Requirement
			for _, r := range t.Labels {
				if r.Key == key {
					rs = append(rs, r)
				}
			}
			if len(rs) == 0 {
				continue
			}
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
				dead = true
				break
			}
			if n < len(sat) {
				cs = append(cs, cond{k: k, sat: sat, reqs: rs})
			}
		}
		if dead {
			continue
		}
		if len(cs) == 0 {
			return Every
		}
		terms = append(terms, cs)
	}
	if len(terms) == 0 {
		return None
	}
	// The keys some term still asks about, and the product of their classes.
	var used []int
	for _, cs := range terms {
		for _, c := range cs {
			if !slices.Contains(used, c.k) {
				used = append(used, c.k)
			}
		}
	}
	slices.Sort(used)
	cells := 1
	for _, k := range used {
		cells *= len(reps[k])
		if cells > enumMaxCells {
			cells = enumMaxCells + 1
			break
		}
	}
	at := make([]int, len(keys)) // the class of each key in the state looked at
	holds := func() bool {
		for _, cs := range terms {
			ok := true
			for _, c := range cs {
				if !c.sat[at[c.k]] {
					ok = false
					break
				}
			}
			if ok {
				return true
			}
		}
		return false
	}
	// next steps at through the product of the used keys' classes and
	// reports false once it wraps around.
	next := func() bool {
		for _, k := range used {
			at[k]++
			if at[k] < len(reps[k]) {
				return true
			}
			at[k] = 0
		}
		return false
	}
	var deciding []bool
	if cells <= enumMaxCells {
		table := make([]bool, 0, cells)
		for {
			table = append(table, holds())
			if !next() {
				break
			}
		}
		if !slices.Contains(table, false) {
			return Every
		}
		deciding = enumDecidingKeys(table, used, reps)
	} else {
		every := true
		for {
			if !holds() {
				every = false
				break
			}
			if !next() {
				break
			}
		}
		if every {
			return Every
		}
	}
	for u, k := range used {
		if deciding == nil || deciding[u] {
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
	return Depends
}

// enumDecidingKeys reports, per used key, whether two states differing in that
// key alone differ in table (laid out with used[0] varying fastest).
// Stepping each key cyclically joins all of its classes, so comparing
// neighbours is enough.
func enumDecidingKeys(table []bool, used []int, reps [][]rep) []bool {
	out := make([]bool, len(used))
	stride := 1
	for u, k := range used {
		n := len(reps[k])
		for i := range table {
			digit := (i / stride) % n
			j := i - digit*stride + ((digit+1)%n)*stride
			if table[i] != table[j] {
				out[u] = true
				break
			}
		}
		stride *= n
	}
	return out
}
