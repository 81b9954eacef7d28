// Package apply issues one daemonplan plan through a client-go
// kubernetes.Interface, as the upstream DaemonSet controller issues its
// writes.
//
// Apply is the entry point: give it the snapshot a plan was made from (a
// load.Snapshot, e.g. from informers' listers) and the plan. It writes in
// upstream's order (revisions, adopt and release patches, creates in
// slow-start batches, deletes, the status), reports every write with its
// error in Result, and never issues a write the plan does not hold, one
// naming an object the snapshot lacks, a delete, relabel or update of a
// pod or revision the DaemonSet neither controls in the snapshot nor
// adopts in the same Apply (ErrNotOwned), a create the snapshot does
// not justify: on a node it lacks, one the DaemonSet should not run on
// (ErrShouldNotRun), or one that already runs the DaemonSet's live pod,
// two with surge (ErrNodeHasPod), or a pod delete whose reason does not
// hold for the snapshot's nodes and pod, or, after a conflict, for the pod
// read again (ErrUnjustifiedDelete). ApplyWith checks creates and deletes with
// the plan's placement options. The error of every write not issued
// matches ErrNotIssued. ApplyObjects checks against a Lookup instead of a
// snapshot (a controller's indexed informer caches: Apply then costs the
// plan's writes, not the cluster) and takes a function that computes the
// status again after the other writes, as upstream's sync does.
//
// Objects change between the snapshot and the writes. Deletes, relabels
// and revision updates carry the object's UID and the resourceVersion at
// which the DaemonSet was seen to control it (the relabel patch as
// metadata.uid and metadata.resourceVersion); on a conflict Apply reads
// the object again and writes it once more only if the DaemonSet still
// controls it and selects it, so that a pod or revision another
// controller took over, or another object that took the name, is never
// written (docs/never-harm.md, N10). Where upstream's
// sync returns on an error it stops too: a DaemonSet gone or replaced
// before the first adoption (ErrCannotAdopt), a failed adopt or release
// patch, a failed revision write or pod relabel (everything after it), a
// failed slow-start batch of creates (the rest of the creates), a failed
// pod create or delete (the history cleanup; the status is still written).
//
// What it does not do: decide anything (package kubesync does) or retry
// (sync again). Expectations keeps the pods a Result created and deleted
// until the controller's informers show them; the controller passes
// Expectations.Pending (or PendingFor, which looks up only the expected
// pods) as kubesync.State.ExpectationsPending, as
// kube/examples/controller does. RecordEvents records the Events upstream
// records for a sync (SuccessfulCreate, FailedDaemonPod, ...), from the
// plan and what Apply did: here, next to the writes, because the messages
// need their outcomes (the names the API server gave, the errors, a pod
// already gone), and so that every caller of Apply records the same.
//
// Five departures from upstream, each making a write safer: pod and
// revision deletes carry the object's UID and resourceVersion as
// preconditions (upstream deletes by name), relabels and revision updates
// are held to them too, creates are checked against the snapshot, and pod
// deletes against the snapshot and the pod read again (one more read per
// delete than upstream); a
// revision adopted and then renumbered in the same
// plan is updated from the object the adopt patch returned (upstream
// updates its stale copy, which a real API server refuses with a
// conflict); creates refused with a NamespaceTerminating cause are
// reported like any other error (upstream ignores them); a revision create
// refused as AlreadyExists counts as done only when the revision found has
// the planned data and is controlled by the DaemonSet (upstream's snapshot
// checks the data only), so that a revision of the same template owned by
// another controller, or by none, is reported rather than taken for the
// DaemonSet's own; and the status retry after a conflict is not issued
// when the DaemonSet read again holds a status that observed a later
// generation than the sync did (upstream writes the sync's generation
// back over it; here status.observedGeneration never goes backwards), nor
// when that status is already the one to write (upstream writes it again);
// the same holds for the first status write of a snapshot whose DaemonSet
// lacks a resourceVersion or a generation, which Apply makes onto the
// DaemonSet read first (upstream's informer objects always have both).
// Unlike upstream, Apply does not bump status.collisionCount itself on a
// real collision: the next plan, made from a snapshot that shows the
// revision, does.
package apply
