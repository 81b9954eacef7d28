package selector

import (
	"slices"
	"strings"

	"github.com/daemonplan/daemonplan/api"
)

// Requirement is one condition of a [Selector]: a key, an operator and its
// values, as written in the API or in the string syntax. Requirements built
// by [Compile] or [Parse] are valid and their values sorted and deduplicated;
// one built by hand need not be valid, and Matches then follows upstream's
// fallbacks (an unknown operator matches nothing).
type Requirement struct {
	Key      string
	Operator api.SelectorOperator
	Values   []string
}

// Matches reports whether labels satisfy r (docs/eligibility.md, E5):
//
//  1. In, "=" and "==": the key is present and its value is one of Values.
//  2. NotIn and "!=": the key is absent, or its value is none of Values.
//  3. Exists: the key is present, whatever its value (even "").
//  4. DoesNotExist: the key is absent.
//  5. Gt and Lt: the key is present, its value is a base-10 int64 in the
//     syntax of strconv.ParseInt ("007" is 7, "+7" is 7), Values holds
//     exactly one value that parses likewise, and the label is strictly
//     greater (Gt) or less (Lt) than it.
//  6. Any other operator matches nothing.
//
// A nil labels map is a node or object without labels.
func (r Requirement) Matches(labels map[string]string) bool {
	v, ok := labels[r.Key]
	switch r.Operator {
	case api.SelectorOpIn, Equals, DoubleEquals:
		return ok && slices.Contains(r.Values, v)
	case api.SelectorOpNotIn, NotEquals:
		return !ok || !slices.Contains(r.Values, v)
	case api.SelectorOpExists:
		return ok
	case api.SelectorOpDoesNotExist:
		return !ok
	case api.SelectorOpGt, api.SelectorOpLt:
		if !ok || len(r.Values) != 1 {
			return false
		}
		have, ok1 := parseInt64(v)
		bound, ok2 := parseInt64(r.Values[0])
		if !ok1 || !ok2 {
			return false
		}
		if r.Operator == api.SelectorOpGt {
			return have > bound
		}
		return have < bound
	}
	return false
}

// String renders r in the kubectl -l syntax: "k=v", "k==v", "k!=v",
// "k in (a,b)", "k notin (a)", "k", "!k", "k>5", "k<5". Values are written
// in sorted order.
func (r Requirement) String() string {
	var b strings.Builder
	writeRequirement(&b, r.Key, r.Operator, r.Values)
	return b.String()
}

func writeRequirement(b *strings.Builder, key string, op api.SelectorOperator, values []string) {
	if op == api.SelectorOpDoesNotExist {
		b.WriteByte('!')
	}
	b.WriteString(key)
	switch op {
	case api.SelectorOpExists, api.SelectorOpDoesNotExist:
		return
	case api.SelectorOpIn:
		b.WriteString(" in (")
	case api.SelectorOpNotIn:
		b.WriteString(" notin (")
	case api.SelectorOpGt:
		b.WriteByte('>')
	case api.SelectorOpLt:
		b.WriteByte('<')
	default: // "=", "==", "!="; anything else is written as is
		b.WriteString(string(op))
	}
	if !slices.IsSorted(values) {
		values = slices.Sorted(slices.Values(values))
	}
	b.WriteString(strings.Join(values, ","))
	if op == api.SelectorOpIn || op == api.SelectorOpNotIn {
		b.WriteByte(')')
	}
}

// requirement is the compiled form of a valid Requirement.
type requirement struct {
	key    string
	op     api.SelectorOperator
	values []string // sorted, without duplicates
	bound  int64    // the parsed value of Gt and Lt
}

// linearScanMax is the number of values up to which membership is checked by
// a linear scan rather than a binary search.
const linearScanMax = 8

func (r *requirement) has(v string) bool {
	if len(r.values) <= linearScanMax {
		for _, x := range r.values {
			if x == v {
				return true
			}
		}
		return false
	}
	_, found := slices.BinarySearch(r.values, v)
	return found
}

func (r *requirement) matches(labels map[string]string) bool {
	v, ok := labels[r.key]
	switch r.op {
	case api.SelectorOpIn, Equals, DoubleEquals:
		return ok && r.has(v)
	case api.SelectorOpNotIn, NotEquals:
		return !ok || !r.has(v)
	case api.SelectorOpExists:
		return ok
	case api.SelectorOpDoesNotExist:
		return !ok
	case api.SelectorOpGt:
		n, good := parseInt64(v)
		return ok && good && n > r.bound
	case api.SelectorOpLt:
		n, good := parseInt64(v)
		return ok && good && n < r.bound
	}
	return false
}

// newRequirement compiles a requirement the caller has validated.
func newRequirement(key string, op api.SelectorOperator, values []string) requirement {
	vs := slices.Clone(values)
	slices.Sort(vs)
	vs = slices.Compact(vs)
	r := requirement{key: key, op: op, values: vs}
	if (op == api.SelectorOpGt || op == api.SelectorOpLt) && len(vs) == 1 {
		r.bound, _ = parseInt64(vs[0])
	}
	return r
}

func compareRequirements(a, b requirement) int {
	if c := strings.Compare(a.key, b.key); c != 0 {
		return c
	}
	if c := strings.Compare(string(a.op), string(b.op)); c != 0 {
		return c
	}
	return slices.Compare(a.values, b.values)
}

