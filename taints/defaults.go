package taints

import "github.com/daemonplan/daemonplan/api"

// DaemonDefaults returns, in a fresh slice, the tolerations the DaemonSet
// controller adds to every daemon pod (upstream
// util.AddOrUpdateDaemonPodTolerations), in upstream order:
//
//	not-ready:NoExecute, unreachable:NoExecute, disk-pressure:NoSchedule,
//	memory-pressure:NoSchedule, pid-pressure:NoSchedule,
//	unschedulable:NoSchedule, and network-unavailable:NoSchedule only when
//	hostNetwork is true.
//
// All use operator Exists, no value and no TolerationSeconds (tolerate
// forever).
func DaemonDefaults(hostNetwork bool) []api.Toleration {
	out := make([]api.Toleration, 0, 7)
	out = append(out,
		api.Toleration{Key: api.TaintNodeNotReady, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute},
		api.Toleration{Key: api.TaintNodeUnreachable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute},
		api.Toleration{Key: api.TaintNodeDiskPressure, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
		api.Toleration{Key: api.TaintNodeMemoryPressure, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
		api.Toleration{Key: api.TaintNodePIDPressure, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
		api.Toleration{Key: api.TaintNodeUnschedulable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
	)
	if hostNetwork {
		out = append(out, api.Toleration{Key: api.TaintNodeNetworkUnavailable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule})
	}
	return out
}

// MergeDaemonDefaults returns tols with the DaemonDefaults(hostNetwork) merged
// in, as the DaemonSet controller does to the pod it simulates and to the pods
// it creates (upstream AddOrUpdateTolerationInPodSpec, applied once per
// default, in order). For each default:
//
//  1. An existing toleration has the same identity as the default when its
//     Key, Operator, Value and Effect are equal to the default's, compared as
//     written: operator "" is not the same as "Equal". TolerationSeconds is
//     not part of the identity.
//  2. Every existing toleration with that identity is replaced, in place, by
//     the default. Its TolerationSeconds is therefore dropped: a user
//     toleration {not-ready, Exists, NoExecute, tolerationSeconds: 300}
//     becomes "tolerate forever" in daemon pods.
//  3. If none had that identity, the default is appended.
//
// Tolerations that match no default keep their order and values. The result
// is a new slice that shares no TolerationSeconds pointer with tols; tols is
// not changed. Merging twice gives the same result as merging once.
func MergeDaemonDefaults(tols []api.Toleration, hostNetwork bool) []api.Toleration {
	defaults := DaemonDefaults(hostNetwork)
	out := make([]api.Toleration, len(tols), len(tols)+len(defaults))
	for i, t := range tols {
		out[i] = t.DeepCopy()
	}
	for _, d := range defaults {
		replaced := false
		for i := range out {
			if sameIdentity(out[i], d) {
				out[i] = d
				replaced = true
			}
		}
		if !replaced {
			out = append(out, d)
		}
	}
	return out
}

// sameIdentity reports whether a and b are the same toleration for merging:
// equal key, operator, value and effect (upstream Toleration.MatchToleration).
func sameIdentity(a, b api.Toleration) bool {
	return a.Key == b.Key && a.Operator == b.Operator && a.Value == b.Value && a.Effect == b.Effect
}
