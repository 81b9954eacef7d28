// Package daemonplan decides what the Kubernetes DaemonSet controller
// decides, without an API server. [Sync] is the entry point: give it one
// DaemonSet, the nodes, the pods and revisions of its namespace and the time
// "now"; it returns a [Plan] of every write the controller would issue and a
// decision, with its reason, for every node. It does no I/O, reads no clock,
// logs nothing and starts no goroutines: the caller applies the plan.
//
// # Input, Options and Plan
//
// [Input] holds the snapshots (types of package api) and the state a caller
// carries between syncs: the failed-pod backoff and whether earlier writes
// are still pending. [Options] holds the switches; the zero value plans
// exactly as the upstream controller. [Plan] holds the writes, each list
// sorted and documented field by field, the new status, what `kubectl
// rollout status` would print, validation warnings and the errors
// upstream's sync would return.
//
// # Bad input
//
// [Sync] refuses an input that lists an object twice, or names one with
// invalid UTF-8 ([CheckInput], [ErrInvalidInput]), whatever the options;
// ownership never matches an empty UID. [CheckPlan] recounts from the input
// what a plan may touch, each violation a [Violation] naming its rule; a
// caller may run it before applying a plan, and the test kit plantest
// builds its checkers on it. See docs/never-harm.md.
//
// # Applying a plan
//
// Apply a [Plan] in the order upstream issues its writes:
//
//  1. revisions: adopt and release, update, create; then (with duplicate
//     revisions) adopt and release pods, Relabel pods and delete
//     Revisions.DeleteDuplicates;
//  2. pods: adopt and release (unless step 1 did), then create (in slow-start batches if you
//     like, [github.com/daemonplan/daemonplan/placement.SlowStartBatches]) and
//     delete;
//  3. Revisions.Delete (history cleanup);
//  4. the status, when StatusChanged.
//
// Keep [Plan.Backoff] for the next [Input], and sync again after RequeueAfter
// when it is positive.
//
// # Planning again and again
//
// A [Planner] returns [Sync]'s plans and keeps its memory from one sync to the
// next, so that a controller's steady state allocates in proportion to the
// writes of a plan, not to the size of the cluster; the per-node lists of
// its plans (Nodes, Keep) are valid until its next sync.
//
// A [Tracker] ([NewTracker]) holds one DaemonSet's cluster and takes
// changes one at a time (SetNode, DeleteNode, SetPod, DeletePod,
// SetDaemonSet, SetStatus, SetRevisions, SetNow, SetBackoff,
// SetExpectationsPending); after any of them its Plan is Sync's plan of the
// same state, at a cost that follows the change, not the cluster
// (docs/incremental.md).
//
// # One summary per node, one fold
//
// Sync, Planner and Tracker plan alike because they share the computation:
// each node is summarized once (its part of manage, of the status counters
// and its rolling-update class: placement.Compiled.ManageNode and
// CountNode, rollout.Classifier.Classify), and one fold, in the sync's step
// order, turns the summaries into the plan through manage's assembly
// (placement.Compiled.AssembleManage) and the rolling update's
// (rollout.AssembleStep), which read "the first n nodes of a kind, in name
// order". Sync and Planner walk an index once to feed it; the Tracker keeps
// every node's summary between changes and reads its node list by kind.
//
// # Where the pieces live
//
//   - api: the snapshot types (selectors, taints and tolerations included),
//     API defaulting and validation, DeepCopy; it imports no other package
//     of daemonplan but field, resource and an internal digit parser;
//   - field: validation errors with Kubernetes field paths;
//   - resource: exact quantities, resource lists and a pod's effective
//     requests;
//   - selector, taints: matching label and node selectors, and tolerations
//     against taints;
//   - placement: node eligibility, the manage pass (creates and deletes),
//     failed-pod backoff, status counters;
//   - revision: revision identity, history, cleanup, rollback;
//   - rollout: RollingUpdate budgets and steps, the rollout status text, and
//     the opt-in progressive-delivery extensions ([Options.Progressive],
//     docs/progressive-delivery.md);
//   - overhead: which DaemonSets put a pod on a given node, real or
//     hypothetical, what those pods request, and whether each fits;
//   - sim: an in-memory cluster that applies plans, for demos and tests;
//   - plantest: generators, invariant checkers and a checked rollout
//     driver for property tests of plans, yours included (the only
//     package that imports a module outside the standard library, rapid);
//   - whatif: what an edit to a cluster would do, node by node;
//   - timeline: a rollout driven in sim to convergence or a named stall,
//     node by node over time, and drawn as one HTML page.
//
// The kube module (github.com/daemonplan/daemonplan/kube) converts
// Kubernetes API objects in and out, computes upstream's exact revision
// hash, and holds the daemonplan CLI.
//
// # Conventions
//
// Inputs are never changed. Lists a caller builds are slices of values
// ([]api.Pod); views into a snapshot that the planner hands back are slices
// of pointers to the caller's elements ([]*api.Pod), never copies. Where
// upstream picks nodes or pods in Go map order, daemonplan picks in node-name
// order and says so; output never depends on input order.
package daemonplan
