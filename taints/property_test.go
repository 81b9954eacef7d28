package taints

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan/api"
)

// The generators draw from small pools so that keys, values and effects
// collide often and every matching rule is exercised, including the odd
// inputs validation would reject (unknown operators and effects,
// non-canonical numbers).
var (
	genKey = rapid.SampledFrom([]string{
		"", "a", "b", "example.com/a", api.TaintNodeNotReady, api.TaintNodeUnreachable, api.TaintNodeUnschedulable,
		api.TaintNodeDiskPressure, api.TaintNodeNetworkUnavailable,
	})
	genValue = rapid.SampledFrom([]string{
		"", "x", "y", "0", "1", "-1", "10", "-10", "9223372036854775807", "-9223372036854775808",
		"007", "+3", " 1", "1.5", "-", "-0",
	})
	genOperator = rapid.SampledFrom([]api.TolerationOperator{"", api.TolerationOpEqual, api.TolerationOpExists, api.TolerationOpExists, api.TolerationOpLt, api.TolerationOpGt, api.TolerationOpLt, api.TolerationOpGt, "In", "exists"})
	genEffect   = rapid.SampledFrom([]api.TaintEffect{"", api.TaintEffectNoSchedule, api.TaintEffectNoSchedule, api.TaintEffectPreferNoSchedule, api.TaintEffectNoExecute, api.TaintEffectNoExecute, "Custom"})
	genSeconds  = rapid.Ptr(rapid.Int64Range(-5, 600), true)

	genToleration = rapid.Custom(func(t *rapid.T) api.Toleration {
		return api.Toleration{
			Key:               genKey.Draw(t, "key"),
			Operator:          genOperator.Draw(t, "operator"),
			Value:             genValue.Draw(t, "value"),
			Effect:            genEffect.Draw(t, "effect"),
			TolerationSeconds: genSeconds.Draw(t, "seconds"),
		}
	})
	genTaint = rapid.Custom(func(t *rapid.T) api.Taint {
		return api.Taint{
			Key:    genKey.Draw(t, "key"),
			Value:  genValue.Draw(t, "value"),
			Effect: genEffect.Draw(t, "effect"),
		}
	})
	genTolerations = rapid.SliceOfN(genToleration, 0, 8)
	genOptions     = rapid.Custom(func(t *rapid.T) Options {
		// Mostly on: with the comparison operators off, Lt and Gt are inert.
		return Options{ComparisonOperators: rapid.IntRange(0, 3).Draw(t, "comparisonOperators") > 0}
	})
	genEffects = rapid.Custom(func(t *rapid.T) Effects {
		return Effects(rapid.Uint8Range(0, 15).Draw(t, "effectBits"))
	})
)

// drawTaints draws a node's taints. Half of them are aimed at one of tols
// (its key, and its value or a neighbouring number, and its effect) so that
// near misses and hits are common, not rare.
func drawTaints(t *rapid.T, tols []api.Toleration) []api.Taint {
	n := rapid.IntRange(0, 6).Draw(t, "taintCount")
	taints := make([]api.Taint, n)
	for i := range taints {
		taint := genTaint.Draw(t, "taint")
		if len(tols) > 0 && rapid.Bool().Draw(t, "aimed") {
			tol := tols[rapid.IntRange(0, len(tols)-1).Draw(t, "target")]
			if tol.Key != "" {
				taint.Key = tol.Key
			}
			if tol.Effect != "" && rapid.IntRange(0, 3).Draw(t, "sameEffect") > 0 {
				taint.Effect = tol.Effect
			}
			if v, ok := parseCanonicalInt(tol.Value); ok && v > -1000 && v < 1000 {
				taint.Value = strconv.FormatInt(v+int64(rapid.IntRange(-1, 1).Draw(t, "delta")), 10)
			} else if rapid.Bool().Draw(t, "sameValue") {
				taint.Value = tol.Value
			}
		}
		taints[i] = taint
	}
	return taints
}

// naiveTolerates is the reference: some toleration tolerates the taint.
func naiveTolerates(tols []api.Toleration, taint api.Taint, opts Options) bool {
	for _, tol := range tols {
		if Tolerates(tol, taint, opts) {
			return true
		}
	}
	return false
}

