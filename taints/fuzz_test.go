package taints

import (
	"strconv"
	"strings"
	"testing"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
)

// FuzzTolerates checks, for arbitrary strings, that matching never panics,
// that the compiled Set agrees with Tolerates and FindUntolerated
// (also with the daemon defaults merged in), and that the Lt/Gt number parser
// accepts exactly the canonical renderings of int64 values.
func FuzzTolerates(f *testing.F) {
	f.Add("foo", "Exists", "", "NoSchedule", "foo", "bar", "NoSchedule", false, false)
	f.Add("", "Exists", "", "", "x", "y", "NoExecute", false, true)
	f.Add("k", "Gt", "9223372036854775806", "", "k", "9223372036854775807", "NoSchedule", true, false)
	f.Add("k", "Lt", "0", "NoSchedule", "k", "-9223372036854775808", "NoSchedule", true, false)
	f.Add("k", "Lt", "0100", "", "k", "+5", "NoSchedule", true, false)
	f.Add(api.TaintNodeNotReady, "Exists", "", "NoExecute", api.TaintNodeNotReady, "", "NoSchedule", false, false)
	f.Fuzz(func(t *testing.T, tolKey, tolOp, tolValue, tolEffect, taintKey, taintValue, taintEffect string, cmpOps, hostNetwork bool) {
		tol := api.Toleration{Key: tolKey, Operator: api.TolerationOperator(tolOp), Value: tolValue, Effect: api.TaintEffect(tolEffect)}
		taint := api.Taint{Key: taintKey, Value: taintValue, Effect: api.TaintEffect(taintEffect)}
		opts := Options{ComparisonOperators: cmpOps}

		want := Tolerates(tol, taint, opts)
		set := NewSet([]api.Toleration{tol}, opts)
		if got := set.Tolerates(taint); got != want {
			t.Fatalf("Set.Tolerates(%v) = %v, Tolerates %v (toleration %v)", taint, got, want, tol)
		}
		for _, effects := range []Effects{AllEffects, ScheduleBlocking, ExecuteBlocking} {
			gotT, gotOK := set.FirstUntolerated([]api.Taint{taint}, effects)
			wantT, wantOK := FindUntolerated([]api.Taint{taint}, []api.Toleration{tol}, effects, opts)
			if gotT != wantT || gotOK != wantOK {
				t.Fatalf("FirstUntolerated = %v, %v; FindUntolerated = %v, %v", gotT, gotOK, wantT, wantOK)
			}
		}
		merged := MergeDaemonDefaults([]api.Toleration{tol}, hostNetwork)
		mset := NewSet(merged, opts)
		if got, want := mset.Tolerates(taint), naiveTolerates(merged, taint, opts); got != want {
			t.Fatalf("merged Set.Tolerates(%v) = %v, uncompiled %v", taint, got, want)
		}

		for _, s := range []string{tolValue, taintValue} {
			n, ok := parseCanonicalInt(s)
			std, err := strconv.ParseInt(s, 10, 64)
			canonical := err == nil && strconv.FormatInt(std, 10) == s
			if ok != canonical || (ok && n != std) {
				t.Fatalf("parseCanonicalInt(%q) = %d, %v; strconv says %d, %v, canonical %v", s, n, ok, std, err, canonical)
			}
		}
	})
}

// FuzzValidateTolerations checks that validation never panics, reports paths
// below the toleration's index only, and accepts nothing that breaks the
// rules it can check cheaply.
func FuzzValidateTolerations(f *testing.F) {
	f.Add("example.com/key", "Equal", "value", "NoSchedule", int64(0), false)
	f.Add("", "Exists", "", "", int64(0), false)
	f.Add("", "", "", "NoSchedule", int64(300), true)
	f.Add("a/b/c", "Bogus", "not valid!", "Sometimes", int64(-1), true)
	f.Add("example.com/gpu", "Lt", "010", "NoSchedule", int64(0), false)
	f.Add("example.com/gpu", "Gt", "-42", "", int64(0), false)
	f.Add(strings.Repeat("x", 64), "Exists", "v", "NoExecute", int64(5), true)
	f.Fuzz(func(t *testing.T, key, op, value, effect string, seconds int64, hasSeconds bool) {
		tol := api.Toleration{Key: key, Operator: api.TolerationOperator(op), Value: value, Effect: api.TaintEffect(effect)}
		if hasSeconds {
			tol.TolerationSeconds = &seconds
		}
		// Each toleration is validated with the comparison operators gate
		// off and on.
		for _, gate := range []bool{false, true} {
			errs := api.ValidateTolerations([]api.Toleration{tol}, api.ValidateOptions{ComparisonOperators: gate})
			for _, e := range errs {
				if !strings.HasPrefix(e.Field, "[0].") {
					t.Fatalf("gate %v: error outside the toleration: %v", gate, e)
				}
				if e.Type != field.TypeInvalid && e.Type != field.TypeNotSupported {
					t.Fatalf("gate %v: unexpected error type: %v", gate, e)
				}
				_ = e.Error()
			}
			if len(errs) > 0 {
				continue
			}
			comparison := tol.Operator == api.TolerationOpLt || tol.Operator == api.TolerationOpGt
			switch {
			case key == "" && tol.Operator != api.TolerationOpExists:
				t.Fatalf("gate %v: accepted an empty key with operator %q", gate, op)
			case hasSeconds && tol.Effect != api.TaintEffectNoExecute:
				t.Fatalf("gate %v: accepted tolerationSeconds with effect %q", gate, effect)
			case comparison && !gate:
				t.Fatalf("accepted operator %q without the gate", op)
			case comparison && strconv.FormatInt(mustParseInt(t, value), 10) != value:
				t.Fatalf("accepted %s with value %q, not a canonical integer", op, value)
			case !comparison && tol.Operator != "" && tol.Operator != api.TolerationOpEqual && tol.Operator != api.TolerationOpExists:
				t.Fatalf("gate %v: accepted operator %q", gate, op)
			case tol.Operator == api.TolerationOpExists && value != "":
				t.Fatalf("gate %v: accepted Exists with value %q", gate, value)
			case effect != "" && !AllEffects.Has(tol.Effect):
				t.Fatalf("gate %v: accepted effect %q", gate, effect)
			case len(value) > 63 || len(key) > 253+1+63:
				t.Fatalf("gate %v: accepted an over-long key or value: %q, %q", gate, key, value)
			}
		}
	})
}

// mustParseInt is value as an int64, failing t when it is not one.
func mustParseInt(t *testing.T, value string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(value, 10, 64)
	if err != nil {
		t.Fatalf("accepted value %q: %v", value, err)
	}
	return n
}
