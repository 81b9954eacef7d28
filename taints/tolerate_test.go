package taints

import (
	"math"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/api"
)

// cmpOn is Options with the comparison operators honoured.
var cmpOn = Options{ComparisonOperators: true}

// tolerateCase is one row of TestTolerationTolerates.
type tolerateCase struct {
	name   string
	reason string
	tol    api.Toleration
	taint  api.Taint
	opts   Options
	want   bool
}

func TestTolerationTolerates(t *testing.T) {
	const sla = "node.kubernetes.io/sla"
	tests := []tolerateCase{
		// docs/eligibility.md, E8 rule 1: effect.
		{
			name:   "empty effect matches NoSchedule",
			reason: "an empty toleration effect matches every taint effect",
			tol:    api.Toleration{Key: "foo", Operator: api.TolerationOpExists},
			taint:  api.Taint{Key: "foo", Effect: api.TaintEffectNoSchedule},
			want:   true,
		},
		{
			name:   "empty effect matches NoExecute",
			reason: "an empty toleration effect matches every taint effect",
			tol:    api.Toleration{Key: "foo", Operator: api.TolerationOpExists},
			taint:  api.Taint{Key: "foo", Effect: api.TaintEffectNoExecute},
			want:   true,
		},
		{
			name:   "empty effect matches an unknown effect",
			reason: "the empty effect is a wildcard, not a list of the known effects",
			tol:    api.Toleration{Key: "foo", Operator: api.TolerationOpExists},
			taint:  api.Taint{Key: "foo", Effect: "Custom"},
			want:   true,
		},
		{
			name:   "different effects",
			reason: "k8s.io/api: same key and value, Equal, but different effects is not tolerated",
			tol:    api.Toleration{Key: "foo", Operator: api.TolerationOpEqual, Value: "bar", Effect: api.TaintEffectNoSchedule},
			taint:  api.Taint{Key: "foo", Value: "bar", Effect: api.TaintEffectNoExecute},
			want:   false,
		},
		{
			name:   "NoExecute toleration does not cover NoSchedule taint",
			reason: "a non-empty effect must equal the taint's; this is why not-ready:NoSchedule blocks daemon pods",
			tol:    api.Toleration{Key: api.TaintNodeNotReady, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute},
			taint:  api.Taint{Key: api.TaintNodeNotReady, Effect: api.TaintEffectNoSchedule},
			want:   false,
		},
		{
			name:   "unknown effect equal on both sides",
			reason: "effects are compared as strings; validation, not matching, rejects unknown ones",
			tol:    api.Toleration{Key: "foo", Operator: api.TolerationOpExists, Effect: "Custom"},
			taint:  api.Taint{Key: "foo", Effect: "Custom"},
			want:   true,
		},
		{
			name:   "unknown toleration effect against empty taint effect",
			reason: "a non-empty toleration effect must equal the taint's, even when the taint's is empty",
			tol:    api.Toleration{Key: "foo", Operator: api.TolerationOpExists, Effect: "Custom"},
			taint:  api.Taint{Key: "foo"},
			want:   false,
		},
		// docs/eligibility.md, E8 rule 2: key.
		{
			name:   "empty key Exists matches every key",
			reason: "k8s.io/api: empty key with Exists means match all taints",
			tol:    api.Toleration{Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
			taint:  api.Taint{Key: "foo", Value: "bar", Effect: api.TaintEffectNoSchedule},
			want:   true,
		},
		{
			name:   "empty key Exists empty effect matches anything",
			reason: "the tolerate-everything toleration",
			tol:    api.Toleration{Operator: api.TolerationOpExists},
			taint:  api.Taint{Key: "x/y", Value: "z", Effect: api.TaintEffectNoExecute},
			want:   true,
		},
		{
			name:   "different keys",
			reason: "a non-empty key must equal the taint key",
			tol:    api.Toleration{Key: "foo", Operator: api.TolerationOpExists},
			taint:  api.Taint{Key: "bar", Effect: api.TaintEffectNoSchedule},
			want:   false,
		},
		{
			name:   "key compare is case sensitive",
			reason: "keys are compared byte for byte",
			tol:    api.Toleration{Key: "Foo", Operator: api.TolerationOpExists},
			taint:  api.Taint{Key: "foo", Effect: api.TaintEffectNoSchedule},
			want:   false,
		},
		{
			name:   "empty key Equal matches any key with equal value",
			reason: "matching does not enforce the validation rule that an empty key needs Exists",
			tol:    api.Toleration{Operator: api.TolerationOpEqual, Value: "v"},
			taint:  api.Taint{Key: "k", Value: "v", Effect: api.TaintEffectNoSchedule},
			want:   true,
		},
		// docs/eligibility.md, E8 rule 3: operators Exists / Equal / "".
		{
			name:   "Exists taint without value",
			reason: "k8s.io/api: same key and effect, Exists, taint has no value",
			tol:    api.Toleration{Key: "foo", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
			taint:  api.Taint{Key: "foo", Effect: api.TaintEffectNoSchedule},
			want:   true,
		},
		{
			name:   "Exists taint with value",
			reason: "k8s.io/api: same key and effect, Exists, taint has some value",
			tol:    api.Toleration{Key: "foo", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
			taint:  api.Taint{Key: "foo", Value: "bar", Effect: api.TaintEffectNoSchedule},
			want:   true,
		},
		{
			name:   "Exists ignores its own value",
			reason: "Exists matches any taint value; a value on the toleration is a validation error, not a filter",
			tol:    api.Toleration{Key: "foo", Operator: api.TolerationOpExists, Value: "other"},
			taint:  api.Taint{Key: "foo", Value: "bar", Effect: api.TaintEffectNoSchedule},
			want:   true,
		},
		{
			name:   "Equal same value",
			reason: "k8s.io/api: same key, effect and value with Equal",
			tol:    api.Toleration{Key: "foo", Operator: api.TolerationOpEqual, Value: "bar", Effect: api.TaintEffectNoSchedule},
			taint:  api.Taint{Key: "foo", Value: "bar", Effect: api.TaintEffectNoSchedule},
			want:   true,
		},
		{
			name:   "Equal different values",
			reason: "k8s.io/api: same key and effect, different values, Equal",
			tol:    api.Toleration{Key: "foo", Operator: api.TolerationOpEqual, Value: "value1", Effect: api.TaintEffectNoSchedule},
			taint:  api.Taint{Key: "foo", Value: "value2", Effect: api.TaintEffectNoSchedule},
			want:   false,
		},
		{
			name:   "empty operator means Equal",
			reason: "operator \"\" compares values like Equal",
			tol:    api.Toleration{Key: "foo", Value: "bar"},
			taint:  api.Taint{Key: "foo", Value: "bar", Effect: api.TaintEffectNoSchedule},
			want:   true,
		},
		{
			name:   "empty operator different values",
			reason: "operator \"\" compares values like Equal",
			tol:    api.Toleration{Key: "foo", Value: "bar"},
			taint:  api.Taint{Key: "foo", Value: "baz", Effect: api.TaintEffectNoSchedule},
			want:   false,
		},
		{
			name:   "Equal empty value equals empty taint value",
			reason: "empty equals empty",
			tol:    api.Toleration{Key: "foo", Operator: api.TolerationOpEqual},
			taint:  api.Taint{Key: "foo", Effect: api.TaintEffectNoSchedule},
			want:   true,
		},
		{
			name:   "Equal empty value against a taint value",
			reason: "an empty toleration value is not a wildcard for Equal",
			tol:    api.Toleration{Key: "foo", Operator: api.TolerationOpEqual},
			taint:  api.Taint{Key: "foo", Value: "bar", Effect: api.TaintEffectNoSchedule},
			want:   false,
		},
		{
			name:   "unknown operator",
			reason: "any operator other than \"\", Equal, Exists, Lt, Gt matches nothing",
			tol:    api.Toleration{Key: "foo", Operator: "In", Value: "bar"},
			taint:  api.Taint{Key: "foo", Value: "bar", Effect: api.TaintEffectNoSchedule},
			opts:   cmpOn,
			want:   false,
		},
		{
			name:   "operator is case sensitive",
			reason: "\"exists\" is not Exists",
			tol:    api.Toleration{Key: "foo", Operator: "exists"},
			taint:  api.Taint{Key: "foo", Effect: api.TaintEffectNoSchedule},
			want:   false,
		},
		{
			name:   "tolerationSeconds ignored",
			reason: "eviction timing is not part of matching",
			tol:    api.Toleration{Key: "foo", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: ptr(int64(0))},
			taint:  api.Taint{Key: "foo", Effect: api.TaintEffectNoExecute},
			want:   true,
		},
		// Lt / Gt gate.
		{
			name:   "Gt with comparison operators off",
			reason: "v1.34: the gate does not exist, Lt/Gt tolerate nothing",
			tol:    api.Toleration{Key: sla, Operator: api.TolerationOpGt, Value: "750", Effect: api.TaintEffectNoSchedule},
			taint:  api.Taint{Key: sla, Value: "950", Effect: api.TaintEffectNoSchedule},
			want:   false,
		},
		{
			name:   "Lt with comparison operators off",
			reason: "v1.34: the gate does not exist, Lt/Gt tolerate nothing",
			tol:    api.Toleration{Key: sla, Operator: api.TolerationOpLt, Value: "950", Effect: api.TaintEffectNoSchedule},
			taint:  api.Taint{Key: sla, Value: "800", Effect: api.TaintEffectNoSchedule},
			want:   false,
		},
		// k8s.io/api toleration_test.go, comparison operators on.
		{
			name:   "Gt taint less than toleration",
			reason: "k8s.io/api: Gt tolerates only a taint value greater than the toleration value",
			tol:    api.Toleration{Key: sla, Operator: api.TolerationOpGt, Value: "950", Effect: api.TaintEffectNoSchedule},
			taint:  api.Taint{Key: sla, Value: "800", Effect: api.TaintEffectNoSchedule},
			opts:   cmpOn,
			want:   false,
		},
		{
			name:   "Gt taint greater than toleration",
			reason: "k8s.io/api: taint 950 > 750",
			tol:    api.Toleration{Key: sla, Operator: api.TolerationOpGt, Value: "750", Effect: api.TaintEffectNoSchedule},
			taint:  api.Taint{Key: sla, Value: "950", Effect: api.TaintEffectNoSchedule},
			opts:   cmpOn,
			want:   true,
		},
		{
			name:   "Lt taint greater than toleration",
			reason: "k8s.io/api: taint 950 is not < 800",
			tol:    api.Toleration{Key: sla, Operator: api.TolerationOpLt, Value: "800", Effect: api.TaintEffectNoSchedule},
			taint:  api.Taint{Key: sla, Value: "950", Effect: api.TaintEffectNoSchedule},
			opts:   cmpOn,
			want:   false,
		},
		{
			name:   "Lt taint less than toleration",
			reason: "k8s.io/api: taint 800 < 950",
			tol:    api.Toleration{Key: sla, Operator: api.TolerationOpLt, Value: "950", Effect: api.TaintEffectNoSchedule},
			taint:  api.Taint{Key: sla, Value: "800", Effect: api.TaintEffectNoSchedule},
			opts:   cmpOn,
			want:   true,
		},
		{
			name:   "Gt equal values",
			reason: "k8s.io/api: the comparison is strict",
			tol:    api.Toleration{Key: sla, Operator: api.TolerationOpGt, Value: "950", Effect: api.TaintEffectNoSchedule},
			taint:  api.Taint{Key: sla, Value: "950", Effect: api.TaintEffectNoSchedule},
			opts:   cmpOn,
			want:   false,
		},
		{
			name:   "Lt equal values",
			reason: "k8s.io/api: the comparison is strict",
			tol:    api.Toleration{Key: sla, Operator: api.TolerationOpLt, Value: "0", Effect: api.TaintEffectNoSchedule},
			taint:  api.Taint{Key: sla, Value: "0", Effect: api.TaintEffectNoSchedule},
			opts:   cmpOn,
			want:   false,
		},
		{
			name:   "Gt non-numeric taint value",
			reason: "k8s.io/api: an unparsable taint value never matches",
			tol:    api.Toleration{Key: sla, Operator: api.TolerationOpGt, Value: "950", Effect: api.TaintEffectNoSchedule},
			taint:  api.Taint{Key: sla, Value: "high", Effect: api.TaintEffectNoSchedule},
			opts:   cmpOn,
			want:   false,
		},
		{
			name:   "Gt negative taint below threshold",
			reason: "k8s.io/api: -200 is not > -100",
			tol:    api.Toleration{Key: "test-key", Operator: api.TolerationOpGt, Value: "-100", Effect: api.TaintEffectNoSchedule},
			taint:  api.Taint{Key: "test-key", Value: "-200", Effect: api.TaintEffectNoSchedule},
			opts:   cmpOn,
			want:   false,
		},
		{
			name:   "Gt negative taint above threshold",
			reason: "k8s.io/api: -50 > -100",
			tol:    api.Toleration{Key: "test-key", Operator: api.TolerationOpGt, Value: "-100", Effect: api.TaintEffectNoSchedule},
			taint:  api.Taint{Key: "test-key", Value: "-50", Effect: api.TaintEffectNoSchedule},
			opts:   cmpOn,
			want:   true,
		},
		{
			name:   "Gt large int64 threshold",
			reason: "k8s.io/api: 100 is not > 9223372036854775806",
			tol:    api.Toleration{Key: "test-key", Operator: api.TolerationOpGt, Value: "9223372036854775806", Effect: api.TaintEffectNoSchedule},
			taint:  api.Taint{Key: "test-key", Value: "100", Effect: api.TaintEffectNoSchedule},
			opts:   cmpOn,
			want:   false,
		},
		{
			name:   "Gt max int64 taint",
			reason: "k8s.io/api: MaxInt64 > MaxInt64-1",
			tol:    api.Toleration{Key: "test-key", Operator: api.TolerationOpGt, Value: "9223372036854775806"},
			taint:  api.Taint{Key: "test-key", Value: "9223372036854775807", Effect: api.TaintEffectNoSchedule},
			opts:   cmpOn,
			want:   true,
		},
		{
			name:   "Lt min int64 taint",
			reason: "k8s.io/api: MinInt64 < 0",
			tol:    api.Toleration{Key: "test-key", Operator: api.TolerationOpLt, Value: "0"},
			taint:  api.Taint{Key: "test-key", Value: "-9223372036854775808", Effect: api.TaintEffectNoSchedule},
			opts:   cmpOn,
			want:   true,
		},
		{
			name:   "Gt taint beyond int64",
			reason: "a value outside int64 is unparsable and never matches",
			tol:    api.Toleration{Key: "test-key", Operator: api.TolerationOpGt, Value: "0"},
			taint:  api.Taint{Key: "test-key", Value: "9223372036854775808", Effect: api.TaintEffectNoSchedule},
			opts:   cmpOn,
			want:   false,
		},
		{
			name:   "Lt with empty key",
			reason: "the key wildcard applies to Lt/Gt too",
			tol:    api.Toleration{Operator: api.TolerationOpLt, Value: "10"},
			taint:  api.Taint{Key: "any", Value: "9", Effect: api.TaintEffectNoExecute},
			opts:   cmpOn,
			want:   true,
		},
		{
			name:   "Gt effect mismatch",
			reason: "the effect rule applies before the comparison",
			tol:    api.Toleration{Key: sla, Operator: api.TolerationOpGt, Value: "1", Effect: api.TaintEffectNoExecute},
			taint:  api.Taint{Key: sla, Value: "2", Effect: api.TaintEffectNoSchedule},
			opts:   cmpOn,
			want:   false,
		},
	}
	// k8s.io/api TestCompareNumericValues: non-canonical strings on either
	// side never match, whatever the numbers would say.
	for _, bad := range []struct{ name, value string }{
		{"leading zero", "0100"},
		{"plus sign", "+100"},
		{"spaces", " 200 "},
		{"floating point", "100.5"},
		{"empty string", ""},
		{"lone minus", "-"},
		{"minus zero", "-0"},
		{"non-numeric", "abc"},
	} {
		tests = append(tests,
			tolerateCase{
				name:   "Gt toleration value " + bad.name,
				reason: "k8s.io/api: only canonical decimal integers compare; " + strconv.Quote(bad.value) + " is not one",
				tol:    api.Toleration{Key: "k", Operator: api.TolerationOpGt, Value: bad.value},
				taint:  api.Taint{Key: "k", Value: "1000", Effect: api.TaintEffectNoSchedule},
				opts:   cmpOn,
			},
			tolerateCase{
				name:   "Lt taint value " + bad.name,
				reason: "k8s.io/api: only canonical decimal integers compare; " + strconv.Quote(bad.value) + " is not one",
				tol:    api.Toleration{Key: "k", Operator: api.TolerationOpLt, Value: "1000"},
				taint:  api.Taint{Key: "k", Value: bad.value, Effect: api.TaintEffectNoSchedule},
				opts:   cmpOn,
			})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Tolerates(tc.tol, tc.taint, tc.opts)
			if got != tc.want {
				t.Errorf("Tolerates(%v, %v) = %v, want %v (%s)", tc.tol, tc.taint, got, tc.want, tc.reason)
			}
			set := NewSet([]api.Toleration{tc.tol}, tc.opts)
			if got := set.Tolerates(tc.taint); got != tc.want {
				t.Errorf("Set.Tolerates(%v) = %v, want %v (%s)", tc.taint, got, tc.want, tc.reason)
			}
		})
	}
}

func TestParseCanonicalInt(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		in     string
		want   int64
		ok     bool
	}{
		{name: "zero", reason: "\"0\" is canonical", in: "0", want: 0, ok: true},
		{name: "positive", reason: "first digit 1-9", in: "123", want: 123, ok: true},
		{name: "negative", reason: "'-' allowed for negatives", in: "-456", want: -456, ok: true},
		{name: "max int64", reason: "int64 range", in: "9223372036854775807", want: math.MaxInt64, ok: true},
		{name: "min int64", reason: "int64 range", in: "-9223372036854775808", want: math.MinInt64, ok: true},
		{name: "above max", reason: "outside int64", in: "9223372036854775808"},
		{name: "below min", reason: "outside int64", in: "-9223372036854775809"},
		{name: "far above max", reason: "outside int64", in: "99999999999999999999999"},
		{name: "leading zero", reason: "no leading zeros", in: "007"},
		{name: "double zero", reason: "no leading zeros", in: "00"},
		{name: "minus zero", reason: "\"-0\" is not canonical", in: "-0"},
		{name: "negative leading zero", reason: "no leading zeros", in: "-01"},
		{name: "plus", reason: "no '+'", in: "+1"},
		{name: "space", reason: "no spaces", in: " 1"},
		{name: "trailing space", reason: "no spaces", in: "1 "},
		{name: "float", reason: "integers only", in: "1.5"},
		{name: "exponent", reason: "integers only", in: "1e3"},
		{name: "hex", reason: "base 10 only", in: "0x10"},
		{name: "underscore", reason: "no digit separators", in: "1_000"},
		{name: "empty", reason: "empty is not a number", in: ""},
		{name: "lone minus", reason: "a sign needs digits", in: "-"},
		{name: "double minus", reason: "one sign only", in: "--1"},
		{name: "unicode digit", reason: "ASCII digits only", in: "١"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := parseCanonicalInt(tc.in)
			if diff := cmp.Diff([2]any{tc.want, tc.ok}, [2]any{got, ok}); diff != "" {
				t.Errorf("parseCanonicalInt(%q) mismatch (-want +got) (%s):\n%s", tc.in, tc.reason, diff)
			}
		})
	}
}