// Selector is a compiled label selector: a conjunction of requirements,
// checked once and matched many times without allocating. It is immutable
// and safe for concurrent use.
//
// The zero Selector matches nothing, like a nil [*api.LabelSelector];
// Everything (or Parse("")) matches everything. Build one with [Compile],
// [Parse], [Everything], [Nothing] or [FromSet].
type Selector struct {
	reqs []requirement // sorted by compareRequirements; never changed
	// selects is false for the zero Selector, which matches nothing.
	selects bool
}

func newSelector(reqs []requirement) Selector {
	slices.SortFunc(reqs, compareRequirements)
	return Selector{reqs: reqs, selects: true}
}

// Everything returns the [Selector] that matches every label set (an empty
// label selector, the string "").
func Everything() Selector { return Selector{selects: true} }

// Nothing returns the [Selector] that matches no label set (a nil label
// selector). It equals the zero Selector.
func Nothing() Selector { return Selector{} }

// FromSet returns the [Selector] that requires every key of set with exactly
// its value ("k=v" for each pair). A nil or empty set gives [Everything]. Like
// upstream's labels.SelectorFromSet it does not validate keys or values; a
// selector built from an invalid set matches as described but its String may
// not parse back.
func FromSet(set map[string]string) Selector {
	reqs := make([]requirement, 0, len(set))
	for k, v := range set {
		reqs = append(reqs, requirement{key: k, op: Equals, values: []string{v}})
	}
	return newSelector(reqs)
}

// Compile checks a label selector as the API does ([api.ValidateLabelSelector])
// and compiles it (docs/manage.md, M4):
//
//  1. nil: the [Selector] matches nothing (the zero Selector), no error.
//  2. No matchLabels and no matchExpressions: it matches everything.
//  3. Otherwise every matchLabels pair becomes "key=value" and every
//     expression a requirement; all of them must hold.
//
// On error the [Selector] is the zero Selector and the error is a
// [github.com/daemonplan/daemonplan/field.ErrorList] holding every problem,
// with paths relative to the selector ("matchExpressions[0].values"); callers
// root them with ErrorList.Prefix. ls is not changed and not retained.
func Compile(ls *api.LabelSelector) (Selector, error) {
	if ls == nil {
		return Selector{}, nil
	}
	if errs := api.ValidateLabelSelector(ls); len(errs) > 0 {
		return Selector{}, errs
	}
	reqs := make([]requirement, 0, len(ls.MatchLabels)+len(ls.MatchExpressions))
	for k, v := range ls.MatchLabels {
		reqs = append(reqs, newRequirement(k, Equals, []string{v}))
	}
	for _, e := range ls.MatchExpressions {
		reqs = append(reqs, newRequirement(e.Key, e.Operator, e.Values))
	}
	return newSelector(reqs), nil
}

// Matches reports whether labels satisfy every requirement of s. The zero
// [Selector] matches nothing; a selector without requirements matches every
// label set, nil included. It does not allocate.
func (s Selector) Matches(labels map[string]string) bool {
	if !s.selects {
		return false
	}
	for i := range s.reqs {
		if !s.reqs[i].matches(labels) {
			return false
		}
	}
	return true
}

// MatchesNothing reports whether s is the selector of a nil
// [*api.LabelSelector] (the zero [Selector]). A selector whose requirements
// contradict each other ("a=x,a=y") is not reported: it is compiled, it just
// never matches.
func (s Selector) MatchesNothing() bool { return !s.selects }

// Empty reports whether s has no requirement and so matches everything. The
// zero [Selector] is not empty.
func (s Selector) Empty() bool { return s.selects && len(s.reqs) == 0 }

// Requirements returns a copy of the requirements of s in canonical order
// (by key, then operator, then values). It is nil for [Everything] and
// [Nothing].
func (s Selector) Requirements() []Requirement {
	if len(s.reqs) == 0 {
		return nil
	}
	out := make([]Requirement, len(s.reqs))
	for i, r := range s.reqs {
		out[i] = Requirement{Key: r.key, Operator: r.op, Values: slices.Clone(r.values)}
	}
	return out
}

// NothingString is what String returns for the zero [Selector], which has no
// form in the kubectl syntax. [Parse] rejects it, so that a "match nothing"
// selector can never be mistaken for "" (match everything).
const NothingString = "<nothing>"

// String renders s canonically in the kubectl -l syntax: the requirements in
// the order of Requirements, separated by ",", each as [Requirement.String]
// writes it. [Everything] renders as "" and the zero [Selector] as
// [NothingString]. For a selector from [Compile] or [Parse], Parse(s.String())
// returns a selector Equal to s.
func (s Selector) String() string {
	if !s.selects {
		return NothingString
	}
	var b strings.Builder
	for i := range s.reqs {
		if i > 0 {
			b.WriteByte(',')
		}
		r := &s.reqs[i]
		writeRequirement(&b, r.key, r.op, r.values)
	}
	return b.String()
}

// Equal reports whether s and o are the same selector: both match nothing,
// or both have the same canonical requirements. It is structural: "a=x",
// "a==x" and "a in (x)" match the same labels but are not Equal.
func (s Selector) Equal(o Selector) bool {
	if s.selects != o.selects || len(s.reqs) != len(o.reqs) {
		return false
	}
	for i := range s.reqs {
		if compareRequirements(s.reqs[i], o.reqs[i]) != 0 {
			return false
		}
	}
	return true
}
