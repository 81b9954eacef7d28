package selector

import (
	"maps"
	"slices"
)

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
