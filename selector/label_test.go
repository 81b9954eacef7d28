package selector

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/field"
)

type labels = map[string]string

// TestCompile covers docs/manage.md, M4: nil vs empty, matchLabels and expressions
// ANDed, and invalid selectors refused with every problem.
func TestCompile(t *testing.T) {
	tests := []struct {
		name    string
		reason  string
		in      *LabelSelector
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
			in:      &LabelSelector{},
			wantStr: "",
			match:   []labels{nil, {}, {"app": "x"}},
		},
		{
			name:    "empty non-nil collections",
			reason:  "empty (not nil) maps and slices are still an empty selector",
			in:      &LabelSelector{MatchLabels: map[string]string{}, MatchExpressions: []LabelSelectorRequirement{}},
			wantStr: "",
			match:   []labels{nil, {"a": "b"}},
		},
		{
			name:    "matchLabels",
			reason:  "each pair becomes key=value, all ANDed",
			in:      &LabelSelector{MatchLabels: labels{"app": "web", "tier": "fe"}},
			wantStr: "app=web,tier=fe",
			match:   []labels{{"app": "web", "tier": "fe"}, {"app": "web", "tier": "fe", "x": "y"}},
			noMatch: []labels{nil, {"app": "web"}, {"app": "web", "tier": "be"}},
		},
		{
			name:   "matchLabels empty value",
			reason: "an empty value requires the key to be present with the empty value",
			in:     &LabelSelector{MatchLabels: labels{"app": ""}},
			match:  []labels{{"app": ""}}, noMatch: []labels{{}, {"app": "x"}},
			wantStr: "app=",
		},
		{
			name:   "expressions and labels ANDed",
			reason: "matchLabels and matchExpressions all hold",
			in: &LabelSelector{
				MatchLabels: labels{"app": "web"},
				MatchExpressions: []LabelSelectorRequirement{
					{Key: "env", Operator: NotIn, Values: []string{"prod", "dev"}},
					{Key: "gpu", Operator: Exists},
					{Key: "legacy", Operator: DoesNotExist},
					{Key: "zone", Operator: In, Values: []string{"b", "a", "b"}},
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
			in: &LabelSelector{MatchExpressions: []LabelSelectorRequirement{
				{Key: "a", Operator: Gt, Values: []string{"1"}},
			}},
			wantErr: []errRow{{field.TypeInvalid, "matchExpressions[0].operator", "Gt"}},
		},
		{
			name:   "all problems collected",
			reason: "Compile reports every problem, not the first",
			in: &LabelSelector{
				MatchLabels: labels{"bad key": "ok", "good": "bad value!"},
				MatchExpressions: []LabelSelectorRequirement{
					{Key: "a", Operator: In},
					{Key: "b", Operator: Exists, Values: []string{"x"}},
					{Key: "-c", Operator: NotIn, Values: []string{"ok", "-bad"}},
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
	ls := &LabelSelector{MatchExpressions: []LabelSelectorRequirement{{Key: "a", Operator: In, Values: []string{"y", "x"}}}}
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
		{"In present in set", "key present and value in set", Requirement{"k", In, []string{"a", "b"}}, labels{"k": "b"}, true},
		{"In present not in set", "value not in set", Requirement{"k", In, []string{"a", "b"}}, labels{"k": "c"}, false},
		{"In absent", "In needs the key", Requirement{"k", In, []string{"a"}}, labels{"x": "a"}, false},
		{"In empty value", "the empty value is a value", Requirement{"k", In, []string{""}}, labels{"k": ""}, true},
		{"Equals match", "= is In with one value", Requirement{"k", Equals, []string{"a"}}, labels{"k": "a"}, true},
		{"Equals absent", "= needs the key", Requirement{"k", Equals, []string{""}}, nil, false},
		{"DoubleEquals match", "== is =", Requirement{"k", DoubleEquals, []string{"a"}}, labels{"k": "a"}, true},
		{"DoubleEquals mismatch", "== compares values", Requirement{"k", DoubleEquals, []string{"a"}}, labels{"k": "b"}, false},
		{"NotIn absent", "an absent key is not in any set", Requirement{"k", NotIn, []string{"a"}}, nil, true},
		{"NotIn other value", "value outside the set", Requirement{"k", NotIn, []string{"a"}}, labels{"k": "b"}, true},
		{"NotIn in set", "value inside the set", Requirement{"k", NotIn, []string{"a", "b"}}, labels{"k": "a"}, false},
		{"NotEquals absent", "!= holds when the key is absent", Requirement{"k", NotEquals, []string{"a"}}, labels{}, true},
		{"NotEquals same", "!= fails on the value", Requirement{"k", NotEquals, []string{"a"}}, labels{"k": "a"}, false},
		{"Exists empty value", "Exists holds for the empty value", Requirement{"k", Exists, nil}, labels{"k": ""}, true},
		{"Exists absent", "Exists needs the key", Requirement{"k", Exists, nil}, labels{"j": ""}, false},
		{"DoesNotExist absent", "the key is absent", Requirement{"k", DoesNotExist, nil}, nil, true},
		{"DoesNotExist present", "even an empty value is presence", Requirement{"k", DoesNotExist, nil}, labels{"k": ""}, false},
		{"Gt greater", "strictly greater", Requirement{"k", Gt, []string{"5"}}, labels{"k": "6"}, true},
		{"Gt equal", "equal is not greater", Requirement{"k", Gt, []string{"5"}}, labels{"k": "5"}, false},
		{"Gt leading zeros", "ParseInt reads 007 as 7 (kernel-version 0206 > 0204)", Requirement{"k", Gt, []string{"0204"}}, labels{"k": "0206"}, true},
		{"Gt plus sign", "ParseInt accepts a leading +", Requirement{"k", Gt, []string{"5"}}, labels{"k": "+7"}, true},
		{"Gt negative label", "labels can hold negative numbers when hand-built", Requirement{"k", Gt, []string{"-3"}}, labels{"k": "-2"}, true},
		{"Gt absent", "Gt needs the key", Requirement{"k", Gt, []string{"5"}}, nil, false},
		{"Gt non-integer label", "a label that does not parse never matches", Requirement{"k", Gt, []string{"5"}}, labels{"k": "6.0"}, false},
		{"Gt empty label", "the empty string does not parse", Requirement{"k", Gt, []string{"-1"}}, labels{"k": ""}, false},
		{"Gt overflow label", "beyond int64 does not parse", Requirement{"k", Gt, []string{"5"}}, labels{"k": "9223372036854775808"}, false},
		{"Gt int64 max", "the largest int64 parses", Requirement{"k", Gt, []string{"5"}}, labels{"k": "9223372036854775807"}, true},
		{"Gt two values", "Gt needs exactly one value", Requirement{"k", Gt, []string{"1", "2"}}, labels{"k": "9"}, false},
		{"Gt no value", "Gt needs exactly one value", Requirement{"k", Gt, nil}, labels{"k": "9"}, false},
		{"Gt bad bound", "the requirement value must parse too", Requirement{"k", Gt, []string{"x"}}, labels{"k": "9"}, false},
		{"Lt less", "strictly less", Requirement{"k", Lt, []string{"5"}}, labels{"k": "4"}, true},
		{"Lt equal", "equal is not less", Requirement{"k", Lt, []string{"5"}}, labels{"k": "5"}, false},
		{"Lt int64 min", "the smallest int64 parses", Requirement{"k", Lt, []string{"5"}}, labels{"k": "-9223372036854775808"}, true},
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
	case In, NotIn:
		return len(r.Values) > 0
	case Equals, DoubleEquals, NotEquals, Gt, Lt:
		return len(r.Values) == 1
	case Exists, DoesNotExist:
		return len(r.Values) == 0
	}
	return false
}

func TestValidateLabelSelector(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		in     *LabelSelector
		want   []errRow
	}{
		{"nil", "a nil selector has nothing to validate", nil, nil},
		{"empty", "emptiness is the DaemonSet validator's concern, not the selector's", &LabelSelector{}, nil},
		{"valid", "a selector of every label operator", &LabelSelector{
			MatchLabels: labels{"example.com/app": "web", "e": ""},
			MatchExpressions: []LabelSelectorRequirement{
				{Key: "a", Operator: In, Values: []string{"x", ""}},
				{Key: "b", Operator: NotIn, Values: []string{"y"}},
				{Key: "c", Operator: Exists},
				{Key: "d", Operator: DoesNotExist},
			},
		}, nil},
		{"In without values", "In needs values: Required at .values", &LabelSelector{MatchExpressions: []LabelSelectorRequirement{
			{Key: "a", Operator: In},
		}}, []errRow{{field.TypeRequired, "matchExpressions[0].values", nil}}},
		{"NotIn empty values", "an empty list is no values", &LabelSelector{MatchExpressions: []LabelSelectorRequirement{
			{Key: "a", Operator: NotIn, Values: []string{}},
		}}, []errRow{{field.TypeRequired, "matchExpressions[0].values", nil}}},
		{"Exists with values", "Exists takes no values: Forbidden at .values", &LabelSelector{MatchExpressions: []LabelSelectorRequirement{
			{Key: "a", Operator: In, Values: []string{"x"}},
			{Key: "a", Operator: Exists, Values: []string{"x"}},
		}}, []errRow{{field.TypeForbidden, "matchExpressions[1].values", nil}}},
		{"DoesNotExist with values", "DoesNotExist takes no values", &LabelSelector{MatchExpressions: []LabelSelectorRequirement{
			{Key: "a", Operator: DoesNotExist, Values: []string{""}},
		}}, []errRow{{field.TypeForbidden, "matchExpressions[0].values", nil}}},
		{"bad operators", "only In, NotIn, Exists, DoesNotExist; the key and values are still checked", &LabelSelector{MatchExpressions: []LabelSelectorRequirement{
			{Key: "a", Operator: "", Values: []string{"x"}},
			{Key: "a", Operator: "in", Values: []string{"x"}},
			{Key: "a", Operator: Equals, Values: []string{"-x"}},
		}}, []errRow{
			{field.TypeInvalid, "matchExpressions[0].operator", ""},
			{field.TypeInvalid, "matchExpressions[1].operator", "in"},
			{field.TypeInvalid, "matchExpressions[2].operator", "="},
			{field.TypeInvalid, "matchExpressions[2].values[0]", "-x"},
		}},
		{"bad key", "one error per problem of the key", &LabelSelector{MatchExpressions: []LabelSelectorRequirement{
			{Key: "", Operator: Exists},
		}}, []errRow{
			{field.TypeInvalid, "matchExpressions[0].key", ""},
			{field.TypeInvalid, "matchExpressions[0].key", ""},
		}},
		{"bad values", "each bad value at its index", &LabelSelector{MatchExpressions: []LabelSelectorRequirement{
			{Key: "a", Operator: In, Values: []string{"ok", "not ok", "", "_x"}},
		}}, []errRow{
			{field.TypeInvalid, "matchExpressions[0].values[1]", "not ok"},
			{field.TypeInvalid, "matchExpressions[0].values[3]", "_x"},
		}},
		{"matchLabels sorted", "matchLabels problems come in key order, at matchLabels", &LabelSelector{MatchLabels: labels{
			"z/": "v", "a b": "-", "ok": "ok",
		}}, []errRow{
			{field.TypeInvalid, "matchLabels", "a b"},
			{field.TypeInvalid, "matchLabels", "-"},
			{field.TypeInvalid, "matchLabels", "z/"},
			{field.TypeInvalid, "matchLabels", "z/"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ValidateLabelSelector(tt.in)
			if diff := cmp.Diff(tt.want, rows(got)); diff != "" {
				t.Errorf("ValidateLabelSelector() mismatch (-want +got):\n%s\nreason: %s", diff, tt.reason)
			}
			prefixed := got.Prefix("spec.selector")
			for i := range prefixed {
				if want := "spec.selector." + got[i].Field; prefixed[i].Field != want {
					t.Errorf("Prefix gave %q, want %q", prefixed[i].Field, want)
				}
			}
		})
	}
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
