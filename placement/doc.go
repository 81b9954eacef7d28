// Package placement decides where a DaemonSet's pods belong: node
// eligibility with reasons, the create/delete plan of one sync (upstream's
// manage), failed-pod backoff as data, and the status counters.
//
// It reads the snapshot types of package api. It does not own revision
// history (package revision), the rolling update (package rollout) or the
// whole sync (package daemonplan); it never does I/O, reads no clock and
// logs nothing.
//
// Entry points, in the order a sync uses them:
//
//   - [NewEligibility] / [Eligibility.Decide]: one node's [Decision] in
//     O(labels + taints), without allocating. Simulators that only ask
//     "would the daemon pod land here?" need nothing else.
//   - [Eligibility.Explain] (or [Compiled.Explain]): the same [Decision] with
//     every failing rule and its culprit (template nodeName, each
//     nodeSelector key, each affinity term, each untolerated taint) and
//     the taints only a default daemon toleration lets through
//     (docs/eligibility.md, E16). A slower path that allocates, for
//     telling people why; Decide does not collect reasons.
//   - [Compile]: the DaemonSet compiled once (selector, node predicate,
//     tolerations with the daemon defaults merged, template generation).
//   - [Compiled.Index]: nodes sorted by name with their decisions, pods
//     claimed ([Compiled.Claim]: adopted, released) and bucketed by target
//     node, oldest first ([OlderPod]). [Index.Reset] indexes the next
//     snapshot into the same [Index], reusing its memory; [Index.Forget]
//     drops a snapshot from an Index kept for later
//     ([github.com/daemonplan/daemonplan.Sync] keeps a pool of them).
//   - [Index.Buckets]: every node's bucket in name order, vanished nodes
//     included, for a pass over the snapshot (the rolling update);
//     [Bucket.Updated] says whether a pod is of the current template,
//     answered once per snapshot for the rolling update and the status.
//   - [Index.Manage]: the [ManagePlan] of creates and deletes (upstream: manage;
//     docs/manage.md, M6–M14), one node at a time by [Compiled.ManageNode];
//     [Index.Keep] lists the pods a plan leaves alone.
//   - [Index.Status]: the seven status counters (upstream:
//     updateDaemonSetStatus; docs/status.md).
//
// Manage and Status are single passes over nodes in name order. Indexing
// finds a pod's node through a hash table of node names that a reused
// [Index] keeps while the node names stay the same, and skips sorting when
// the nodes come in name order, as a list from the API server (or kubectl)
// does. Lists from an informer's lister come in map order: they are sorted
// by a radix sort on name prefixes (see BenchmarkSyncShuffled). The table,
// the sort, the pod list's check and the memory kept across Reset are the
// module's package internal/base/scratch: this package holds the rules.
//
// # Applying a ManagePlan
//
// A caller applies a [ManagePlan] in this order:
//
//  1. Adopt and Release: set or remove the controller owner reference of
//     the named pods (adoption must check that the DaemonSet still exists
//     with the same UID).
//  2. Create: one pod per entry, with the entry's labels, tolerations and
//     node affinity added to the DaemonSet's template. Upstream creates in
//     slow-start batches ([SlowStartBatches]) and stops at the first failing
//     batch.
//  3. Delete: the named pods, all at once.
//  4. Keep [Backoff] for the next plan, and plan again after RequeueAfter when
//     it is positive.
//
// Creates and deletes are capped at [Options.BurstReplicas] each (250).
//
// # Determinism
//
// Upstream visits nodes in informer order and some choices (which failed
// pod goes first, which creates fall beyond the burst) depend on it. This
// package visits nodes in name order and pods on a node oldest first
// (scheduled before unscheduled, then creation time, then name); every
// output list is sorted. Permuting the input changes nothing.
package placement
