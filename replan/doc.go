// Package replan plans a DaemonSet's next sync incrementally. A [Tracker]
// holds the cluster (the DaemonSet, its nodes and pods, its revisions, the
// clock and the failed-pod backoff), takes changes one at a time and
// returns, after any of them, the plan [github.com/daemonplan/daemonplan.Sync]
// returns on the same state, at a cost that follows the change, not the
// cluster.
//
// It owns the incremental bookkeeping only. Every rule comes from the
// packages a sync uses: placement decides nodes, claims pods and plans
// each node ([github.com/daemonplan/daemonplan/placement.Compiled.Decide],
// Claim, ManageNode), rollout resolves the budgets, revision constructs and
// cleans up the history. It does no I/O and reads no clock.
//
// # Entry points
//
//   - [New]: a [Tracker] holding one [github.com/daemonplan/daemonplan.Input],
//     built in about the time of one Sync.
//   - Changes: SetNode and DeleteNode, SetPod and DeletePod, SetDaemonSet,
//     SetRevisions, SetNow (time advanced), SetBackoff (the last plan's
//     backoff, once applied), SetExpectationsPending.
//   - Plan: the plan of the current state, without the two lists that name
//     every node and every pod (Plan.Nodes and Plan.Keep); FullPlan adds
//     them and equals daemonplan.Sync(Input(), opts) in every field.
//   - Input: the state held, as a Sync input.
//
// # How it stays cheap
//
// Manage, the status counters and the rolling update decide every node on
// its own; only the budgets and the burst limit look at all nodes, and
// only through counts and through the first nodes, in name order, of a
// kind. The [Tracker] keeps, for every node, its decision, its bucket of
// pods and a summary of what it contributes (creates, deletes, counters,
// its kind for each path of the rolling update), the totals of those
// summaries, and the nodes in name order in chunks that count each kind,
// so that "the first 250 nodes that get a create" skips every chunk
// without one.
//
// A node or pod change refreshes the one or two nodes it touches: O(pods
// on them + log n). Moving the clock forward refreshes the nodes whose
// pods become available by then (minReadySeconds) and the nodes holding
// failed pods (whose backoff windows read the clock). A new DaemonSet, a
// clock moving back, or revisions that change the current hash refresh
// every node: O(n), like a Sync.
//
// A few states that a sync handles without indexing the cluster, or that
// upstream treats as errors (a selector that selects everything, a DaemonSet being
// deleted, a selector that does not parse, a template without labels, an
// input [github.com/daemonplan/daemonplan.CheckInput] refuses, a DaemonSet
// without a UID), are planned by a whole Sync of Input, and so is every
// plan with Options.Progressive set: its budgets span update groups. Duplicate
// current revisions (a transient state) make every pod change rebuild the
// history, O(n).
//
// # Equivalence
//
// The package's property test applies random sequences of changes to a
// [Tracker] and to a plain [github.com/daemonplan/daemonplan.Input] kept beside
// it, and compares FullPlan with Sync after every change.
package replan
