// Package whatif tells what an edit to a cluster would do before it is
// made: a changed DaemonSet spec, nodes with other labels or taints, nodes
// added or removed. [Diff] compares the cluster as it is with the cluster
// edited and reports, node by node, whether it gains a pod, loses its pod
// (and why), has it replaced by one of the new template, keeps an
// outdated one (OnDelete), or is unchanged; the counts; and how many
// rolling-update steps the change takes under the edited budgets.
//
// It owns no rule of its own: the outcome is what the planner decides, sync
// after sync, in package sim, from the edited state until nothing is left
// to do. It does no I/O and reads no clock; the simulated clock starts at
// the input's Now.
//
// Entry points: [Diff], [Report.Table] to render a report for people, and
// [Edit], the edited input Diff starts from (what the API server stores), for
// callers that simulate it themselves (package timeline).
package whatif
