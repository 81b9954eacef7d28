package taints

import (
	"strconv"
	"strings"

	"github.com/daemonplan/daemonplan/field"
	"github.com/daemonplan/daemonplan/selector"
)

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
func ValidateTolerations(tols []Toleration, opts Options) field.ErrorList {
	var errs field.ErrorList
	var root *field.Path // nil: paths start at the index
	for i, t := range tols {
		p := root.Index(i)
		if t.Key != "" {
			for _, msg := range selector.ValidateLabelKey(t.Key) {
				errs = append(errs, field.Invalid(p.Child("key"), t.Key, msg))
			}
		}
		if t.Key == "" && t.Operator != Exists {
			errs = append(errs, field.Invalid(p.Child("operator"), string(t.Operator),
				"an empty key matches every taint key and requires operator Exists"))
		}
		if t.TolerationSeconds != nil && t.Effect != NoExecute {
			errs = append(errs, field.Invalid(p.Child("effect"), string(t.Effect),
				"tolerationSeconds may only be set with effect NoExecute"))
		}
		switch t.Operator {
		case "", Equal:
			if msgs := selector.ValidateLabelValue(t.Value); len(msgs) > 0 {
				errs = append(errs, field.Invalid(p.Child("operator"), t.Value, strings.Join(msgs, "; ")))
			}
		case Exists:
			if t.Value != "" {
				errs = append(errs, field.Invalid(p.Child("operator"), t.DeepCopy(),
					"operator Exists matches any value, so value must be empty"))
			}
		case Lt, Gt:
			if !opts.ComparisonOperators {
				errs = append(errs, field.NotSupported(p.Child("operator"), string(t.Operator),
					string(Equal), string(Exists), string(Lt), string(Gt)))
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
				string(Equal), string(Exists)))
		}
		if t.Effect != "" && effectBit(t.Effect) == bitOther {
			errs = append(errs, field.NotSupported(p.Child("effect"), string(t.Effect),
				string(NoSchedule), string(PreferNoSchedule), string(NoExecute)))
		}
	}
	return errs
}

// decimalIntegerProblem is what is wrong with s as a decimal integer in
// canonical form (canonicalDigits), in apimachinery's words
// (content.IsDecimalInteger), or "" when nothing is.
func decimalIntegerProblem(s string) string {
	if s == "" {
		return "must be non-empty"
	}
	if _, _, ok := canonicalDigits(s); !ok {
		return "must be a valid decimal integer in canonical form"
	}
	return ""
}
