package api

import (
	"strconv"
	"strings"

	"github.com/daemonplan/daemonplan/field"
	"github.com/daemonplan/daemonplan/internal/base/decimal"
)

// TaintEffect is what a taint does to pods that do not tolerate it.
type TaintEffect string

// The taint effects. An empty effect on a toleration matches every effect.
const (
	TaintEffectNoSchedule       TaintEffect = "NoSchedule"
	TaintEffectPreferNoSchedule TaintEffect = "PreferNoSchedule"
	TaintEffectNoExecute        TaintEffect = "NoExecute"
)

// TolerationOperator is how a toleration compares its value with a taint's
// value.
type TolerationOperator string

// The toleration operators. The empty operator means Equal. Lt and Gt are
// honoured only when
// [github.com/daemonplan/daemonplan/taints.Options.ComparisonOperators] is set
// (upstream's TaintTolerationComparisonOperators gate, alpha since v1.35 and
// off by default), and accepted by validation only with
// [ValidateOptions.ComparisonOperators].
const (
	TolerationOpEqual  TolerationOperator = "Equal"
	TolerationOpExists TolerationOperator = "Exists"
	TolerationOpLt     TolerationOperator = "Lt"
	TolerationOpGt     TolerationOperator = "Gt"
)

// Taint is a node taint (corev1.Taint without the timeAdded bookkeeping).
type Taint struct {
	Key    string
	Value  string
	Effect TaintEffect
}

// Toleration is a pod toleration (corev1.Toleration). A nil TolerationSeconds
// means "tolerate forever"; matching ignores it.
type Toleration struct {
	Key               string
	Operator          TolerationOperator
	Value             string
	Effect            TaintEffect
	TolerationSeconds *int64
}

// Taint keys that the node lifecycle controller and the kubelet put on nodes,
// and that the default [DaemonSet] tolerations name.
const (
	TaintNodeNotReady           = "node.kubernetes.io/not-ready"
	TaintNodeUnreachable        = "node.kubernetes.io/unreachable"
	TaintNodeDiskPressure       = "node.kubernetes.io/disk-pressure"
	TaintNodeMemoryPressure     = "node.kubernetes.io/memory-pressure"
	TaintNodePIDPressure        = "node.kubernetes.io/pid-pressure"
	TaintNodeUnschedulable      = "node.kubernetes.io/unschedulable"
	TaintNodeNetworkUnavailable = "node.kubernetes.io/network-unavailable"
)

// DeepCopy returns t with its own copy of TolerationSeconds.
func (t Toleration) DeepCopy() Toleration {
	if t.TolerationSeconds != nil {
		v := *t.TolerationSeconds
		t.TolerationSeconds = &v
	}
	return t
}

// CloneTolerations returns a deep copy of tols; nil gives nil and empty
// gives empty.
func CloneTolerations(tols []Toleration) []Toleration {
	if tols == nil {
		return nil
	}
	out := make([]Toleration, len(tols))
	for i, t := range tols {
		out[i] = t.DeepCopy()
	}
	return out
}

// String renders the taint as kubectl does: "key=value:Effect", or
// "key:Effect" when the value is empty.
func (t Taint) String() string {
	if t.Value == "" {
		return t.Key + ":" + string(t.Effect)
	}
	return t.Key + "=" + t.Value + ":" + string(t.Effect)
}

// String renders the toleration in the style of kubectl describe:
// "key[=value][:Effect][ op=Operator][ for Ns]". The operator is shown
// unless it is "" or Equal; an empty key with Exists and no effect, which
// tolerates everything, renders as "op=Exists".
func (t Toleration) String() string {
	s := t.Key
	if t.Value != "" {
		s += "=" + t.Value
	}
	if t.Effect != "" {
		s += ":" + string(t.Effect)
	}
	if t.Operator != "" && t.Operator != TolerationOpEqual {
		if s != "" {
			s += " "
		}
		s += "op=" + string(t.Operator)
	}
	if t.TolerationSeconds != nil {
		s += " for " + strconv.FormatInt(*t.TolerationSeconds, 10) + "s"
	}
	return s
}

