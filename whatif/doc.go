// Package whatif tells what an edit to a cluster would do before it is
// made: a changed DaemonSet spec, nodes with other labels or taints, nodes
// added or removed. [Diff] answers the question "what does the edit
// change?": it compares the cluster as it settles with the edit against
// the same cluster as it settles without it, and reports, node by node,
// whether it gains a pod, loses one (and why), ends with another pod (one
// of the new template), keeps its pod, keeps an outdated one (OnDelete),
// only has its decision changed, or is unchanged; the counts; and how
// many rolling-update steps the rollout with the edit takes. What the
// cluster does anyway, without the edit (a rollout under way, a node
// about to get its pod), is reported apart, against now.
//
// It owns no rule of its own: each outcome is what the planner decides,
// sync after sync, in package sim, from the state with and without the
// edit until nothing is left to do. It does no I/O and reads no clock; the
// simulated clock starts at the input's Now.
//
// Entry points: [Diff], [Report.Table] to render a report for people, and
// [Edit], the edited input Diff starts from (what the API server stores), for
// callers that simulate it themselves (package timeline).
package whatif
