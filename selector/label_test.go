package selector

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
)

type labels = map[string]string

// TestCompile covers docs/manage.md, M4: nil vs empty, matchLabels and expressions
// ANDed, and invalid selectors refused with every problem.
func TestCompile(t *testing.T) {
	tests := []struct {
		name    string
		reason  string
		in      *api.LabelSelector
		wantStr string
		wantErr []errRow
		// match and noMatch are label sets the selector must and must not
		// select.
		match, noMatch []labels
	}{
		{
			name:    "nil",
			reason:  "a nil selector matches nothing, not even an empty label set",
			in:      nil,
			wantStr: NothingString,
			noMatch: []labels{nil, {}, {"app": "x"}},
		},
		{
			name:    "empty",
			reason:  "a selector with no matchLabels and no matchExpressions matches everything",
			in:      &api.LabelSelector{},
			wantStr: "",
			match:   []labels{nil, {}, {"app": "x"}},
		},
		{
			name:    "empty non-nil collections",
			reason:  "empty (not nil) maps and slices are still an empty selector",
			in:      &api.LabelSelector{MatchLabels: map[string]string{}, MatchExpressions: []api.LabelSelectorRequirement{}},
			wantStr: "",
			match:   []labels{nil, {"a": "b"}},
		},
		{
			name:    "matchLabels",
			reason:  "each pair becomes key=value, all ANDed",
			in:      &api.LabelSelector{MatchLabels: labels{"app": "web", "tier": "fe"}},
			wantStr: "app=web,tier=fe",
			match:   []labels{{"app": "web", "tier": "fe"}, {"app": "web", "tier": "fe", "x": "y"}},
			noMatch: []labels{nil, {"app": "web"}, {"app": "web", "tier": "be"}},
		},
		{
			name:   "matchLabels empty value",
			reason: "an empty value requires the key to be present with the empty value",
			in:     &api.LabelSelector{MatchLabels: labels{"app": ""}},
			match:  []labels{{"app": ""}}, noMatch: []labels{{}, {"app": "x"}},
			wantStr: "app=",
		},
		{
			name:   "expressions and labels ANDed",
			reason: "matchLabels and matchExpressions all hold",
			in: &api.LabelSelector{
				MatchLabels: labels{"app": "web"},
				MatchExpressions: []api.LabelSelectorRequirement{
					{Key: "env", Operator: api.SelectorOpNotIn, Values: []string{"prod", "dev"}},
					{Key: "gpu", Operator: api.SelectorOpExists},
					{Key: "legacy", Operator: api.SelectorOpDoesNotExist},
					{Key: "zone", Operator: api.SelectorOpIn, Values: []string{"b", "a", "b"}},
				},
			},
			wantStr: "app=web,env notin (dev,prod),gpu,!legacy,zone in (a,b)",
			match: []labels{
				{"app": "web", "gpu": "", "zone": "a"},
				{"app": "web", "gpu": "x", "zone": "b", "env": "qa"},
			},
			noMatch: []labels{
				{"app": "web", "gpu": "", "zone": "c"},
				{"app": "web", "gpu": "", "zone": "a", "env": "prod"},
				{"app": "web", "zone": "a"},
				{"app": "web", "gpu": "", "zone": "a", "legacy": ""},
				{"gpu": "", "zone": "a"},
			},
		},
		{
			name:   "unknown operator",
			reason: "Gt is a node operator, not a label selector operator",
			in: &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{
				{Key: "a", Operator: api.SelectorOpGt, Values: []string{"1"}},
			}},
			wantErr: []errRow{{field.TypeInvalid, "matchExpressions[0].operator", "Gt"}},
		},
		{
			name:   "all problems collected",
			reason: "Compile reports every problem, not the first",
			in: &api.LabelSelector{
				MatchLabels: labels{"bad key": "ok", "good": "bad value!"},
				MatchExpressions: []api.LabelSelectorRequirement{
					{Key: "a", Operator: api.SelectorOpIn},
					{Key: "b", Operator: api.SelectorOpExists, Values: []string{"x"}},
					{Key: "-c", Operator: api.SelectorOpNotIn, Values: []string{"ok", "-bad"}},
				},
			},
			wantErr: []errRow{
				{field.TypeInvalid, "matchLabels", "bad key"},
				{field.TypeInvalid, "matchLabels", "bad value!"},
				{field.TypeRequired, "matchExpressions[0].values", nil},
				{field.TypeForbidden, "matchExpressions[1].values", nil},
				{field.TypeInvalid, "matchExpressions[2].key", "-c"},
				{field.TypeInvalid, "matchExpressions[2].values[1]", "-bad"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Compile(tt.in)
			if tt.wantErr != nil {
				var errs field.ErrorList
				if !errors.As(err, &errs) {
					t.Fatalf("Compile() error = %v, want a field.ErrorList (%s)", err, tt.reason)
				}
				if diff := cmp.Diff(tt.wantErr, rows(errs)); diff != "" {
					t.Errorf("Compile() errors mismatch (-want +got):\n%s", diff)
				}
				if !s.MatchesNothing() {
					t.Errorf("Compile() with errors returned %v, want the zero Selector", s)
				}
				return
			}
			if err != nil {
				t.Fatalf("Compile() error = %v, want none (%s)", err, tt.reason)
			}
			if diff := cmp.Diff(tt.wantStr, s.String()); diff != "" {
				t.Errorf("String() mismatch (-want +got):\n%s", diff)
			}
			for _, l := range tt.match {
				if !s.Matches(l) {
					t.Errorf("%v.Matches(%v) = false, want true (%s)", s, l, tt.reason)
				}
			}
			for _, l := range tt.noMatch {
				if s.Matches(l) {
					t.Errorf("%v.Matches(%v) = true, want false (%s)", s, l, tt.reason)
				}
			}
			if got, want := s.MatchesNothing(), tt.in == nil; got != want {
				t.Errorf("MatchesNothing() = %v, want %v", got, want)
			}
			if got, want := s.Empty(), tt.in != nil && len(tt.in.MatchLabels)+len(tt.in.MatchExpressions) == 0; got != want {
				t.Errorf("Empty() = %v, want %v", got, want)
			}
		})
	}
}