// ValidateTolerations checks tols as the API server checks a pod's
// tolerations (upstream core validation ValidateTolerations) and returns every
// problem found. Paths are relative to the list ("[0].key", "[1].effect");
// callers place them with ErrorList.Prefix, e.g. below
// "spec.template.spec.tolerations". For each toleration, in this order:
//
//  1. A non-empty Key must be a qualified name (a label key): Invalid at
//     ".key", one error per problem.
//  2. An empty Key requires operator Exists: Invalid at ".operator", bad
//     value the operator.
//  3. TolerationSeconds requires effect NoExecute: Invalid at ".effect", bad
//     value the effect.
//  4. With operator "" or Equal the Value must be a valid label value:
//     Invalid at ".operator", bad value the value.
//     With operator Exists the Value must be empty: Invalid at ".operator",
//     bad value the whole toleration.
//     With operator Lt or Gt and opts.ComparisonOperators (the
//     TaintTolerationComparisonOperators gate) the Value must be a decimal
//     integer in canonical form ("0", "42", "-7"; no sign on zero, no
//     leading zero), and within int64: Invalid at ".value", once per
//     problem, as upstream words them. Without the gate Lt and Gt are
//     NotSupported at ".operator", supported values Equal, Exists, Lt and
//     Gt (as from v1.35; v1.34 listed Equal and Exists).
//     Any other operator is NotSupported at ".operator", supported values
//     Equal and Exists.
//  5. A non-empty Effect must be NoSchedule, PreferNoSchedule or NoExecute:
//     NotSupported at ".effect".
//
// Validation does not change or default tols.
func ValidateTolerations(tols []Toleration, opts ValidateOptions) field.ErrorList {
	var errs field.ErrorList
	var root *field.Path // nil: paths start at the index
	for i, t := range tols {
		p := root.Index(i)
		if t.Key != "" {
			errs = append(errs, field.InvalidEach(p.Child("key"), t.Key, ValidateLabelKey(t.Key))...)
		}
		if t.Key == "" && t.Operator != TolerationOpExists {
			errs = append(errs, field.Invalid(p.Child("operator"), string(t.Operator),
				"an empty key matches every taint key and requires operator Exists"))
		}
		if t.TolerationSeconds != nil && t.Effect != TaintEffectNoExecute {
			errs = append(errs, field.Invalid(p.Child("effect"), string(t.Effect),
				"tolerationSeconds may only be set with effect NoExecute"))
		}
		switch t.Operator {
		case "", TolerationOpEqual:
			if msgs := ValidateLabelValue(t.Value); len(msgs) > 0 {
				errs = append(errs, field.Invalid(p.Child("operator"), t.Value, strings.Join(msgs, "; ")))
			}
		case TolerationOpExists:
			if t.Value != "" {
				errs = append(errs, field.Invalid(p.Child("operator"), t.DeepCopy(),
					"operator Exists matches any value, so value must be empty"))
			}
		case TolerationOpLt, TolerationOpGt:
			if !opts.ComparisonOperators {
				errs = append(errs, field.NotSupported(p.Child("operator"), string(t.Operator),
					string(TolerationOpEqual), string(TolerationOpExists), string(TolerationOpLt), string(TolerationOpGt)))
				break
			}
			if msg := decimalIntegerProblem(t.Value); msg != "" {
				errs = append(errs, field.Invalid(p.Child("value"), t.Value, msg))
			}
			if _, err := strconv.ParseInt(t.Value, 10, 64); err != nil {
				errs = append(errs, field.Invalid(p.Child("value"), t.Value, err.Error()))
			}
		default:
			errs = append(errs, field.NotSupported(p.Child("operator"), string(t.Operator),
				string(TolerationOpEqual), string(TolerationOpExists)))
		}
		if t.Effect != "" && !knownEffect(t.Effect) {
			errs = append(errs, field.NotSupported(p.Child("effect"), string(t.Effect),
				string(TaintEffectNoSchedule), string(TaintEffectPreferNoSchedule), string(TaintEffectNoExecute)))
		}
	}
	return errs
}

// decimalIntegerProblem is what is wrong with s as a decimal integer in
// canonical form (decimal.Canonical), in apimachinery's words
// (content.IsDecimalInteger), or "" when nothing is.
func decimalIntegerProblem(s string) string {
	if s == "" {
		return "must be non-empty"
	}
	if _, _, ok := decimal.Canonical(s); !ok {
		return "must be a valid decimal integer in canonical form"
	}
	return ""
}

// knownEffect says whether e is one of the three taint effects.
func knownEffect(e TaintEffect) bool {
	switch e {
	case TaintEffectNoSchedule, TaintEffectPreferNoSchedule, TaintEffectNoExecute:
		return true
	}
	return false
}
