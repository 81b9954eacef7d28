// Package timeline drives a rollout in package sim, sync by sync, until it
// converges or stalls, and records what happened: per sync the time, the
// creates and deletes, the status counts and the rolling update's budgets;
// per node the intervals of its pods' states (no pod, not ready, ready,
// failed, being deleted) with each pod's revision hash. A stall is named:
// which nodes hold the rollout, and why.
//
// It owns the driving loop and the rules of convergence and stall
// (docs/timeline.md); every decision is the planner's, through
// [github.com/daemonplan/daemonplan/sim.Cluster]. It does no I/O besides
// writing to the io.Writer it is given, and reads no clock: the simulated clock
// starts at the cluster's Now.
//
// Entry points:
//   - [Run] drives a [*github.com/daemonplan/daemonplan/sim.Cluster] and
//     returns its [*Timeline];
//   - [Failures] is a [github.com/daemonplan/daemonplan/sim.Cluster.FateOf]
//     that fails a share of new pods, decided by a seed and each pod's name;
//   - [Timeline.Summary] renders the outcome in one line, [Timeline.Check]
//     verifies the recording's invariants, and [WriteHTML] renders a
//     self-contained HTML/SVG picture of the rollout.
package timeline
