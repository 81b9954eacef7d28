package taints

import (
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/internal/base/decimal"
)

// Options are the switches that change matching. The zero value is the
// Kubernetes default in every supported version (the gate is off).
type Options struct {
	// ComparisonOperators honours the Lt and Gt toleration operators, as
	// upstream does from v1.35 with the alpha TaintTolerationComparisonOperators
	// feature gate enabled. When false (the gate's default, and v1.34's only
	// behaviour) a toleration with Lt or Gt tolerates nothing.
	ComparisonOperators bool
}

// Tolerates reports whether t tolerates taint, following the numbered rules
// in the package documentation. TolerationSeconds plays no part.
func Tolerates(t api.Toleration, taint api.Taint, opts Options) bool {
	if t.Effect != "" && t.Effect != taint.Effect {
		return false
	}
	if t.Key != "" && t.Key != taint.Key {
		return false
	}
	switch t.Operator {
	case "", api.TolerationOpEqual:
		return t.Value == taint.Value
	case api.TolerationOpExists:
		return true
	case api.TolerationOpLt, api.TolerationOpGt:
		if !opts.ComparisonOperators {
			return false
		}
		want, ok := parseCanonicalInt(t.Value)
		if !ok {
			return false
		}
		got, ok := parseCanonicalInt(taint.Value)
		if !ok {
			return false
		}
		if t.Operator == api.TolerationOpLt {
			return got < want
		}
		return got > want
	}
	return false
}

// FindUntolerated is the uncompiled form of [Set.FirstUntolerated]: it returns
// the first taint, in the order given, whose effect is in effects and that no
// toleration in tols tolerates (upstream FindMatchingUntoleratedTaint with an
// effect filter). It reports false when every selected taint is tolerated.
//
// Callers that check many nodes against the same tolerations should compile
// them once with [NewSet] instead.
func FindUntolerated(taints []api.Taint, tols []api.Toleration, effects Effects, opts Options) (api.Taint, bool) {
	for _, taint := range taints {
		if !effects.Has(taint.Effect) {
			continue
		}
		tolerated := false
		for _, tol := range tols {
			if Tolerates(tol, taint, opts) {
				tolerated = true
				break
			}
		}
		if !tolerated {
			return taint, true
		}
	}
	return api.Taint{}, false
}

// parseCanonicalInt parses s as a base-10 int64 written in canonical form
// (canonicalDigits); values outside the int64 range are rejected too. It
// never allocates.
func parseCanonicalInt(s string) (int64, bool) {
	digits, neg, ok := decimal.Canonical(s)
	if !ok {
		return 0, false
	}
	return decimal.Magnitude(digits, neg)
}
