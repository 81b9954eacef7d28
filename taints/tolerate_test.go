package taints

import (
	"math"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// cmpOn is Options with the comparison operators honoured.
var cmpOn = Options{ComparisonOperators: true}

// tolerateCase is one row of TestTolerationTolerates.
type tolerateCase struct {
	name   string
	reason string
	tol    Toleration
	taint  Taint
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
			tol:    Toleration{Key: "foo", Operator: Exists},
			taint:  Taint{Key: "foo", Effect: NoSchedule},
			want:   true,
		},
		{
			name:   "empty effect matches NoExecute",
			reason: "an empty toleration effect matches every taint effect",
			tol:    Toleration{Key: "foo", Operator: Exists},
			taint:  Taint{Key: "foo", Effect: NoExecute},
			want:   true,
		},
		{
			name:   "empty effect matches an unknown effect",
			reason: "the empty effect is a wildcard, not a list of the known effects",
			tol:    Toleration{Key: "foo", Operator: Exists},
			taint:  Taint{Key: "foo", Effect: "Custom"},
			want:   true,
		},
		{
			name:   "different effects",
			reason: "k8s.io/api: same key and value, Equal, but different effects is not tolerated",
			tol:    Toleration{Key: "foo", Operator: Equal, Value: "bar", Effect: NoSchedule},
			taint:  Taint{Key: "foo", Value: "bar", Effect: NoExecute},
			want:   false,
		},
		{
			name:   "NoExecute toleration does not cover NoSchedule taint",
			reason: "a non-empty effect must equal the taint's; this is why not-ready:NoSchedule blocks daemon pods",
			tol:    Toleration{Key: KeyNotReady, Operator: Exists, Effect: NoExecute},
			taint:  Taint{Key: KeyNotReady, Effect: NoSchedule},
			want:   false,
		},
		{
			name:   "unknown effect equal on both sides",
			reason: "effects are compared as strings; validation, not matching, rejects unknown ones",
			tol:    Toleration{Key: "foo", Operator: Exists, Effect: "Custom"},
			taint:  Taint{Key: "foo", Effect: "Custom"},
			want:   true,
		},
		{
			name:   "unknown toleration effect against empty taint effect",
			reason: "a non-empty toleration effect must equal the taint's, even when the taint's is empty",
			tol:    Toleration{Key: "foo", Operator: Exists, Effect: "Custom"},
			taint:  Taint{Key: "foo"},
			want:   false,
		},
		// docs/eligibility.md, E8 rule 2: key.
		{
			name:   "empty key Exists matches every key",
			reason: "k8s.io/api: empty key with Exists means match all taints",
			tol:    Toleration{Operator: Exists, Effect: NoSchedule},
			taint:  Taint{Key: "foo", Value: "bar", Effect: NoSchedule},
			want:   true,
		},
		{
			name:   "empty key Exists empty effect matches anything",
			reason: "the tolerate-everything toleration",
			tol:    Toleration{Operator: Exists},
			taint:  Taint{Key: "x/y", Value: "z", Effect: NoExecute},
			want:   true,
		},
		{
			name:   "different keys",
			reason: "a non-empty key must equal the taint key",
			tol:    Toleration{Key: "foo", Operator: Exists},
			taint:  Taint{Key: "bar", Effect: NoSchedule},
			want:   false,
		},
		{
			name:   "key compare is case sensitive",
			reason: "keys are compared byte for byte",
			tol:    Toleration{Key: "Foo", Operator: Exists},
			taint:  Taint{Key: "foo", Effect: NoSchedule},
			want:   false,
		},
		{
			name:   "empty key Equal matches any key with equal value",
			reason: "matching does not enforce the validation rule that an empty key needs Exists",
			tol:    Toleration{Operator: Equal, Value: "v"},
			taint:  Taint{Key: "k", Value: "v", Effect: NoSchedule},
			want:   true,
		},
		// docs/eligibility.md, E8 rule 3: operators Exists / Equal / "".
		{
			name:   "Exists taint without value",
			reason: "k8s.io/api: same key and effect, Exists, taint has no value",
			tol:    Toleration{Key: "foo", Operator: Exists, Effect: NoSchedule},
			taint:  Taint{Key: "foo", Effect: NoSchedule},
			want:   true,
		},
		{
			name:   "Exists taint with value",
			reason: "k8s.io/api: same key and effect, Exists, taint has some value",
			tol:    Toleration{Key: "foo", Operator: Exists, Effect: NoSchedule},
			taint:  Taint{Key: "foo", Value: "bar", Effect: NoSchedule},
			want:   true,
		},
		{
			name:   "Exists ignores its own value",
			reason: "Exists matches any taint value; a value on the toleration is a validation error, not a filter",
			tol:    Toleration{Key: "foo", Operator: Exists, Value: "other"},
			taint:  Taint{Key: "foo", Value: "bar", Effect: NoSchedule},
			want:   true,
		},
		{
			name:   "Equal same value",
			reason: "k8s.io/api: same key, effect and value with Equal",
			tol:    Toleration{Key: "foo", Operator: Equal, Value: "bar", Effect: NoSchedule},
			taint:  Taint{Key: "foo", Value: "bar", Effect: NoSchedule},
			want:   true,
		},
		{
			name:   "Equal different values",
			reason: "k8s.io/api: same key and effect, different values, Equal",
			tol:    Toleration{Key: "foo", Operator: Equal, Value: "value1", Effect: NoSchedule},
			taint:  Taint{Key: "foo", Value: "value2", Effect: NoSchedule},
			want:   false,
		},
		{
			name:   "empty operator means Equal",
			reason: "operator \"\" compares values like Equal",
			tol:    Toleration{Key: "foo", Value: "bar"},
			taint:  Taint{Key: "foo", Value: "bar", Effect: NoSchedule},
			want:   true,
		},
		{
			name:   "empty operator different values",
			reason: "operator \"\" compares values like Equal",
			tol:    Toleration{Key: "foo", Value: "bar"},
			taint:  Taint{Key: "foo", Value: "baz", Effect: NoSchedule},
			want:   false,
		},
		{
			name:   "Equal empty value equals empty taint value",
			reason: "empty equals empty",
			tol:    Toleration{Key: "foo", Operator: Equal},
			taint:  Taint{Key: "foo", Effect: NoSchedule},
			want:   true,
		},
		{
			name:   "Equal empty value against a taint value",
			reason: "an empty toleration value is not a wildcard for Equal",
			tol:    Toleration{Key: "foo", Operator: Equal},
			taint:  Taint{Key: "foo", Value: "bar", Effect: NoSchedule},
			want:   false,
		},
		{
			name:   "unknown operator",
			reason: "any operator other than \"\", Equal, Exists, Lt, Gt matches nothing",
			tol:    Toleration{Key: "foo", Operator: "In", Value: "bar"},
			taint:  Taint{Key: "foo", Value: "bar", Effect: NoSchedule},
			opts:   cmpOn,
			want:   false,
		},
		{
			name:   "operator is case sensitive",
			reason: "\"exists\" is not Exists",
			tol:    Toleration{Key: "foo", Operator: "exists"},
			taint:  Taint{Key: "foo", Effect: NoSchedule},
			want:   false,
		},
		{
			name:   "tolerationSeconds ignored",
			reason: "eviction timing is not part of matching",
			tol:    Toleration{Key: "foo", Operator: Exists, Effect: NoExecute, TolerationSeconds: ptr(int64(0))},
			taint:  Taint{Key: "foo", Effect: NoExecute},
			want:   true,
		},
		// Lt / Gt gate.
		{
			name:   "Gt with comparison operators off",
			reason: "v1.34: the gate does not exist, Lt/Gt tolerate nothing",
			tol:    Toleration{Key: sla, Operator: Gt, Value: "750", Effect: NoSchedule},
			taint:  Taint{Key: sla, Value: "950", Effect: NoSchedule},
			want:   false,
		},
		{
			name:   "Lt with comparison operators off",
			reason: "v1.34: the gate does not exist, Lt/Gt tolerate nothing",
			tol:    Toleration{Key: sla, Operator: Lt, Value: "950", Effect: NoSchedule},
			taint:  Taint{Key: sla, Value: "800", Effect: NoSchedule},
			want:   false,
		},
		// k8s.io/api toleration_test.go, comparison operators on.
		{
			name:   "Gt taint less than toleration",
			reason: "k8s.io/api: Gt tolerates only a taint value greater than the toleration value",
			tol:    Toleration{Key: sla, Operator: Gt, Value: "950", Effect: NoSchedule},
			taint:  Taint{Key: sla, Value: "800", Effect: NoSchedule},
			opts:   cmpOn,
			want:   false,
		},
		{
			name:   "Gt taint greater than toleration",
			reason: "k8s.io/api: taint 950 > 750",
			tol:    Toleration{Key: sla, Operator: Gt, Value: "750", Effect: NoSchedule},
			taint:  Taint{Key: sla, Value: "950", Effect: NoSchedule},
			opts:   cmpOn,
			want:   true,
		},
		{
			name:   "Lt taint greater than toleration",
			reason: "k8s.io/api: taint 950 is not < 800",
			tol:    Toleration{Key: sla, Operator: Lt, Value: "800", Effect: NoSchedule},
			taint:  Taint{Key: sla, Value: "950", Effect: NoSchedule},
			opts:   cmpOn,
			want:   false,
		},
		{
			name:   "Lt taint less than toleration",
			reason: "k8s.io/api: taint 800 < 950",
			tol:    Toleration{Key: sla, Operator: Lt, Value: "950", Effect: NoSchedule},
			taint:  Taint{Key: sla, Value: "800", Effect: NoSchedule},
			opts:   cmpOn,
			want:   true,
		},
		{
			name:   "Gt equal values",
			reason: "k8s.io/api: the comparison is strict",
			tol:    Toleration{Key: sla, Operator: Gt, Value: "950", Effect: NoSchedule},
			taint:  Taint{Key: sla, Value: "950", Effect: NoSchedule},
			opts:   cmpOn,
			want:   false,
		},
		{
			name:   "Lt equal values",
			reason: "k8s.io/api: the comparison is strict",
			tol:    Toleration{Key: sla, Operator: Lt, Value: "0", Effect: NoSchedule},
			taint:  Taint{Key: sla, Value: "0", Effect: NoSchedule},
			opts:   cmpOn,
			want:   false,
		},
		{
			name:   "Gt non-numeric taint value",
			reason: "k8s.io/api: an unparsable taint value never matches",
			tol:    Toleration{Key: sla, Operator: Gt, Value: "950", Effect: NoSchedule},
			taint:  Taint{Key: sla, Value: "high", Effect: NoSchedule},
			opts:   cmpOn,
			want:   false,
		},
		{
			name:   "Gt negative taint below threshold",
			reason: "k8s.io/api: -200 is not > -100",
			tol:    Toleration{Key: "test-key", Operator: Gt, Value: "-100", Effect: NoSchedule},
			taint:  Taint{Key: "test-key", Value: "-200", Effect: NoSchedule},
			opts:   cmpOn,
			want:   false,
		},
		{
			name:   "Gt negative taint above threshold",
			reason: "k8s.io/api: -50 > -100",
			tol:    Toleration{Key: "test-key", Operator: Gt, Value: "-100", Effect: NoSchedule},
			taint:  Taint{Key: "test-key", Value: "-50", Effect: NoSchedule},
			opts:   cmpOn,
			want:   true,
		},
		{
			name:   "Gt large int64 threshold",
			reason: "k8s.io/api: 100 is not > 9223372036854775806",
			tol:    Toleration{Key: "test-key", Operator: Gt, Value: "9223372036854775806", Effect: NoSchedule},
			taint:  Taint{Key: "test-key", Value: "100", Effect: NoSchedule},
			opts:   cmpOn,
			want:   false,
		},
		{
			name:   "Gt max int64 taint",
			reason: "k8s.io/api: MaxInt64 > MaxInt64-1",
			tol:    Toleration{Key: "test-key", Operator: Gt, Value: "9223372036854775806"},
			taint:  Taint{Key: "test-key", Value: "9223372036854775807", Effect: NoSchedule},
			opts:   cmpOn,
			want:   true,
		},
		{
			name:   "Lt min int64 taint",
			reason: "k8s.io/api: MinInt64 < 0",
			tol:    Toleration{Key: "test-key", Operator: Lt, Value: "0"},
			taint:  Taint{Key: "test-key", Value: "-9223372036854775808", Effect: NoSchedule},
			opts:   cmpOn,
			want:   true,
		},
		{
			name:   "Gt taint beyond int64",
			reason: "a value outside int64 is unparsable and never matches",
			tol:    Toleration{Key: "test-key", Operator: Gt, Value: "0"},
			taint:  Taint{Key: "test-key", Value: "9223372036854775808", Effect: NoSchedule},
			opts:   cmpOn,
			want:   false,
		},
		{
			name:   "Lt with empty key",
			reason: "the key wildcard applies to Lt/Gt too",
			tol:    Toleration{Operator: Lt, Value: "10"},
			taint:  Taint{Key: "any", Value: "9", Effect: NoExecute},
			opts:   cmpOn,
			want:   true,
		},
		{
			name:   "Gt effect mismatch",
			reason: "the effect rule applies before the comparison",
			tol:    Toleration{Key: sla, Operator: Gt, Value: "1", Effect: NoExecute},
			taint:  Taint{Key: sla, Value: "2", Effect: NoSchedule},
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
				tol:    Toleration{Key: "k", Operator: Gt, Value: bad.value},
				taint:  Taint{Key: "k", Value: "1000", Effect: NoSchedule},
				opts:   cmpOn,
			},
			tolerateCase{
				name:   "Lt taint value " + bad.name,
				reason: "k8s.io/api: only canonical decimal integers compare; " + strconv.Quote(bad.value) + " is not one",
				tol:    Toleration{Key: "k", Operator: Lt, Value: "1000"},
				taint:  Taint{Key: "k", Value: bad.value, Effect: NoSchedule},
				opts:   cmpOn,
			})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.tol.Tolerates(tc.taint, tc.opts)
			if got != tc.want {
				t.Errorf("%v.Tolerates(%v) = %v, want %v (%s)", tc.tol, tc.taint, got, tc.want, tc.reason)
			}
			set := NewSet([]Toleration{tc.tol}, tc.opts)
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
		want   map[Effect]bool
		str    string
	}{
		{
			name:   "ScheduleBlocking",
			reason: "shouldRun looks at NoSchedule and NoExecute, never PreferNoSchedule",
			set:    ScheduleBlocking,
			want:   map[Effect]bool{NoSchedule: true, PreferNoSchedule: false, NoExecute: true, "": false, "Other": false},
			str:    "NoSchedule|NoExecute",
		},
		{
			name:   "ExecuteBlocking",
			reason: "shouldContinueRunning looks at NoExecute only",
			set:    ExecuteBlocking,
			want:   map[Effect]bool{NoSchedule: false, PreferNoSchedule: false, NoExecute: true, "": false, "Other": false},
			str:    "NoExecute",
		},
		{
			name:   "AllEffects",
			reason: "the three known effects",
			set:    AllEffects,
			want:   map[Effect]bool{NoSchedule: true, PreferNoSchedule: true, NoExecute: true, "": false, "Other": false},
			str:    "NoSchedule|PreferNoSchedule|NoExecute",
		},
		{
			name:   "unknown effects ignored",
			reason: "an unknown effect has no bit",
			set:    EffectsOf("Other", ""),
			want:   map[Effect]bool{NoSchedule: false, PreferNoSchedule: false, NoExecute: false, "": false, "Other": false},
			str:    "",
		},
		{
			name:   "zero value",
			reason: "the zero Effects selects nothing",
			set:    0,
			want:   map[Effect]bool{NoSchedule: false, PreferNoSchedule: false, NoExecute: false, "": false, "Other": false},
			str:    "",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := map[Effect]bool{}
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
	want := []Effects{EffectsOf(NoSchedule, NoExecute), EffectsOf(NoExecute), EffectsOf(NoSchedule, PreferNoSchedule, NoExecute)}
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
			got: Taint{Key: "dedicated", Value: "gpu", Effect: NoSchedule}.String(), want: "dedicated=gpu:NoSchedule"},
		{name: "taint without value", reason: "kubectl renders key:Effect",
			got: Taint{Key: KeyNotReady, Effect: NoExecute}.String(), want: "node.kubernetes.io/not-ready:NoExecute"},
		{name: "toleration Exists with seconds", reason: "kubectl describe style",
			got:  Toleration{Key: KeyNotReady, Operator: Exists, Effect: NoExecute, TolerationSeconds: ptr(int64(300))}.String(),
			want: "node.kubernetes.io/not-ready:NoExecute op=Exists for 300s"},
		{name: "toleration Equal", reason: "Equal is not shown",
			got: Toleration{Key: "dedicated", Operator: Equal, Value: "gpu"}.String(), want: "dedicated=gpu"},
		{name: "tolerate everything", reason: "empty key, Exists, no effect",
			got: Toleration{Operator: Exists}.String(), want: "op=Exists"},
		{name: "toleration Gt", reason: "other operators are shown",
			got: Toleration{Key: "sla", Operator: Gt, Value: "9", Effect: NoSchedule}.String(), want: "sla=9:NoSchedule op=Gt"},
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