func TestCompileDoesNotRetainInput(t *testing.T) {
	ls := &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "a", Operator: api.SelectorOpIn, Values: []string{"y", "x"}}}}
	s, err := Compile(ls)
	if err != nil {
		t.Fatal(err)
	}
	ls.MatchExpressions[0].Values[0] = "z"
	if diff := cmp.Diff([]string{"z", "x"}, ls.MatchExpressions[0].Values); diff != "" {
		t.Errorf("Compile changed its input (-want +got):\n%s", diff)
	}
	if !s.Matches(labels{"a": "y"}) || s.Matches(labels{"a": "z"}) {
		t.Errorf("selector %v follows a change of its input", s)
	}
	reqs := s.Requirements()
	reqs[0].Values[0] = "q"
	if diff := cmp.Diff("a in (x,y)", s.String()); diff != "" {
		t.Errorf("Requirements() is not a copy (-want +got):\n%s", diff)
	}
}

// TestRequirementMatches covers every operator of docs/eligibility.md, E5,
// for the exported
// Requirement and for the same requirement compiled into a Selector.
func TestRequirementMatches(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		req    Requirement
		labels labels
		want   bool
	}{
		{"In present in set", "key present and value in set", Requirement{"k", api.SelectorOpIn, []string{"a", "b"}}, labels{"k": "b"}, true},
		{"In present not in set", "value not in set", Requirement{"k", api.SelectorOpIn, []string{"a", "b"}}, labels{"k": "c"}, false},
		{"In absent", "In needs the key", Requirement{"k", api.SelectorOpIn, []string{"a"}}, labels{"x": "a"}, false},
		{"In empty value", "the empty value is a value", Requirement{"k", api.SelectorOpIn, []string{""}}, labels{"k": ""}, true},
		{"Equals match", "= is In with one value", Requirement{"k", Equals, []string{"a"}}, labels{"k": "a"}, true},
		{"Equals absent", "= needs the key", Requirement{"k", Equals, []string{""}}, nil, false},
		{"DoubleEquals match", "== is =", Requirement{"k", DoubleEquals, []string{"a"}}, labels{"k": "a"}, true},
		{"DoubleEquals mismatch", "== compares values", Requirement{"k", DoubleEquals, []string{"a"}}, labels{"k": "b"}, false},
		{"NotIn absent", "an absent key is not in any set", Requirement{"k", api.SelectorOpNotIn, []string{"a"}}, nil, true},
		{"NotIn other value", "value outside the set", Requirement{"k", api.SelectorOpNotIn, []string{"a"}}, labels{"k": "b"}, true},
		{"NotIn in set", "value inside the set", Requirement{"k", api.SelectorOpNotIn, []string{"a", "b"}}, labels{"k": "a"}, false},
		{"NotEquals absent", "!= holds when the key is absent", Requirement{"k", NotEquals, []string{"a"}}, labels{}, true},
		{"NotEquals same", "!= fails on the value", Requirement{"k", NotEquals, []string{"a"}}, labels{"k": "a"}, false},
		{"Exists empty value", "Exists holds for the empty value", Requirement{"k", api.SelectorOpExists, nil}, labels{"k": ""}, true},
		{"Exists absent", "Exists needs the key", Requirement{"k", api.SelectorOpExists, nil}, labels{"j": ""}, false},
		{"DoesNotExist absent", "the key is absent", Requirement{"k", api.SelectorOpDoesNotExist, nil}, nil, true},
		{"DoesNotExist present", "even an empty value is presence", Requirement{"k", api.SelectorOpDoesNotExist, nil}, labels{"k": ""}, false},
		{"Gt greater", "strictly greater", Requirement{"k", api.SelectorOpGt, []string{"5"}}, labels{"k": "6"}, true},
		{"Gt equal", "equal is not greater", Requirement{"k", api.SelectorOpGt, []string{"5"}}, labels{"k": "5"}, false},
		{"Gt leading zeros", "ParseInt reads 007 as 7 (kernel-version 0206 > 0204)", Requirement{"k", api.SelectorOpGt, []string{"0204"}}, labels{"k": "0206"}, true},
		{"Gt plus sign", "ParseInt accepts a leading +", Requirement{"k", api.SelectorOpGt, []string{"5"}}, labels{"k": "+7"}, true},
		{"Gt negative label", "labels can hold negative numbers when hand-built", Requirement{"k", api.SelectorOpGt, []string{"-3"}}, labels{"k": "-2"}, true},
		{"Gt absent", "Gt needs the key", Requirement{"k", api.SelectorOpGt, []string{"5"}}, nil, false},
		{"Gt non-integer label", "a label that does not parse never matches", Requirement{"k", api.SelectorOpGt, []string{"5"}}, labels{"k": "6.0"}, false},
		{"Gt empty label", "the empty string does not parse", Requirement{"k", api.SelectorOpGt, []string{"-1"}}, labels{"k": ""}, false},
		{"Gt overflow label", "beyond int64 does not parse", Requirement{"k", api.SelectorOpGt, []string{"5"}}, labels{"k": "9223372036854775808"}, false},
		{"Gt int64 max", "the largest int64 parses", Requirement{"k", api.SelectorOpGt, []string{"5"}}, labels{"k": "9223372036854775807"}, true},
		{"Gt two values", "Gt needs exactly one value", Requirement{"k", api.SelectorOpGt, []string{"1", "2"}}, labels{"k": "9"}, false},
		{"Gt no value", "Gt needs exactly one value", Requirement{"k", api.SelectorOpGt, nil}, labels{"k": "9"}, false},
		{"Gt bad bound", "the requirement value must parse too", Requirement{"k", api.SelectorOpGt, []string{"x"}}, labels{"k": "9"}, false},
		{"Lt less", "strictly less", Requirement{"k", api.SelectorOpLt, []string{"5"}}, labels{"k": "4"}, true},
		{"Lt equal", "equal is not less", Requirement{"k", api.SelectorOpLt, []string{"5"}}, labels{"k": "5"}, false},
		{"Lt int64 min", "the smallest int64 parses", Requirement{"k", api.SelectorOpLt, []string{"5"}}, labels{"k": "-9223372036854775808"}, true},
		{"unknown operator", "an unknown operator matches nothing", Requirement{"k", "Like", []string{"a"}}, labels{"k": "a"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.req.Matches(tt.labels); got != tt.want {
				t.Errorf("%v.Matches(%v) = %v, want %v (%s)", tt.req, tt.labels, got, tt.want, tt.reason)
			}
			// The compiled form agrees wherever the requirement is
			// well-formed.
			if len(validateParsedValues(tt.req.Operator, tt.req.Values)) > 0 || !wellFormed(tt.req) {
				return
			}
			s := newSelector([]requirement{newRequirement(tt.req.Key, tt.req.Operator, tt.req.Values)})
			if got := s.Matches(tt.labels); got != tt.want {
				t.Errorf("compiled %v.Matches(%v) = %v, want %v (%s)", s, tt.labels, got, tt.want, tt.reason)
			}
		})
	}
}

