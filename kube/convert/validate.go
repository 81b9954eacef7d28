package convert

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
)

// ValidateObjects reports what the API server would reject in the enums
// of nodes and pods a sync reads, as it rejects a DaemonSet's: a typo
// would otherwise decide placement silently (a taint effect "NoSchedul" is
// no taint the scheduler knows, so every pod lands). Paths are rooted at
// the lists, "nodes[3].spec.taints[0].effect",
// "pods[1].spec.tolerations[0].operator"; no object is changed.
//
//  1. A node's taints are checked as upstream's node validation checks
//     them: a key that is not a qualified name, a value that is not a label
//     value, an effect missing (Required) or not NoSchedule,
//     PreferNoSchedule or NoExecute (NotSupported), and the same key and
//     effect twice (Duplicate).
//  2. A pod whose toleration operator or effect, or whose required node
//     affinity's operator, is not one the API server knows is checked in
//     full (api.ValidateTolerations, api.ValidateNodeSelector), so that the
//     typo comes with every other problem of those fields. Other pods are
//     not: the API server checked them when they were written, and a sync
//     over 100,000 pods should not pay for checking them again.
//
// Nil elements are skipped. Without a finding ValidateObjects allocates
// nothing.
func ValidateObjects(nodes []*corev1.Node, pods []*corev1.Pod, opts api.ValidateOptions) field.ErrorList {
	var errs field.ErrorList
	for i, n := range nodes {
		if n == nil || len(n.Spec.Taints) == 0 {
			continue
		}
		if e := validateTaints(n.Spec.Taints); len(e) > 0 {
			errs = append(errs, e.Prefix(fmt.Sprintf("nodes[%d].spec.taints", i))...)
		}
	}
	for i, p := range pods {
		if p == nil || !unknownEnum(&p.Spec, opts) {
			continue
		}
		at := fmt.Sprintf("pods[%d].spec", i)
		errs = append(errs, api.ValidateTolerations(tolerations(p.Spec.Tolerations), opts).Prefix(at+".tolerations")...)
		errs = append(errs, api.ValidateNodeSelector(requiredNodeAffinity(p.Spec.Affinity)).
			Prefix(at+".affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution")...)
	}
	return errs
}

// unknownEnum reports a toleration operator or effect, or a required node
// affinity operator, the API server does not know.
func unknownEnum(s *corev1.PodSpec, opts api.ValidateOptions) bool {
	for _, t := range s.Tolerations {
		switch t.Operator {
		case "", corev1.TolerationOpEqual, corev1.TolerationOpExists:
		case corev1.TolerationOpLt, corev1.TolerationOpGt:
			if !opts.ComparisonOperators {
				return true
			}
		default:
			return true
		}
		switch t.Effect {
		case "", corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		default:
			return true
		}
	}
	a := s.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return false
	}
	for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, e := range term.MatchExpressions {
			switch e.Operator {
			case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn, corev1.NodeSelectorOpExists,
				corev1.NodeSelectorOpDoesNotExist, corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
			default:
				return true
			}
		}
		for _, f := range term.MatchFields {
			if f.Operator != corev1.NodeSelectorOpIn && f.Operator != corev1.NodeSelectorOpNotIn {
				return true
			}
		}
	}
	return false
}

// validateTaints checks a node's taints, with paths relative to the list.
func validateTaints(taints []corev1.Taint) field.ErrorList {
	var errs field.ErrorList
	type keyEffect struct{ key, effect string }
	seen := map[keyEffect]bool{}
	var root *field.Path
	for i, t := range taints {
		p := root.Index(i)
		errs = append(errs, field.InvalidEach(p.Child("key"), t.Key, api.ValidateLabelKey(t.Key))...)
		if msgs := api.ValidateLabelValue(t.Value); len(msgs) > 0 {
			errs = append(errs, field.Invalid(p.Child("value"), t.Value, strings.Join(msgs, "; ")))
		}
		switch t.Effect {
		case "":
			errs = append(errs, field.Required(p.Child("effect"), ""))
		case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		default:
			errs = append(errs, field.NotSupported(p.Child("effect"), string(t.Effect),
				string(corev1.TaintEffectNoSchedule), string(corev1.TaintEffectPreferNoSchedule), string(corev1.TaintEffectNoExecute)))
		}
		k := keyEffect{t.Key, string(t.Effect)}
		if seen[k] {
			e := field.Duplicate(p, t.Key)
			e.Detail = "taints must be unique by key and effect pair"
			errs = append(errs, e)
		}
		seen[k] = true
	}
	return errs
}
