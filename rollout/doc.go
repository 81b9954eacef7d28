// Package rollout replaces outdated daemon pods: the [RollingUpdate] strategy's
// budgets (maxUnavailable, maxSurge) and the pass that picks which old pods
// to delete and which nodes get a new pod (docs/rolling-update.md), and
// kubectl's rollout status message (docs/status.md, S11). OnDelete needs
// nothing here: outdated pods are never replaced for being outdated.
//
// Entry points:
//
//   - [ResolveBudgets]: maxUnavailable and maxSurge scaled to a node count.
//   - [RollingUpdate]: one pass over an indexed snapshot
//     ([github.com/daemonplan/daemonplan/placement.Index]), upstream's with the
//     zero [Progressive]; [RollingUpdateOf] is the same pass over any
//     [Nodes] (an index through [IndexNodes], or the Tracker's node list).
//   - [Classifier.Classify] and [Budgets.Quota]: the pass's decision table,
//     written once. Classify decides each node alone ([NodeView] in, [Class]
//     out); Quota turns the sums of a budget domain ([Tally]) into how many
//     candidates it takes, in node-name order. [RollingUpdate], every
//     progressive extension and the facade's sync (Sync, Planner and
//     Tracker) all go through these two.
//   - [AssembleStep]: the one assembly of an upstream pass from the classes
//     of a budget domain, read by kind ([PassSource]; [PassLists] is one
//     filled by a walk), forced writes first, candidates in name order,
//     cut to the burst limit.
//   - [StatusMessage]: what `kubectl rollout status` prints.
//   - [Progressive]: the opt-in progressive-delivery extensions (partition,
//     update scope, pause and freeze, strict budgets, surge with
//     unavailability, zone-by-zone order, canary with verdicts and
//     [AutoFail]). [Progressive.Validate] checks them, [RollingUpdate] runs the
//     step with them and reports a [Progress], [Progressive.Manage] applies
//     Freeze and PartitionedScaling to a manage plan, [Canary.RollbackTarget]
//     names the revision an aborted canary returns to.
//     docs/progressive-delivery.md states their rules.
//
// Upstream visits nodes in Go map order, so which pods a pass picks varies
// between runs; this package visits them in node-name order and is
// deterministic. The counts are the same.
//
// Most callers use [github.com/daemonplan/daemonplan.Sync], which runs a whole
// sync (history, manage, rolling update, cleanup, status) and returns one plan.
package rollout