// wellFormed says whether r has the value count its operator needs.
func wellFormed(r Requirement) bool {
	switch r.Operator {
	case api.SelectorOpIn, api.SelectorOpNotIn:
		return len(r.Values) > 0
	case Equals, DoubleEquals, NotEquals, api.SelectorOpGt, api.SelectorOpLt:
		return len(r.Values) == 1
	case api.SelectorOpExists, api.SelectorOpDoesNotExist:
		return len(r.Values) == 0
	}
	return false
}

func TestSelectorConstructors(t *testing.T) {
	tests := []struct {
		name, reason    string
		s               Selector
		nothing, empty  bool
		str             string
		matchesEmptySet bool
	}{
		{"zero", "the zero Selector is a nil label selector", Selector{}, true, false, NothingString, false},
		{"Nothing", "Nothing is the zero Selector", Nothing(), true, false, NothingString, false},
		{"Everything", "Everything is an empty selector", Everything(), false, true, "", true},
		{"FromSet nil", "a nil set selects everything, as upstream", FromSet(nil), false, true, "", true},
		{"FromSet", "pairs become k=v in key order", FromSet(labels{"b": "2", "a": "1"}), false, false, "a=1,b=2", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := []any{tt.s.MatchesNothing(), tt.s.Empty(), tt.s.String(), tt.s.Matches(nil)}
			want := []any{tt.nothing, tt.empty, tt.str, tt.matchesEmptySet}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("[MatchesNothing Empty String Matches(nil)] mismatch (-want +got):\n%s\nreason: %s", diff, tt.reason)
			}
		})
	}
	if !Nothing().Equal(Selector{}) || Nothing().Equal(Everything()) || !Everything().Equal(FromSet(nil)) {
		t.Errorf("Equal does not tell Nothing from Everything")
	}
}