// TestPropAddingTolerationNeverUntolerates: a toleration added anywhere in
// the list never makes a tolerated taint untolerated, nor turns "nothing
// untolerated" into "something untolerated" (metamorphic).
func TestPropAddingTolerationNeverUntolerates(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tols := genTolerations.Draw(t, "tolerations")
		extra := genToleration.Draw(t, "extra")
		at := rapid.IntRange(0, len(tols)).Draw(t, "at")
		taints := drawTaints(t, append([]api.Toleration{extra}, tols...))
		effects := genEffects.Draw(t, "effects")
		opts := genOptions.Draw(t, "opts")

		more := append(append(append([]api.Toleration(nil), tols[:at]...), extra), tols[at:]...)
		before, after := NewSet(tols, opts), NewSet(more, opts)
		for _, taint := range taints {
			if before.Tolerates(taint) && !after.Tolerates(taint) {
				t.Fatalf("taint %v tolerated by %v but not after adding %v", taint, tols, extra)
			}
		}
		if _, found := before.FirstUntolerated(taints, effects); !found {
			if got, found := after.FirstUntolerated(taints, effects); found {
				t.Fatalf("adding %v made %v untolerated", extra, got)
			}
		}
	})
}

// TestPropMergeIdempotent: merging the defaults twice changes nothing more.
func TestPropMergeIdempotent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tols := genTolerations.Draw(t, "tolerations")
		hostNetwork := rapid.Bool().Draw(t, "hostNetwork")
		once := MergeDaemonDefaults(tols, hostNetwork)
		twice := MergeDaemonDefaults(once, hostNetwork)
		if diff := cmp.Diff(once, twice); diff != "" {
			t.Fatalf("Merge(Merge(x)) mismatch (-once +twice):\n%s", diff)
		}
	})
}

// TestPropMergeLeavesInputAlone: the input is unchanged, and changing the
// result (values or TolerationSeconds targets) does not reach the input.
func TestPropMergeLeavesInputAlone(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tols := genTolerations.Draw(t, "tolerations")
		hostNetwork := rapid.Bool().Draw(t, "hostNetwork")
		before := api.CloneTolerations(tols)
		out := MergeDaemonDefaults(tols, hostNetwork)
		if diff := cmp.Diff(before, tols); diff != "" {
			t.Fatalf("input changed by merge (-before +after):\n%s", diff)
		}
		for i := range out {
			out[i].Key += "!"
			if out[i].TolerationSeconds != nil {
				*out[i].TolerationSeconds += 1000
			}
		}
		if diff := cmp.Diff(before, tols); diff != "" {
			t.Fatalf("input changed through the result (-before +after):\n%s", diff)
		}
	})
}

// TestPropSetAgreesWithUncompiled: the compiled Set and the plain functions
// give the same answers (differential).
func TestPropSetAgreesWithUncompiled(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tols := genTolerations.Draw(t, "tolerations")
		taints := drawTaints(t, tols)
		effects := genEffects.Draw(t, "effects")
		opts := genOptions.Draw(t, "opts")
		set := NewSet(tols, opts)
		for _, taint := range taints {
			if got, want := set.Tolerates(taint), naiveTolerates(tols, taint, opts); got != want {
				t.Fatalf("Set.Tolerates(%v) = %v, uncompiled %v", taint, got, want)
			}
		}
		var got, want untolerated
		got.Taint, got.Found = set.FirstUntolerated(taints, effects)
		want.Taint, want.Found = FindUntolerated(taints, tols, effects, opts)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("FirstUntolerated mismatch (-uncompiled +compiled):\n%s", diff)
		}
	})
}

// TestPropFirstUntoleratedContract: a reported taint is in the input, has a
// selected effect and is untolerated, and every earlier selected taint is
// tolerated; when nothing is reported, every selected taint is tolerated.
// Checked against Tolerates directly, not against the Set.
func TestPropFirstUntoleratedContract(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tols := genTolerations.Draw(t, "tolerations")
		taints := drawTaints(t, tols)
		effects := genEffects.Draw(t, "effects")
		opts := genOptions.Draw(t, "opts")
		set := NewSet(tols, opts)
		got, found := set.FirstUntolerated(taints, effects)
		stop := len(taints)
		if found {
			stop = -1
			for i, taint := range taints {
				if taint == got {
					stop = i
					break
				}
			}
			if stop < 0 {
				t.Fatalf("reported taint %v is not in the input %v", got, taints)
			}
			if !effects.Has(got.Effect) {
				t.Fatalf("reported taint %v has an effect outside %v", got, effects)
			}
			if naiveTolerates(tols, got, opts) {
				t.Fatalf("reported taint %v is tolerated", got)
			}
		} else if (got != api.Taint{}) {
			t.Fatalf("nothing found but taint %v returned", got)
		}
		for _, taint := range taints[:stop] {
			if effects.Has(taint.Effect) && !naiveTolerates(tols, taint, opts) {
				t.Fatalf("taint %v is untolerated and comes before the reported one (found=%v)", taint, found)
			}
		}
	})
}
