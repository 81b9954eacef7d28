package api

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/daemonplan/daemonplan/field"
)

// ignoreDetail compares errors by type, field and bad value only.
var ignoreDetail = cmpopts.IgnoreFields(field.Error{}, "Detail")

func TestValidateTolerations(t *testing.T) {
	effects := []string{"NoSchedule", "PreferNoSchedule", "NoExecute"}
	exists := func(key, value string) Toleration {
		return Toleration{Key: key, Operator: TolerationOpExists, Value: value}
	}
	tests := []struct {
		name   string
		reason string
		in     []Toleration
		gate   bool // ValidateOptions.ComparisonOperators
		want   field.ErrorList
	}{
		{name: "nil", reason: "no tolerations, no problems"},
		{
			name:   "valid tolerations",
			reason: "every rule satisfied",
			in: []Toleration{
				{Key: "example.com/dedicated", Operator: TolerationOpEqual, Value: "infra", Effect: TaintEffectNoSchedule},
				{Key: "foo", Value: "bar"},
				{Key: "foo", Operator: TolerationOpEqual},
				{Operator: TolerationOpExists},
				{Key: TaintNodeNotReady, Operator: TolerationOpExists, Effect: TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
				{Key: "a", Operator: TolerationOpExists, Effect: TaintEffectPreferNoSchedule},
			},
		},
		{
			name:   "invalid key",
			reason: "a non-empty key must be a label key: Invalid at .key",
			in:     []Toleration{exists("bad key", "")},
			want:   field.ErrorList{{Type: field.TypeInvalid, Field: "[0].key", BadValue: "bad key"}},
		},
		{
			name:   "key with two slashes",
			reason: "one problem for a malformed qualified name",
			in:     []Toleration{exists("a/b/c", "")},
			want:   field.ErrorList{{Type: field.TypeInvalid, Field: "[0].key", BadValue: "a/b/c"}},
		},
		{
			name:   "key with empty prefix",
			reason: "\"/name\" has an empty prefix",
			in:     []Toleration{exists("/name", "")},
			want:   field.ErrorList{{Type: field.TypeInvalid, Field: "[0].key", BadValue: "/name"}},
		},
		{
			name:   "key with upper-case prefix",
			reason: "the prefix must be a lowercase DNS subdomain",
			in:     []Toleration{exists("Example.com/name", "")},
			want:   field.ErrorList{{Type: field.TypeInvalid, Field: "[0].key", BadValue: "Example.com/name"}},
		},
		{
			name:   "key with empty name part",
			reason: "like upstream: both the empty and the syntax message",
			in:     []Toleration{exists("example.com/", "")},
			want: field.ErrorList{
				{Type: field.TypeInvalid, Field: "[0].key", BadValue: "example.com/"},
				{Type: field.TypeInvalid, Field: "[0].key", BadValue: "example.com/"},
			},
		},
		{
			name:   "key name too long",
			reason: "name part at most 63 bytes",
			in:     []Toleration{exists(strings.Repeat("a", 64), "")},
			want:   field.ErrorList{{Type: field.TypeInvalid, Field: "[0].key", BadValue: strings.Repeat("a", 64)}},
		},
		{
			name:   "key name 63 bytes",
			reason: "the limit itself is fine",
			in:     []Toleration{exists(strings.Repeat("a", 63), "")},
		},
		{
			name:   "empty key with Equal",
			reason: "an empty key requires Exists: Invalid at .operator",
			in:     []Toleration{{Operator: TolerationOpEqual, Effect: TaintEffectNoSchedule}},
			want:   field.ErrorList{{Type: field.TypeInvalid, Field: "[0].operator", BadValue: "Equal"}},
		},
		{
			name:   "empty key with empty operator",
			reason: "\"\" is not Exists",
			in:     []Toleration{{Effect: TaintEffectNoSchedule}},
			want:   field.ErrorList{{Type: field.TypeInvalid, Field: "[0].operator", BadValue: ""}},
		},
		{
			name:   "tolerationSeconds without NoExecute",
			reason: "Invalid at .effect, bad value the effect",
			in:     []Toleration{{Key: "k", Operator: TolerationOpExists, Effect: TaintEffectNoSchedule, TolerationSeconds: ptr(int64(1))}},
			want:   field.ErrorList{{Type: field.TypeInvalid, Field: "[0].effect", BadValue: "NoSchedule"}},
		},
		{
			name:   "tolerationSeconds with empty effect",
			reason: "an empty effect is not NoExecute",
			in:     []Toleration{{Key: "k", Operator: TolerationOpExists, TolerationSeconds: ptr(int64(1))}},
			want:   field.ErrorList{{Type: field.TypeInvalid, Field: "[0].effect", BadValue: ""}},
		},
		{
			name:   "Equal with invalid value",
			reason: "an Equal value must be a label value, reported at .operator",
			in:     []Toleration{{Key: "k", Operator: TolerationOpEqual, Value: "not valid!"}},
			want:   field.ErrorList{{Type: field.TypeInvalid, Field: "[0].operator", BadValue: "not valid!"}},
		},
		{
			name:   "empty operator with too long value",
			reason: "one error at .operator however many problems the value has",
			in:     []Toleration{{Key: "k", Value: strings.Repeat("v", 63) + "-"}},
			want:   field.ErrorList{{Type: field.TypeInvalid, Field: "[0].operator", BadValue: strings.Repeat("v", 63) + "-"}},
		},
		{
			name:   "Exists with value",
			reason: "Exists requires an empty value; upstream reports the whole toleration",
			in:     []Toleration{exists("k", "v")},
			want:   field.ErrorList{{Type: field.TypeInvalid, Field: "[0].operator", BadValue: exists("k", "v")}},
		},
		{
			name:   "unknown operator",
			reason: "NotSupported at .operator",
			in:     []Toleration{{Key: "k", Operator: "In", Value: "v"}},
			want:   field.ErrorList{{Type: field.TypeNotSupported, Field: "[0].operator", BadValue: "In"}},
		},
		{
			name:   "Gt without the gate",
			reason: "Lt and Gt are refused unless the comparison operators gate is on",
			in:     []Toleration{{Key: "k", Operator: TolerationOpGt, Value: "5"}},
			want:   field.ErrorList{{Type: field.TypeNotSupported, Field: "[0].operator", BadValue: "Gt"}},
		},
		{
			name:   "Lt and Gt with the gate",
			reason: "with the gate a canonical int64 value is accepted",
			in:     []Toleration{{Key: "k", Operator: TolerationOpLt, Value: "5"}, {Key: "k", Operator: TolerationOpGt, Value: "-9223372036854775808", Effect: TaintEffectNoSchedule}, {Key: "k", Operator: TolerationOpGt, Value: "0"}},
			gate:   true,
		},
		{
			name:   "Lt value not canonical",
			reason: "a leading zero, a plus sign, -0, an empty or non-numeric value: not an integer in canonical form, nor parsed by ParseInt where it fails",
			in: []Toleration{
				{Key: "k", Operator: TolerationOpLt, Value: "05"}, {Key: "k", Operator: TolerationOpLt, Value: "+5"}, {Key: "k", Operator: TolerationOpLt, Value: "-0"},
				{Key: "k", Operator: TolerationOpGt, Value: ""}, {Key: "k", Operator: TolerationOpGt, Value: "five"},
			},
			gate: true,
			want: field.ErrorList{
				{Type: field.TypeInvalid, Field: "[0].value", BadValue: "05"},
				{Type: field.TypeInvalid, Field: "[1].value", BadValue: "+5"},
				{Type: field.TypeInvalid, Field: "[2].value", BadValue: "-0"},
				{Type: field.TypeInvalid, Field: "[3].value", BadValue: ""},
				{Type: field.TypeInvalid, Field: "[3].value", BadValue: ""},
				{Type: field.TypeInvalid, Field: "[4].value", BadValue: "five"},
				{Type: field.TypeInvalid, Field: "[4].value", BadValue: "five"},
			},
		},
		{
			name:   "Gt value out of range",
			reason: "a canonical integer beyond int64 is refused once, by ParseInt",
			in:     []Toleration{{Key: "k", Operator: TolerationOpGt, Value: "9223372036854775808"}},
			gate:   true,
			want:   field.ErrorList{{Type: field.TypeInvalid, Field: "[0].value", BadValue: "9223372036854775808"}},
		},
		{
			name:   "unknown effect",
			reason: "NotSupported at .effect",
			in:     []Toleration{{Key: "k", Operator: TolerationOpExists, Effect: "NoScheduleNoAdmit"}},
			want:   field.ErrorList{{Type: field.TypeNotSupported, Field: "[0].effect", BadValue: "NoScheduleNoAdmit"}},
		},
		{
			name:   "every problem of every toleration, in order",
			reason: "errors are collected, indexed, and ordered key, operator, effect(seconds), operator(value), effect",
			in: []Toleration{
				{Key: "k", Operator: TolerationOpExists},
				{Operator: "Bogus", Effect: "Sometimes", TolerationSeconds: ptr(int64(3))},
				{Key: "bad key", Operator: TolerationOpExists, Value: "x", Effect: TaintEffectNoExecute, TolerationSeconds: ptr(int64(3))},
			},
			want: field.ErrorList{
				{Type: field.TypeInvalid, Field: "[1].operator", BadValue: "Bogus"},
				{Type: field.TypeInvalid, Field: "[1].effect", BadValue: "Sometimes"},
				{Type: field.TypeNotSupported, Field: "[1].operator", BadValue: "Bogus"},
				{Type: field.TypeNotSupported, Field: "[1].effect", BadValue: "Sometimes"},
				{Type: field.TypeInvalid, Field: "[2].key", BadValue: "bad key"},
				{Type: field.TypeInvalid, Field: "[2].operator",
					BadValue: Toleration{Key: "bad key", Operator: TolerationOpExists, Value: "x", Effect: TaintEffectNoExecute, TolerationSeconds: ptr(int64(3))}},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ValidateTolerations(tc.in, ValidateOptions{ComparisonOperators: tc.gate})
			if diff := cmp.Diff(tc.want, got, ignoreDetail, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("ValidateTolerations() mismatch (-want +got) (%s):\n%s", tc.reason, diff)
			}
		})
	}
	t.Run("supported values are listed", func(t *testing.T) {
		got := ValidateTolerations([]Toleration{{Key: "k", Operator: "In", Effect: "Bad"}, {Key: "k", Operator: TolerationOpLt, Value: "1"}}, ValidateOptions{})
		want := field.ErrorList{
			field.NotSupported(new(field.Path).Child("x"), "In", "Equal", "Exists"),
			field.NotSupported(new(field.Path).Child("x"), "Bad", effects...),
			field.NotSupported(new(field.Path).Child("x"), "Lt", "Equal", "Exists", "Lt", "Gt"),
		}
		want[0].Field, want[1].Field, want[2].Field = "[0].operator", "[0].effect", "[1].operator"
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("ValidateTolerations() mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("prefix places paths", func(t *testing.T) {
		got := ValidateTolerations([]Toleration{{Operator: TolerationOpEqual}}, ValidateOptions{}).Prefix("spec.template.spec.tolerations")
		want := field.ErrorList{{Type: field.TypeInvalid, Field: "spec.template.spec.tolerations[0].operator", BadValue: "Equal"}}
		if diff := cmp.Diff(want, got, ignoreDetail); diff != "" {
			t.Errorf("Prefix() mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("bad value does not alias the input", func(t *testing.T) {
		in := []Toleration{{Key: "k", Operator: TolerationOpExists, Value: "v", Effect: TaintEffectNoExecute, TolerationSeconds: ptr(int64(1))}}
		got := ValidateTolerations(in, ValidateOptions{})
		*in[0].TolerationSeconds = 2
		bad := got[0].BadValue.(Toleration)
		if *bad.TolerationSeconds != 1 {
			t.Errorf("BadValue shares TolerationSeconds with the input")
		}
	})
}

func ptr[T any](v T) *T { return &v }
