package taints

import (
	"strconv"
	"testing"

	"github.com/daemonplan/daemonplan/api"
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
