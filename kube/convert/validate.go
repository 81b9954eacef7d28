package convert

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
)

// ValidateObjects reports what the API server would reject in the fields
// of nodes and pods a sync reads, as it rejects a DaemonSet's: a typo in
// an enum would otherwise decide placement silently (a taint effect
// "NoSchedul" is no taint the scheduler knows, so every pod lands).
// Paths are rooted at the lists, "nodes[3].spec.taints[0].effect",
// "pods[1].spec.tolerations[0].operator"; no object is changed.
//
//  1. A node's taints, as upstream's node validation checks them: a key
//     that is not a qualified name, a value that is not a label value, an
//     effect missing (Required) or not NoSchedule, PreferNoSchedule or
//     NoExecute (NotSupported), and the same key and effect twice
//     (Duplicate).
//  2. A pod's tolerations (api.ValidateTolerations) and required node
//     affinity (api.ValidateNodeSelector): operators and effects.
//
// Nil elements are skipped.
func ValidateObjects(nodes []*corev1.Node, pods []*corev1.Pod, opts api.ValidateOptions) field.ErrorList {
	var errs field.ErrorList
	for i, n := range nodes {
		if n == nil {
			continue
		}
		errs = append(errs, validateTaints(n.Spec.Taints).Prefix(fmt.Sprintf("nodes[%d].spec.taints", i))...)
	}
	for i, p := range pods {
		if p == nil {
			continue
		}
		at := fmt.Sprintf("pods[%d].spec", i)
		errs = append(errs, api.ValidateTolerations(tolerations(p.Spec.Tolerations), opts).Prefix(at+".tolerations")...)
		errs = append(errs, api.ValidateNodeSelector(requiredNodeAffinity(p.Spec.Affinity)).
			Prefix(at+".affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution")...)
	}
	return errs
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
