package overhead

import (
	"slices"
	"strings"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/selector"
)

// maxCells bounds the states enumerated to find the deciding keys of a
// Depends answer; beyond it Keys are the keys Where names.
const maxCells = 1 << 16

// cond is what one term asks of one key: sat[i] holds when the key's i-th
// representative meets all of the term's requirements on the key.
type cond struct {
	k   int
	sat []bool
	// reqs are the term's requirements on the key.
	reqs []selector.Requirement
}

// exact answers the label part from representatives (domain.reps): each
// key's possible states fall into finitely many classes that no
// requirement of the DaemonSet tells apart, so checking one state per
// class is checking them all. Keys are independent in a template, so the
// nodes are the product of the keys' classes.
func (d *tplDaemon) exact(ct *CompiledTemplate, a *TemplateAnswer) Answer {
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
		if cells > maxCells {
			cells = maxCells + 1
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
	if cells <= maxCells {
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
		deciding = decidingKeys(table, used, reps)
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

// decidingKeys reports, per used key, whether two states differing in that
// key alone differ in table (laid out with used[0] varying fastest).
// Stepping each key cyclically joins all of its classes, so comparing
// neighbours is enough.
func decidingKeys(table []bool, used []int, reps [][]rep) []bool {
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
