package api

import (
	"maps"
	"slices"

	"github.com/daemonplan/daemonplan/field"
)

// SelectorOperator is the operator of a label selector requirement or a
// node selector requirement (metav1.LabelSelectorOperator and
// corev1.NodeSelectorOperator, which share their values). Package selector
// adds the three operators that exist only in the kubectl -l string syntax.
type SelectorOperator string

// The operators of the API: In, NotIn, Exists and DoesNotExist in label
// selectors; node selector requirements add Gt and Lt.
const (
	SelectorOpIn           SelectorOperator = "In"
	SelectorOpNotIn        SelectorOperator = "NotIn"
	SelectorOpExists       SelectorOperator = "Exists"
	SelectorOpDoesNotExist SelectorOperator = "DoesNotExist"
	SelectorOpGt           SelectorOperator = "Gt"
	SelectorOpLt           SelectorOperator = "Lt"
)

// LabelSelectorRequirement is one entry of [LabelSelector.MatchExpressions], as
// the API writes it (metav1.LabelSelectorRequirement).
type LabelSelectorRequirement struct {
	Key      string
	Operator SelectorOperator
	Values   []string
}

// LabelSelector is a label selector as the API writes it (metav1.LabelSelector).
// A nil *LabelSelector selects nothing; a non-nil one with no matchLabels and no
// matchExpressions selects everything.
type LabelSelector struct {
	MatchLabels      map[string]string
	MatchExpressions []LabelSelectorRequirement
}

// NodeSelectorRequirement is one requirement of a node selector term
// (corev1.NodeSelectorRequirement). In MatchExpressions the key is a node
// label; in MatchFields it is a node field, and only "metadata.name" exists.
type NodeSelectorRequirement struct {
	Key      string
	Operator SelectorOperator
	Values   []string
}

// NodeSelectorTerm is one term of a required node affinity. Its expressions
// and fields are ANDed. A term with neither matches nothing.
type NodeSelectorTerm struct {
	MatchExpressions []NodeSelectorRequirement
	MatchFields      []NodeSelectorRequirement
}

// NodeSelector is requiredDuringSchedulingIgnoredDuringExecution of a node
// affinity (corev1.NodeSelector): its terms are ORed. A non-nil NodeSelector
// with no terms matches nothing.
type NodeSelector struct {
	Terms []NodeSelectorTerm
}

// NodeNameField is the only node field that MatchFields can name.
const NodeNameField = "metadata.name"

// DeepCopy returns a copy of s that shares no memory with it; nil gives nil.
// nil maps and slices stay nil and empty ones stay empty, because an empty
// selector and a nil one mean different things.
func (s *LabelSelector) DeepCopy() *LabelSelector {
	if s == nil {
		return nil
	}
	out := &LabelSelector{MatchLabels: maps.Clone(s.MatchLabels)}
	if s.MatchExpressions != nil {
		out.MatchExpressions = make([]LabelSelectorRequirement, len(s.MatchExpressions))
		for i, r := range s.MatchExpressions {
			out.MatchExpressions[i] = LabelSelectorRequirement{Key: r.Key, Operator: r.Operator, Values: slices.Clone(r.Values)}
		}
	}
	return out
}

// DeepCopy returns a copy of s that shares no memory with it; nil gives nil.
func (s *NodeSelector) DeepCopy() *NodeSelector {
	if s == nil {
		return nil
	}
	out := &NodeSelector{}
	if s.Terms != nil {
		out.Terms = make([]NodeSelectorTerm, len(s.Terms))
		for i, t := range s.Terms {
			out.Terms[i] = NodeSelectorTerm{
				MatchExpressions: cloneRequirements(t.MatchExpressions),
				MatchFields:      cloneRequirements(t.MatchFields),
			}
		}
	}
	return out
}

func cloneRequirements(rs []NodeSelectorRequirement) []NodeSelectorRequirement {
	if rs == nil {
		return nil
	}
	out := make([]NodeSelectorRequirement, len(rs))
	for i, r := range rs {
		out[i] = NodeSelectorRequirement{Key: r.Key, Operator: r.Operator, Values: slices.Clone(r.Values)}
	}
	return out
}

