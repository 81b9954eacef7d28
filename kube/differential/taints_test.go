package differential

import (
	"testing"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/taints"
)

var (
	taintKeys    = []string{"", "k", "dedicated", "node.kubernetes.io/unreachable"}
	taintValues  = []string{"", "v", "1", "gpu"}
	taintEffects = []api.TaintEffect{api.TaintEffectNoSchedule, api.TaintEffectPreferNoSchedule, api.TaintEffectNoExecute, "", "Bogus"}
	tolOps       = []api.TolerationOperator{"", api.TolerationOpEqual, api.TolerationOpExists, api.TolerationOpLt, api.TolerationOpGt, "Bogus"}
)

func genTaint() *rapid.Generator[api.Taint] {
	return rapid.Custom(func(t *rapid.T) api.Taint {
		return api.Taint{
			Key:    rapid.SampledFrom(taintKeys[1:]).Draw(t, "key"),
			Value:  rapid.SampledFrom(taintValues).Draw(t, "value"),
			Effect: rapid.SampledFrom(taintEffects).Draw(t, "effect"),
		}
	})
}

func genToleration() *rapid.Generator[api.Toleration] {
	return rapid.Custom(func(t *rapid.T) api.Toleration {
		tol := api.Toleration{
			Key:      rapid.SampledFrom(taintKeys).Draw(t, "key"),
			Operator: rapid.SampledFrom(tolOps).Draw(t, "op"),
			Value:    rapid.SampledFrom(taintValues).Draw(t, "value"),
			Effect:   rapid.SampledFrom(taintEffects).Draw(t, "effect"),
		}
		if rapid.Bool().Draw(t, "hasSeconds") {
			s := rapid.Int64Range(-1, 300).Draw(t, "seconds")
			tol.TolerationSeconds = &s
		}
		return tol
	})
}

func toV1Taint(t api.Taint) v1.Taint {
	return v1.Taint{Key: t.Key, Value: t.Value, Effect: v1.TaintEffect(t.Effect)}
}

func toV1Toleration(t api.Toleration) v1.Toleration {
	return v1.Toleration{
		Key:               t.Key,
		Operator:          v1.TolerationOperator(t.Operator),
		Value:             t.Value,
		Effect:            v1.TaintEffect(t.Effect),
		TolerationSeconds: t.TolerationSeconds,
	}
}

// TestToleratesAgreesWithToleratesTaint: taints.Tolerates with the
// zero Options (comparison operators off, upstream's default) agrees with
// v1.Toleration.ToleratesTaint with its comparison operators off.
func TestToleratesAgreesWithToleratesTaint(t *testing.T) {
	var c counter
	rapid.Check(t, func(t *rapid.T) {
		tol := genToleration().Draw(t, "toleration")
		taint := genTaint().Draw(t, "taint")
		if rapid.Bool().Draw(t, "sameKey") {
			taint.Key = tol.Key
			if taint.Key == "" {
				taint.Key = "k"
			}
		}
		if rapid.Bool().Draw(t, "sameValue") {
			taint.Value = tol.Value
		}
		agreeOnTolerates(t, &c, tol, taint, false)
	})
	c.report(t, "tolerated", "not tolerated")
}

// agreeOnTolerates fails t unless taints.Tolerates and upstream's
// ToleratesTaint, both with the comparison operators gate set to gate,
// agree on tol and taint, and counts the case.
func agreeOnTolerates(t *rapid.T, c *counter, tol api.Toleration, taint api.Taint, gate bool) {
	got := taints.Tolerates(tol, taint, taints.Options{ComparisonOperators: gate})
	vt, vtaint := toV1Toleration(tol), toV1Taint(taint)
	if want := vt.ToleratesTaint(logr.Discard(), &vtaint, gate); got != want {
		t.Fatalf("%+v tolerates %+v (gate %v): daemonplan %v, upstream %v", tol, taint, gate, got, want)
	}
	c.cases.Add(1)
	if got {
		c.a.Add(1)
	} else {
		c.b.Add(1)
	}
}