func TestEffects(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		set    Effects
		want   map[api.TaintEffect]bool
		str    string
	}{
		{
			name:   "ScheduleBlocking",
			reason: "shouldRun looks at NoSchedule and NoExecute, never PreferNoSchedule",
			set:    ScheduleBlocking,
			want:   map[api.TaintEffect]bool{api.TaintEffectNoSchedule: true, api.TaintEffectPreferNoSchedule: false, api.TaintEffectNoExecute: true, "": false, "Other": false},
			str:    "NoSchedule|NoExecute",
		},
		{
			name:   "ExecuteBlocking",
			reason: "shouldContinueRunning looks at NoExecute only",
			set:    ExecuteBlocking,
			want:   map[api.TaintEffect]bool{api.TaintEffectNoSchedule: false, api.TaintEffectPreferNoSchedule: false, api.TaintEffectNoExecute: true, "": false, "Other": false},
			str:    "NoExecute",
		},
		{
			name:   "AllEffects",
			reason: "the three known effects",
			set:    AllEffects,
			want:   map[api.TaintEffect]bool{api.TaintEffectNoSchedule: true, api.TaintEffectPreferNoSchedule: true, api.TaintEffectNoExecute: true, "": false, "Other": false},
			str:    "NoSchedule|PreferNoSchedule|NoExecute",
		},
		{
			name:   "unknown effects ignored",
			reason: "an unknown effect has no bit",
			set:    EffectsOf("Other", ""),
			want:   map[api.TaintEffect]bool{api.TaintEffectNoSchedule: false, api.TaintEffectPreferNoSchedule: false, api.TaintEffectNoExecute: false, "": false, "Other": false},
			str:    "",
		},
		{
			name:   "zero value",
			reason: "the zero Effects selects nothing",
			set:    0,
			want:   map[api.TaintEffect]bool{api.TaintEffectNoSchedule: false, api.TaintEffectPreferNoSchedule: false, api.TaintEffectNoExecute: false, "": false, "Other": false},
			str:    "",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := map[api.TaintEffect]bool{}
			for e := range tc.want {
				got[e] = tc.set.Has(e)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Has mismatch (-want +got) (%s):\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.str, tc.set.String()); diff != "" {
				t.Errorf("String mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEffectConstants(t *testing.T) {
	got := []Effects{ScheduleBlocking, ExecuteBlocking, AllEffects}
	want := []Effects{EffectsOf(api.TaintEffectNoSchedule, api.TaintEffectNoExecute), EffectsOf(api.TaintEffectNoExecute), EffectsOf(api.TaintEffectNoSchedule, api.TaintEffectPreferNoSchedule, api.TaintEffectNoExecute)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("constants mismatch (-want +got):\n%s", diff)
	}
}

func TestStrings(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		got    string
		want   string
	}{
		{name: "taint with value", reason: "kubectl renders key=value:Effect",
			got: api.Taint{Key: "dedicated", Value: "gpu", Effect: api.TaintEffectNoSchedule}.String(), want: "dedicated=gpu:NoSchedule"},
		{name: "taint without value", reason: "kubectl renders key:Effect",
			got: api.Taint{Key: api.TaintNodeNotReady, Effect: api.TaintEffectNoExecute}.String(), want: "node.kubernetes.io/not-ready:NoExecute"},
		{name: "toleration Exists with seconds", reason: "kubectl describe style",
			got:  api.Toleration{Key: api.TaintNodeNotReady, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))}.String(),
			want: "node.kubernetes.io/not-ready:NoExecute op=Exists for 300s"},
		{name: "toleration Equal", reason: "Equal is not shown",
			got: api.Toleration{Key: "dedicated", Operator: api.TolerationOpEqual, Value: "gpu"}.String(), want: "dedicated=gpu"},
		{name: "tolerate everything", reason: "empty key, Exists, no effect",
			got: api.Toleration{Operator: api.TolerationOpExists}.String(), want: "op=Exists"},
		{name: "toleration Gt", reason: "other operators are shown",
			got: api.Toleration{Key: "sla", Operator: api.TolerationOpGt, Value: "9", Effect: api.TaintEffectNoSchedule}.String(), want: "sla=9:NoSchedule op=Gt"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.got); diff != "" {
				t.Errorf("String() mismatch (-want +got) (%s):\n%s", tc.reason, diff)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
