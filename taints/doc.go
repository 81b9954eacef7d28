// Package taints decides whether a daemon pod's tolerations tolerate a node's
// taints, the way the Kubernetes DaemonSet controller (v1.34 to v1.37) does, and owns
// the default tolerations the controller adds to every daemon pod.
//
// It owns: toleration matching (k8s.io/api Toleration.ToleratesTaint), the
// search for the first untolerated taint (component-helpers
// FindMatchingUntoleratedTaint), the daemon default tolerations and how they
// are merged into a pod's own (AddOrUpdateDaemonPodTolerations). The types
// ([github.com/daemonplan/daemonplan/api.Taint],
// [github.com/daemonplan/daemonplan/api.Toleration]), the well-known taint keys
// and toleration validation
// ([github.com/daemonplan/daemonplan/api.ValidateTolerations]) belong to
// package api. It does not decide whether a pod should run on a node: that
// combines the taint check with the node name and node affinity, and belongs to
// the caller, which passes [ScheduleBlocking] for shouldRun and
// [ExecuteBlocking] for shouldContinueRunning. Node conditions,
// spec.unschedulable and eviction timing are not looked at; only taints matter.
//
// # Matching
//
// A toleration tolerates a taint when all of these hold:
//
//  1. Effect: an empty toleration effect matches every taint effect;
//     otherwise the effects must be equal. The default not-ready and
//     unreachable tolerations are NoExecute only, so they do not tolerate a
//     not-ready:NoSchedule taint.
//  2. Key: an empty toleration key matches every taint key; otherwise the
//     keys must be equal.
//  3. Operator: "" and Equal need equal values (an empty value equals an
//     empty value); Exists matches any value; Lt and Gt are described below;
//     any other operator matches nothing.
//  4. TolerationSeconds plays no part: a NoExecute taint tolerated for a
//     limited time counts as tolerated.
//
// A taint is tolerated when any toleration tolerates it. FirstUntolerated
// looks at the taints in node order, skips those whose effect is not selected
// by the [Effects] argument, and returns the first untolerated one
// (IndexUntolerated, its position in the node's taints).
// PreferNoSchedule taints never affect DaemonSet eligibility, and neither
// [ScheduleBlocking] nor [ExecuteBlocking] selects them.
//
// # Lt and Gt
//
// Upstream added the Lt and Gt operators in v1.35 behind the alpha feature
// gate TaintTolerationComparisonOperators, off by default. Here they are
// honoured only when [Options.ComparisonOperators] is set; otherwise (the
// default behaviour, and the zero [Options]) a Lt or Gt toleration tolerates
// nothing. When honoured, both the toleration value and the taint value must be
// decimal integers in canonical form: "0", or an optional '-' then a digit
// 1-9 and more digits, within the int64 range. Leading zeros, '+', spaces,
// "-0", fractions and empty strings never match. Lt tolerates when the taint
// value is strictly less than the toleration value, Gt when it is strictly
// greater. [github.com/daemonplan/daemonplan/api.ValidateTolerations] rejects
// Lt and Gt unless
// [github.com/daemonplan/daemonplan/api.ValidateOptions.ComparisonOperators] is
// set, as the API server does with the gate off and on.
//
// # Default tolerations
//
// [DaemonDefaults] and [MergeDaemonDefaults] add these, in this order, all with
// operator Exists, no value and no tolerationSeconds:
//
//	#  key                                     effect      when
//	1  node.kubernetes.io/not-ready            NoExecute   always
//	2  node.kubernetes.io/unreachable          NoExecute   always
//	3  node.kubernetes.io/disk-pressure        NoSchedule  always
//	4  node.kubernetes.io/memory-pressure      NoSchedule  always
//	5  node.kubernetes.io/pid-pressure         NoSchedule  always
//	6  node.kubernetes.io/unschedulable        NoSchedule  always
//	7  node.kubernetes.io/network-unavailable  NoSchedule  hostNetwork only
//
// A pod toleration with the same key, operator, value and effect as a
// default is replaced by it, losing its tolerationSeconds; see
// [MergeDaemonDefaults].
//
// # Entry points
//
//   - [Tolerates]: one toleration against one taint.
//   - [NewSet], [Set.Tolerates], [Set.FirstUntolerated],
//     [Set.IndexUntolerated], [Set.Tolerations]: compile a pod's tolerations
//     once, then check many nodes without allocating, in time linear in the
//     taints whatever the keys and values (one map lookup and one binary search
//     per taint).
//   - [FindUntolerated]: the same search without compiling.
//   - [EffectsOf], [ScheduleBlocking], [ExecuteBlocking], [AllEffects]: which
//     taints to check.
//   - [DaemonDefaults], [MergeDaemonDefaults]: the controller's default
//     tolerations.
//
// All functions are pure: they never change their inputs and keep no
// reference to them.
package taints
