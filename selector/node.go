package selector

import (
	"strconv"

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

// Mismatch is why a node does not satisfy a NodeMatcher. The zero Mismatch
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
// with CompileNode; it is an immutable value, safe for concurrent use, and
// its methods have value receivers so that CompileNode(...).Match(...)
// reads as one expression. The zero NodeMatcher matches every node.
type NodeMatcher struct {
	nodeSelector []labelPair // sorted by key
	hasAffinity  bool        // a required node selector was given
	terms        []nodeTerm  // its well-formed, non-empty terms, in order
	termErrs     field.ErrorList
}

type labelPair struct{ key, value string }

// nodeTerm is a compiled NodeSelectorTerm. An empty exprs or fields list
// means the term had none, and that part does not constrain.
type nodeTerm struct {
	exprs  []requirement
	fields []fieldRequirement
}

// fieldRequirement is a matchFields entry: the node field key must (or, for
// NotIn, must not) equal value.
type fieldRequirement struct {
	key, value string
	notIn      bool
}

// CompileNode compiles the node constraints of a pod template. It never
// fails: like the DaemonSet controller, which ignores parse errors (upstream
// "lazy errors"), it drops malformed terms and keeps the rest. The rules,
// applied by Match:
//
//  1. nodeSelector: every key must be a node label with exactly that value.
//     A nil or empty map does not constrain. Keys and values are not
//     validated here (see ValidateNodeSelectorMap).
//  2. required == nil: no affinity constraint.
//  3. required != nil: the node must match at least one term (terms ORed).
//     A required selector with no terms, or with only empty terms, matches
//     no node.
//  4. A term with neither matchExpressions nor matchFields is dropped: it
//     matches nothing.
//  5. Within a term, every matchExpressions requirement (on node labels,
//     with the Requirement.Matches rules) and every matchFields requirement
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
func CompileNode(nodeSelector map[string]string, required *NodeSelector) NodeMatcher {
	var m NodeMatcher
	for _, k := range sortedKeys(nodeSelector) {
		m.nodeSelector = append(m.nodeSelector, labelPair{k, nodeSelector[k]})
	}
	if required == nil {
		return m
	}
	m.hasAffinity = true
	termsPath := field.NewPath("nodeSelectorTerms")
	for i, t := range required.Terms {
		if len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0 {
			continue
		}
		term, errs := compileTerm(termsPath.Index(i), t)
		if len(errs) > 0 {
			m.termErrs = append(m.termErrs, errs...)
			continue
		}
		m.terms = append(m.terms, term)
	}
	return m
}

func compileTerm(p *field.Path, t NodeSelectorTerm) (nodeTerm, field.ErrorList) {
	var term nodeTerm
	var errs field.ErrorList
	for j, e := range t.MatchExpressions {
		ep := p.Child("matchExpressions").Index(j)
		switch e.Operator {
		case In, NotIn, Exists, DoesNotExist, Gt, Lt:
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
		case In, NotIn:
			if len(f.Values) != 1 {
				errs = append(errs, field.Invalid(fp.Child("values"), f.Values, "must have one element"))
				continue
			}
			term.fields = append(term.fields, fieldRequirement{key: f.Key, value: f.Values[0], notIn: f.Operator == NotIn})
		default:
			errs = append(errs, field.NotSupported(fp.Child("operator"), string(f.Operator), string(In), string(NotIn)))
		}
	}
	return term, errs
}

// validateNodeRequirement applies upstream's requirement construction rules
// (labels.NewRequirement) to a node label requirement whose operator is one
// of the six node operators.
func validateNodeRequirement(p *field.Path, e NodeSelectorRequirement) field.ErrorList {
	errs := validateKey(p.Child("key"), e.Key)
	vp := p.Child("values")
	switch e.Operator {
	case In, NotIn:
		if len(e.Values) == 0 {
			errs = append(errs, field.Invalid(vp, e.Values, "for 'in', 'notin' operators, values set can't be empty"))
		}
	case Exists, DoesNotExist:
		if len(e.Values) != 0 {
			errs = append(errs, field.Invalid(vp, e.Values, "values set must be empty for exists and does not exist"))
		}
	case Gt, Lt:
		if len(e.Values) != 1 {
			errs = append(errs, field.Invalid(vp, e.Values, "for 'Gt', 'Lt' operators, exactly one value is required"))
		}
		for i, v := range e.Values {
			if _, ok := parseInt64(v); !ok {
				errs = append(errs, field.Invalid(vp.Index(i), v, "for 'Gt', 'Lt' operators, the value must be an integer"))
			}
		}
	}
	return append(errs, validateValues(vp, e.Values)...)
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
// and if not, why (see CompileNode for the rules). The nodeSelector is
// checked first; its failure wins over an affinity failure. It does not
// allocate.
func (m NodeMatcher) Match(nodeName string, labels map[string]string) (bool, Mismatch) {
	for i := range m.nodeSelector {
		p := &m.nodeSelector[i]
		if v, ok := labels[p.key]; !ok || v != p.value {
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
		f := &t.fields[i]
		have := ""
		if f.key == NodeNameField {
			have = nodeName
		}
		if (have == f.value) == f.notIn {
			return false
		}
	}
	return true
}

// ValidateNodeSelector reports every problem of a required node affinity as
// the API server does (docs/validation.md, V8), with paths relative to the
// node selector:
//
//  1. nil: no problem. No terms: Required at "nodeSelectorTerms".
//  2. matchExpressions[j] of term i, at "nodeSelectorTerms[i].matchExpressions[j]":
//     In and NotIn without values are Required at ".values"; Exists and
//     DoesNotExist with values Forbidden at ".values"; Gt and Lt without
//     exactly one value Required at ".values"; another operator Invalid at
//     ".operator"; an invalid key Invalid at ".key" (one error per
//     problem); each invalid value Invalid at ".values[k]".
//  3. matchFields[j]: In and NotIn without exactly one value Required at
//     ".values"; another operator Invalid at ".operator"; a key other than
//     metadata.name Invalid at ".key"; for metadata.name, each value that is
//     not a DNS-1123 subdomain Invalid at ".values[k]".
//
// An empty term is valid here (it matches nothing). Unlike CompileNode,
// strict validation does not check that Gt and Lt values are integers.
func ValidateNodeSelector(ns *NodeSelector) field.ErrorList {
	if ns == nil {
		return nil
	}
	termsPath := field.NewPath("nodeSelectorTerms")
	if len(ns.Terms) == 0 {
		return field.ErrorList{field.Required(termsPath, "must have at least one node selector term")}
	}
	var errs field.ErrorList
	for i, t := range ns.Terms {
		tp := termsPath.Index(i)
		for j, e := range t.MatchExpressions {
			errs = append(errs, validateNodeExpression(tp.Child("matchExpressions").Index(j), e)...)
		}
		for j, f := range t.MatchFields {
			errs = append(errs, validateNodeField(tp.Child("matchFields").Index(j), f)...)
		}
	}
	return errs
}

func validateNodeExpression(p *field.Path, e NodeSelectorRequirement) field.ErrorList {
	var errs field.ErrorList
	vp := p.Child("values")
	switch e.Operator {
	case In, NotIn:
		if len(e.Values) == 0 {
			errs = append(errs, field.Required(vp, "must be specified when `operator` is 'In' or 'NotIn'"))
		}
	case Exists, DoesNotExist:
		if len(e.Values) > 0 {
			errs = append(errs, field.Forbidden(vp, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
		}
	case Gt, Lt:
		if len(e.Values) != 1 {
			errs = append(errs, field.Required(vp, "must be specified single value when `operator` is 'Lt' or 'Gt'"))
		}
	default:
		errs = append(errs, field.Invalid(p.Child("operator"), string(e.Operator), "not a valid selector operator"))
	}
	errs = append(errs, validateKey(p.Child("key"), e.Key)...)
	return append(errs, validateValues(vp, e.Values)...)
}

func validateNodeField(p *field.Path, f NodeSelectorRequirement) field.ErrorList {
	var errs field.ErrorList
	vp := p.Child("values")
	switch f.Operator {
	case In, NotIn:
		if len(f.Values) != 1 {
			errs = append(errs, field.Required(vp, "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
		}
	default:
		errs = append(errs, field.Invalid(p.Child("operator"), string(f.Operator), "not a valid selector operator"))
	}
	if f.Key != NodeNameField {
		return append(errs, field.Invalid(p.Child("key"), f.Key, "not a valid field selector key"))
	}
	for k, v := range f.Values {
		for _, msg := range IsDNS1123Subdomain(v) {
			errs = append(errs, field.Invalid(vp.Index(k), v, msg))
		}
	}
	return errs
}

// ValidateNodeSelectorMap reports every problem of a pod's spec.nodeSelector
// map: each key must be a label key and each value a label value. Problems
// are Invalid at "[key]" (keys in sorted order; the key's problems, then the
// value's), relative to the map.
func ValidateNodeSelectorMap(m map[string]string) field.ErrorList {
	var errs field.ErrorList
	root := &field.Path{}
	for _, k := range sortedKeys(m) {
		p := root.Key(k)
		for _, msg := range ValidateLabelKey(k) {
			errs = append(errs, field.Invalid(p, k, msg))
		}
		v := m[k]
		for _, msg := range ValidateLabelValue(v) {
			errs = append(errs, field.Invalid(p, v, msg))
		}
	}
	return errs
}
