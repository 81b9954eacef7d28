// Package revision decides what the DaemonSet controller does with its
// ControllerRevisions, and what kubectl's rollout undo and rollout history
// do with them (docs/history.md). It does no I/O: it reads snapshots and
// returns plans.
//
// # What it owns
//
// A revision is a DaemonSet pod template stored as bytes ([Revision.Data])
// plus a number. The package decides which revision holds the current
// template (byte equality with [TemplateData], never the hash), names new
// revisions ("<daemonset>-<hash>", the hash taking the collision count into
// account), adopts, releases, labels, renumbers and de-duplicates revisions,
// picks the old revisions to garbage-collect, and answers rollbacks.
//
// It does not own pods beyond relabelling them during de-duplication, nor
// the DaemonSet object: it never changes the template or the status itself,
// it says what to write. It does not claim pods (the caller passes the
// DaemonSet's claimed pods) and does not reproduce upstream's exact hash,
// which depends on a dump of Kubernetes API structs: the kube module plugs
// it in through [Options.Hash] and fills
// [github.com/daemonplan/daemonplan/api.DaemonSet.TemplateData] with the exact
// bytes upstream stores.
//
// # Entry points
//
//   - [Construct]: the revision plan of one sync (upstream constructHistory).
//   - [Cleanup]: old revisions to delete at the end of the sync
//     (upstream cleanupHistory).
//   - [Rollback]: what `kubectl rollout undo` does, as a typed outcome.
//   - [HistoryTable]: what `kubectl rollout history` prints.
//   - [TemplateData], [DefaultHash], [SafeEncode]: the content and naming
//     primitives, for callers that supply their own [HashFunc].
//
// # How a caller persists revisions
//
// One sync, in upstream's order:
//
//  1. Call [Construct] with the DaemonSet, every ControllerRevision of its
//     namespace and its claimed pods.
//  2. Patch each revision in [History.Adopt] to add the DaemonSet as
//     controller owner reference, and each in [History.Release] to remove it.
//  3. Update each revision of [History.Update] to the state given (labels and
//     revision number), then create [History.Create].
//  4. Set the hash label of each pod of [History.RelabelPods], then delete
//     [History.DeleteDuplicates] (a name can be both updated and deleted), as
//     upstream's de-duplication relabels pods before it deletes.
//  5. If [History.CollisionCount] differs from status.collisionCount, write
//     it into the status. If [Construct] returned an error, stop the sync
//     here and return the error (upstream wraps it as "failed to construct
//     revisions of DaemonSet: ..."): the next sync retries with the new
//     count.
//  6. Label new pods with [History.Hash]
//     ([github.com/daemonplan/daemonplan/api.LabelRevisionHash]); a pod
//     carrying it is up to date.
//  7. At the end of the sync, delete the revisions named by
//     Cleanup(ds, [History.Old], pods), pods including the terminal ones
//     being deleted.
//
// A rollback is two steps: [Rollback] returns the Data of the chosen revision;
// the caller stores it as the DaemonSet's template ([TemplateData]). The next
// [Construct] then finds that revision current and renumbers it above every
// other.
//
// # Determinism
//
// Every output is sorted by name and independent of the order of the
// inputs. Where upstream picks by list order (which duplicate current
// revision to keep, which of several revisions with the same number to roll
// back to or to show), this package picks by name, as each function states.
// Inputs are never changed, and every returned [Revision] is a deep copy.
package revision
