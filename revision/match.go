package revision

import (
	"fmt"

	"github.com/daemonplan/daemonplan/selector"
)

// labelMatcher reports whether a label set is selected.
type labelMatcher func(labels map[string]string) bool

// compileSelector turns spec.selector into a matcher (SPEC 8.1): nil matches
// nothing, an empty selector matches everything, matchLabels pairs and
// expressions are ANDed. An operator other than In, NotIn, Exists and
// DoesNotExist, or a wrong number of values, is an error, as upstream's
// LabelSelectorAsSelector reports.
//
// TODO(revision): switch to selector.Compile once package selector builds;
// this private copy covers only what revisions need and does not check
// label key and value syntax.
func compileSelector(ls *selector.LabelSelector) (labelMatcher, error) {
	if ls == nil {
		return func(map[string]string) bool { return false }, nil
	}
	type req struct {
		key    string
		op     selector.Operator
		values map[string]bool
	}
	var reqs []req
	for k, v := range ls.MatchLabels {
		reqs = append(reqs, req{key: k, op: selector.In, values: map[string]bool{v: true}})
	}
	for i, e := range ls.MatchExpressions {
		switch e.Operator {
		case selector.In, selector.NotIn:
			if len(e.Values) == 0 {
				return nil, fmt.Errorf("spec.selector.matchExpressions[%d].values: Required value: for 'in', 'notin' operators, values set can't be empty", i)
			}
		case selector.Exists, selector.DoesNotExist:
			if len(e.Values) != 0 {
				return nil, fmt.Errorf("spec.selector.matchExpressions[%d].values: Forbidden: values set must be empty for exists and does not exist", i)
			}
		default:
			return nil, fmt.Errorf("spec.selector.matchExpressions[%d].operator: Invalid value: %q: is not a valid label selector operator", i, string(e.Operator))
		}
		set := make(map[string]bool, len(e.Values))
		for _, v := range e.Values {
			set[v] = true
		}
		reqs = append(reqs, req{key: e.Key, op: e.Operator, values: set})
	}
	return func(labels map[string]string) bool {
		for _, r := range reqs {
			v, ok := labels[r.key]
			switch r.op {
			case selector.In:
				if !ok || !r.values[v] {
					return false
				}
			case selector.NotIn:
				if ok && r.values[v] {
					return false
				}
			case selector.Exists:
				if !ok {
					return false
				}
			case selector.DoesNotExist:
				if ok {
					return false
				}
			}
		}
		return true
	}, nil
}
