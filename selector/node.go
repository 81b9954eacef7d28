package selector

import (
	"slices"
	"strconv"
	"strings"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
)

// MismatchKind says which part of a pod's node constraints a node failed.
type MismatchKind int

// The mismatch kinds. The zero value means "no mismatch".
const (
	// NodeSelectorMismatch: a key of spec.nodeSelector is missing from the
	// node's labels or has another value.
	NodeSelectorMismatch MismatchKind = iota + 1
	// NodeAffinityMismatch: no term of the required node affinity matched.
	NodeAffinityMismatch
)

// String returns the kind's name, or "" for the zero value.
func (k MismatchKind) String() string {
	switch k {
	case 0:
		return ""
	case NodeSelectorMismatch:
		return "NodeSelectorMismatch"
	case NodeAffinityMismatch:
		return "NodeAffinityMismatch"
	}
	return "MismatchKind(" + strconv.Itoa(int(k)) + ")"
}

// Mismatch is why a node does not satisfy a [NodeMatcher]. The zero Mismatch
// means it does.
type Mismatch struct {
	Kind MismatchKind
	// Key is, for NodeSelectorMismatch, the first nodeSelector key (in
	// sorted order) that the node's labels lack or hold with another value;
	// empty otherwise.
	Key string
}

// String renders m for humans, e.g. `node selector key "disk" not matched`.
func (m Mismatch) String() string {
	switch m.Kind {
	case 0:
		return ""
	case NodeSelectorMismatch:
		return "node selector key " + strconv.Quote(m.Key) + " not matched"
	case NodeAffinityMismatch:
		return "no required node affinity term matched"
	}
	return m.Kind.String()
}

// NodeMatcher is the compiled node constraint of a pod template: its
// spec.nodeSelector map AND its required node affinity (docs/eligibility.md,
// E3 and E4). Build it
// with [CompileNode]; it is an immutable value, safe for concurrent use, and
// its methods have value receivers so that CompileNode(...).Match(...)
// reads as one expression. The zero NodeMatcher matches every node.
type NodeMatcher struct {
	nodeSelector []labelPair // sorted by key
	hasAffinity  bool        // a required node selector was given
	terms        []nodeTerm  // its well-formed, non-empty terms, in order
	termErrs     field.ErrorList
	// dropped are the terms left out of terms, empty or malformed, in
	// order: Mismatches reports them.
	dropped []droppedTerm
}

type labelPair struct{ key, value string }

// matches reports whether labels hold the pair (rule 1 of CompileNode).
func (p *labelPair) matches(labels map[string]string) bool {
	v, ok := labels[p.key]
	return ok && v == p.value
}

// nodeTerm is a compiled NodeSelectorTerm. An empty exprs or fields list
// means the term had none, and that part does not constrain.
type nodeTerm struct {
	exprs  []requirement
	fields []fieldRequirement
	index  int // the term's index in the required node selector's Terms
}

// droppedTerm is a term CompileNode left out: empty (errs nil) or
// malformed.
type droppedTerm struct {
	index int
	errs  field.ErrorList
}

// fieldRequirement is a matchFields entry: the node field key must (or, for
// NotIn, must not) equal value.
type fieldRequirement struct {
	key, value string
	notIn      bool
}

// matches reports whether the node named nodeName satisfies f (rule 6 of
// CompileNode); nodeName is not empty.
func (f *fieldRequirement) matches(nodeName string) bool {
	have := ""
	if f.key == api.NodeNameField {
		have = nodeName
	}
	return (have == f.value) != f.notIn
}