// ValidateLabelSelector reports every problem of ls as the API server does
// (docs/validation.md, V3), with paths relative to the selector:
//
//  1. nil: no problem.
//  2. matchLabels: each invalid key or value is Invalid at "matchLabels"
//     (keys visited in sorted order).
//  3. matchExpressions[i]: In and NotIn without values are Required at
//     ".values"; Exists and DoesNotExist with values are Forbidden at
//     ".values"; any other operator (Gt, Lt and "=" included) is Invalid at
//     ".operator"; an invalid key is Invalid at ".key"; each invalid value is
//     Invalid at ".values[j]".
func ValidateLabelSelector(ls *LabelSelector) field.ErrorList {
	if ls == nil {
		return nil
	}
	var errs field.ErrorList
	labelsPath := field.NewPath("matchLabels")
	for _, k := range sortedKeys(ls.MatchLabels) {
		errs = append(errs, field.InvalidEach(labelsPath, k, ValidateLabelKey(k))...)
		v := ls.MatchLabels[k]
		errs = append(errs, field.InvalidEach(labelsPath, v, ValidateLabelValue(v))...)
	}
	exprsPath := field.NewPath("matchExpressions")
	for i, e := range ls.MatchExpressions {
		p := exprsPath.Index(i)
		switch e.Operator {
		case SelectorOpIn, SelectorOpNotIn:
			if len(e.Values) == 0 {
				errs = append(errs, field.Required(p.Child("values"),
					"must be specified when `operator` is 'In' or 'NotIn'"))
			}
		case SelectorOpExists, SelectorOpDoesNotExist:
			if len(e.Values) > 0 {
				errs = append(errs, field.Forbidden(p.Child("values"),
					"may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
			}
		default:
			errs = append(errs, field.Invalid(p.Child("operator"), string(e.Operator),
				"not a valid selector operator"))
		}
		errs = append(errs, field.InvalidEach(p.Child("key"), e.Key, ValidateLabelKey(e.Key))...)
		errs = append(errs, ValidateLabelValues(p.Child("values"), e.Values)...)
	}
	return errs
}

// ValidateLabelValues reports each problem of each label value as Invalid
// at p[j], for lists of values such as a requirement's.
func ValidateLabelValues(p *field.Path, values []string) field.ErrorList {
	var errs field.ErrorList
	for j, v := range values {
		errs = append(errs, field.InvalidEach(p.Index(j), v, ValidateLabelValue(v))...)
	}
	return errs
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
// An empty term is valid here (it matches nothing). Unlike compilation,
// strict validation does not check that Gt and Lt values are integers
// ([github.com/daemonplan/daemonplan/selector.CompileNode] does).
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
	case SelectorOpIn, SelectorOpNotIn:
		if len(e.Values) == 0 {
			errs = append(errs, field.Required(vp, "must be specified when `operator` is 'In' or 'NotIn'"))
		}
	case SelectorOpExists, SelectorOpDoesNotExist:
		if len(e.Values) > 0 {
			errs = append(errs, field.Forbidden(vp, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
		}
	case SelectorOpGt, SelectorOpLt:
		if len(e.Values) != 1 {
			errs = append(errs, field.Required(vp, "must be specified single value when `operator` is 'Lt' or 'Gt'"))
		}
	default:
		errs = append(errs, field.Invalid(p.Child("operator"), string(e.Operator), "not a valid selector operator"))
	}
	errs = append(errs, field.InvalidEach(p.Child("key"), e.Key, ValidateLabelKey(e.Key))...)
	return append(errs, ValidateLabelValues(vp, e.Values)...)
}

func validateNodeField(p *field.Path, f NodeSelectorRequirement) field.ErrorList {
	var errs field.ErrorList
	vp := p.Child("values")
	switch f.Operator {
	case SelectorOpIn, SelectorOpNotIn:
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
		errs = append(errs, field.InvalidEach(vp.Index(k), v, IsDNS1123Subdomain(v))...)
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
		errs = append(errs, field.InvalidEach(p, k, ValidateLabelKey(k))...)
		v := m[k]
		errs = append(errs, field.InvalidEach(p, v, ValidateLabelValue(v))...)
	}
	return errs
}

// validSelectorMatches reports whether labels satisfy ls, a label selector
// that ValidateLabelSelector accepts, by the rules of selector.Compile: nil
// matches nothing; every matchLabels pair present with its value; In: the
// key present with one of the values; NotIn: the key absent or its value
// none of them; Exists and DoesNotExist: the key present or absent.
// Validate needs only this one check, so it reads the selector as written
// rather than compiling it; package selector is the matcher for callers.
func validSelectorMatches(ls *LabelSelector, labels map[string]string) bool {
	if ls == nil {
		return false
	}
	for k, want := range ls.MatchLabels {
		if v, ok := labels[k]; !ok || v != want {
			return false
		}
	}
	for _, e := range ls.MatchExpressions {
		v, ok := labels[e.Key]
		var holds bool
		switch e.Operator {
		case SelectorOpIn:
			holds = ok && slices.Contains(e.Values, v)
		case SelectorOpNotIn:
			holds = !ok || !slices.Contains(e.Values, v)
		case SelectorOpExists:
			holds = ok
		case SelectorOpDoesNotExist:
			holds = !ok
		}
		if !holds {
			return false
		}
	}
	return true
}

// sortedKeys returns the keys of m in order, in one allocation, so that
// problems are reported in an order that does not depend on the map.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
