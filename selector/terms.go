package selector

import (
	"slices"

	"github.com/daemonplan/daemonplan/api"
)

// NodeTerm is one alternative of a [NodeMatcher] in disjunctive form: a node
// satisfies it when its labels satisfy every Labels requirement and its
// fields every Fields requirement.
type NodeTerm struct {
	// Labels are the nodeSelector pairs (as In with one value, in key
	// order) followed by the term's matchExpressions, in the term's order,
	// values sorted.
	Labels []Requirement
	// Fields are the term's matchFields, each In or NotIn with one value;
	// Key is the node field ("metadata.name"; any other key reads as "").
	Fields []Requirement
}

// Terms returns m as an OR of [NodeTerm]s, by the rules of [CompileNode]:
// no required node affinity gives one term holding the nodeSelector; a
// required node affinity gives one term per well-formed, non-empty term,
// each with the nodeSelector prepended. An empty result means m matches no
// node. It is for callers that reason about sets of nodes rather than one
// node (the node templates of package overhead); it allocates its result.
func (m NodeMatcher) Terms() []NodeTerm {
	sel := make([]Requirement, len(m.nodeSelector))
	for i, p := range m.nodeSelector {
		sel[i] = Requirement{Key: p.key, Operator: api.SelectorOpIn, Values: []string{p.value}}
	}
	if !m.hasAffinity {
		return []NodeTerm{{Labels: sel}}
	}
	out := make([]NodeTerm, 0, len(m.terms))
	for i := range m.terms {
		t := &m.terms[i]
		nt := NodeTerm{Labels: slices.Clip(slices.Clone(sel))}
		for _, r := range t.exprs {
			nt.Labels = append(nt.Labels, Requirement{Key: r.key, Operator: r.op, Values: slices.Clone(r.values)})
		}
		for _, f := range t.fields {
			op := api.SelectorOpIn
			if f.notIn {
				op = api.SelectorOpNotIn
			}
			nt.Fields = append(nt.Fields, Requirement{Key: f.key, Operator: op, Values: []string{f.value}})
		}
		out = append(out, nt)
	}
	return out
}