// CompileNode compiles the node constraints of a pod template. It never
// fails: like the DaemonSet controller, which ignores parse errors (upstream
// "lazy errors"), it drops malformed terms and keeps the rest. The rules,
// applied by Match:
//
//  1. nodeSelector: every key must be a node label with exactly that value.
//     A nil or empty map does not constrain. Keys and values are not
//     validated here (see [api.ValidateNodeSelectorMap]).
//  2. required == nil: no affinity constraint.
//  3. required != nil: the node must match at least one term (terms ORed).
//     A required selector with no terms, or with only empty terms, matches
//     no node.
//  4. A term with neither matchExpressions nor matchFields is dropped: it
//     matches nothing.
//  5. Within a term, every matchExpressions requirement (on node labels,
//     with the [Requirement.Matches] rules) and every matchFields requirement
//     must hold.
//  6. matchFields compare a node field with In (equal) or NotIn (not equal)
//     and exactly one value. The only node field is metadata.name; another
//     key reads as "". When the node name is empty the term's matchFields
//     are skipped, as upstream does.
//  7. A term with any malformed requirement never matches, and the other
//     terms still count. Malformed: an operator other than In, NotIn,
//     Exists, DoesNotExist, Gt, Lt (matchFields: In, NotIn); an invalid
//     label key or value; In or NotIn without values; Exists or
//     DoesNotExist with values; Gt or Lt without exactly one int64 value;
//     a matchFields entry without exactly one value. ParseErrors lists
//     these problems.
//
// The inputs are copied, not retained.
func CompileNode(nodeSelector map[string]string, required *api.NodeSelector) NodeMatcher {
	var m NodeMatcher
	m.nodeSelector = make([]labelPair, 0, len(nodeSelector))
	for k, v := range nodeSelector {
		m.nodeSelector = append(m.nodeSelector, labelPair{k, v})
	}
	slices.SortFunc(m.nodeSelector, func(a, b labelPair) int { return strings.Compare(a.key, b.key) })
	if required == nil {
		return m
	}
	m.hasAffinity = true
	termsPath := field.NewPath("nodeSelectorTerms")
	for i, t := range required.Terms {
		if len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0 {
			m.dropped = append(m.dropped, droppedTerm{index: i})
			continue
		}
		term, errs := compileTerm(termsPath.Index(i), t)
		if len(errs) > 0 {
			m.termErrs = append(m.termErrs, errs...)
			m.dropped = append(m.dropped, droppedTerm{index: i, errs: errs})
			continue
		}
		term.index = i
		m.terms = append(m.terms, term)
	}
	return m
}

func compileTerm(p *field.Path, t api.NodeSelectorTerm) (nodeTerm, field.ErrorList) {
	var term nodeTerm
	var errs field.ErrorList
	for j, e := range t.MatchExpressions {
		ep := p.Child("matchExpressions").Index(j)
		switch e.Operator {
		case api.SelectorOpIn, api.SelectorOpNotIn, api.SelectorOpExists, api.SelectorOpDoesNotExist, api.SelectorOpGt, api.SelectorOpLt:
		default:
			errs = append(errs, field.NotSupported(ep.Child("operator"), string(e.Operator)))
			continue
		}
		if rerrs := validateNodeRequirement(ep, e); len(rerrs) > 0 {
			errs = append(errs, rerrs...)
			continue
		}
		term.exprs = append(term.exprs, newRequirement(e.Key, e.Operator, e.Values))
	}
	for j, f := range t.MatchFields {
		fp := p.Child("matchFields").Index(j)
		switch f.Operator {
		case api.SelectorOpIn, api.SelectorOpNotIn:
			if len(f.Values) != 1 {
				errs = append(errs, field.Invalid(fp.Child("values"), f.Values, "must have one element"))
				continue
			}
			term.fields = append(term.fields, fieldRequirement{key: f.Key, value: f.Values[0], notIn: f.Operator == api.SelectorOpNotIn})
		default:
			errs = append(errs, field.NotSupported(fp.Child("operator"), string(f.Operator), string(api.SelectorOpIn), string(api.SelectorOpNotIn)))
		}
	}
	return term, errs
}

// validateNodeRequirement applies upstream's requirement construction rules
// (labels.NewRequirement) to a node label requirement whose operator is one
// of the six node operators.
func validateNodeRequirement(p *field.Path, e api.NodeSelectorRequirement) field.ErrorList {
	errs := field.InvalidEach(p.Child("key"), e.Key, api.ValidateLabelKey(e.Key))
	vp := p.Child("values")
	switch e.Operator {
	case api.SelectorOpIn, api.SelectorOpNotIn:
		if len(e.Values) == 0 {
			errs = append(errs, field.Invalid(vp, e.Values, "for 'in', 'notin' operators, values set can't be empty"))
		}
	case api.SelectorOpExists, api.SelectorOpDoesNotExist:
		if len(e.Values) != 0 {
			errs = append(errs, field.Invalid(vp, e.Values, "values set must be empty for exists and does not exist"))
		}
	case api.SelectorOpGt, api.SelectorOpLt:
		if len(e.Values) != 1 {
			errs = append(errs, field.Invalid(vp, e.Values, "for 'Gt', 'Lt' operators, exactly one value is required"))
		}
		for i, v := range e.Values {
			if _, ok := parseInt64(v); !ok {
				errs = append(errs, field.Invalid(vp.Index(i), v, "for 'Gt', 'Lt' operators, the value must be an integer"))
			}
		}
	}
	return append(errs, api.ValidateLabelValues(vp, e.Values)...)
}

// ParseErrors returns the problems that made terms of the required node
// affinity malformed, with paths relative to the node selector
// ("nodeSelectorTerms[2].matchExpressions[0].key"). Match ignores them as the
// DaemonSet controller does; they are for callers that want to warn. The
// list is a copy; nil when every term was well-formed.
func (m NodeMatcher) ParseErrors() field.ErrorList {
	if len(m.termErrs) == 0 {
		return nil
	}
	out := make(field.ErrorList, len(m.termErrs))
	for i, e := range m.termErrs {
		c := *e
		out[i] = &c
	}
	return out
}