func scheduleBlocking(t *v1.Taint) bool {
	return t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute
}

// TestFirstUntoleratedAgreesWithFindMatchingUntoleratedTaint: Set.FirstUntolerated
// with ScheduleBlocking finds the same taint as FindMatchingUntoleratedTaint
// with a NoSchedule|NoExecute filter, or none in both.
func TestFirstUntoleratedAgreesWithFindMatchingUntoleratedTaint(t *testing.T) {
	var c counter
	rapid.Check(t, func(t *rapid.T) {
		tols := rapid.SliceOfN(genToleration(), 0, 5).Draw(t, "tolerations")
		ts := rapid.SliceOfN(genTaint(), 0, 5).Draw(t, "taints")

		set := taints.NewSet(tols, taints.Options{})
		got, gotFound := set.FirstUntolerated(ts, taints.ScheduleBlocking)

		vtols := make([]v1.Toleration, len(tols))
		for i, tol := range tols {
			vtols[i] = toV1Toleration(tol)
		}
		vts := make([]v1.Taint, len(ts))
		for i, taint := range ts {
			vts[i] = toV1Taint(taint)
		}
		want, wantFound := corev1helpers.FindMatchingUntoleratedTaint(logr.Discard(), vts, vtols, scheduleBlocking, false)

		if gotFound != wantFound || (gotFound && toV1Taint(got) != want) {
			t.Fatalf("taints %+v, tolerations %+v:\ndaemonplan %+v found=%v\nupstream   %+v found=%v",
				ts, tols, got, gotFound, want, wantFound)
		}
		// The uncompiled form must agree too.
		fu, fuFound := taints.FindUntolerated(ts, tols, taints.ScheduleBlocking, taints.Options{})
		if fuFound != gotFound || fu != got {
			t.Fatalf("FindUntolerated %+v/%v differs from Set.FirstUntolerated %+v/%v", fu, fuFound, got, gotFound)
		}
		c.cases.Add(1)
		if gotFound {
			c.a.Add(1)
		} else {
			c.b.Add(1)
		}
	})
	c.report(t, "untolerated found", "all tolerated")
}

// numericValues are taint and toleration values around the rules of the
// comparison operators: canonical integers, the int64 limits and one past
// them, and forms strconv accepts but canonical form does not ("+1",
// "007", "-0"), next to words and spaces.
var numericValues = []string{"0", "1", "-1", "42", "100", "007", "+1", "-0", "",
	"9223372036854775807", "-9223372036854775808", "9223372036854775808", "1 ", "x", "1e3"}

// TestToleratesWithComparisonOperatorsAgrees: with the
// TaintTolerationComparisonOperators gate on (taints.Options
// ComparisonOperators), taints.Tolerates agrees with v1.Toleration.ToleratesTaint
// with its comparison operators enabled, on values chosen to exercise Lt and
// Gt.
func TestToleratesWithComparisonOperatorsAgrees(t *testing.T) {
	var c counter
	rapid.Check(t, func(t *rapid.T) {
		tol := genToleration().Draw(t, "toleration")
		taint := genTaint().Draw(t, "taint")
		if rapid.Bool().Draw(t, "numeric") {
			tol.Operator = rapid.SampledFrom([]api.TolerationOperator{api.TolerationOpLt, api.TolerationOpGt}).Draw(t, "op")
			tol.Value = rapid.SampledFrom(numericValues).Draw(t, "tolValue")
			taint.Value = rapid.SampledFrom(numericValues).Draw(t, "taintValue")
			taint.Key, tol.Effect = tol.Key, ""
			if taint.Key == "" {
				taint.Key = "k"
			}
		}
		agreeOnTolerates(t, &c, tol, taint, true)
	})
	c.report(t, "tolerated", "not tolerated")
}