// Match reports whether a node with this name and these labels satisfies m,
// and if not, why (see [CompileNode] for the rules). The nodeSelector is
// checked first; its failure wins over an affinity failure. It does not
// allocate.
func (m NodeMatcher) Match(nodeName string, labels map[string]string) (bool, Mismatch) {
	for i := range m.nodeSelector {
		if p := &m.nodeSelector[i]; !p.matches(labels) {
			return false, Mismatch{Kind: NodeSelectorMismatch, Key: p.key}
		}
	}
	if !m.hasAffinity {
		return true, Mismatch{}
	}
	for i := range m.terms {
		if m.terms[i].matches(nodeName, labels) {
			return true, Mismatch{}
		}
	}
	return false, Mismatch{Kind: NodeAffinityMismatch}
}

func (t *nodeTerm) matches(nodeName string, labels map[string]string) bool {
	for i := range t.exprs {
		if !t.exprs[i].matches(labels) {
			return false
		}
	}
	if nodeName == "" {
		return true // no node fields: upstream skips matchFields
	}
	for i := range t.fields {
		if !t.fields[i].matches(nodeName) {
			return false
		}
	}
	return true
}

// Mismatches is every reason a node does not satisfy a [NodeMatcher], where
// Match reports only the first. The zero Mismatches means the node
// satisfies it.
type Mismatches struct {
	// Keys are the nodeSelector keys, in sorted order, that the node's
	// labels lack or hold with another value.
	Keys []string
	// Affinity reports that the node matches no term of the required node
	// affinity (E4); Terms then says why each term fails, and is empty
	// when the required node selector has no terms at all.
	Affinity bool
	Terms    []TermMismatch
}

// TermMismatch is why one term of the required node affinity does not
// match a node.
type TermMismatch struct {
	// Term is the term's index in the required node selector's Terms.
	Term int
	// Empty: the term has neither matchExpressions nor matchFields and
	// matches no node (rule 4 of CompileNode).
	Empty bool
	// Malformed lists why the term cannot be parsed and never matches
	// (rule 7), with paths relative to the node selector as ParseErrors
	// gives them; nil for a well-formed term.
	Malformed field.ErrorList
	// Expressions and Fields are the term's matchExpressions and
	// matchFields requirements that the node fails, in the term's order
	// (values sorted), for a well-formed term. A Fields requirement's Key
	// is the node field (metadata.name) and its Operator In or NotIn.
	Expressions, Fields []Requirement
}

// Mismatches reports every reason a node with this name and these labels
// does not satisfy m, by the rules Match applies (see [CompileNode]): every
// nodeSelector key it fails and, when no affinity term matches, why each
// term fails. Match(nodeName, labels) is false exactly when the result is
// not the zero Mismatches (Keys or Affinity set); its [Mismatch] names
// Keys[0] when there is one.
// Unlike Match, it allocates: it is for explaining a decision, not for
// making one.
func (m NodeMatcher) Mismatches(nodeName string, labels map[string]string) Mismatches {
	var out Mismatches
	for i := range m.nodeSelector {
		if p := &m.nodeSelector[i]; !p.matches(labels) {
			out.Keys = append(out.Keys, p.key)
		}
	}
	if !m.hasAffinity {
		return out
	}
	var terms []TermMismatch
	for i := range m.terms {
		t := &m.terms[i]
		if t.matches(nodeName, labels) {
			return out
		}
		terms = append(terms, t.mismatch(nodeName, labels))
	}
	for _, d := range m.dropped {
		terms = append(terms, TermMismatch{Term: d.index, Empty: d.errs == nil, Malformed: d.errs})
	}
	slices.SortFunc(terms, func(a, b TermMismatch) int { return a.Term - b.Term })
	out.Affinity, out.Terms = true, terms
	return out
}

// mismatch lists the requirements of t, which does not match, that the
// node fails.
func (t *nodeTerm) mismatch(nodeName string, labels map[string]string) TermMismatch {
	tm := TermMismatch{Term: t.index}
	for i := range t.exprs {
		if r := &t.exprs[i]; !r.matches(labels) {
			tm.Expressions = append(tm.Expressions, Requirement{Key: r.key, Operator: r.op, Values: slices.Clone(r.values)})
		}
	}
	if nodeName == "" {
		return tm // as matches: no node fields
	}
	for i := range t.fields {
		if f := &t.fields[i]; !f.matches(nodeName) {
			op := api.SelectorOpIn
			if f.notIn {
				op = api.SelectorOpNotIn
			}
			tm.Fields = append(tm.Fields, Requirement{Key: f.key, Operator: op, Values: []string{f.value}})
		}
	}
	return tm
}
