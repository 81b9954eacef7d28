package apply

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/kube/upstream"
	"github.com/daemonplan/daemonplan/placement"
)

// Action names one kind of write.
type Action uint8

// The writes Apply issues, listed by the step that issues them; Apply's
// doc gives the exact order (the history cleanup's DeleteRevision comes
// after the pod writes, and duplicate revisions move the pod claims ahead).
const (
	AdoptRevision   Action = iota + 1 // strategic merge patch adding the controller reference
	ReleaseRevision                   // strategic merge patch deleting the controller reference
	UpdateRevision                    // update: renumbered, or given its hash label
	CreateRevision                    // create
	RelabelPod                        // merge patch of the controller-revision-hash label, with the pod's UID and resourceVersion
	DeleteRevision                    // delete with UID and resourceVersion preconditions
	AdoptPod                          // strategic merge patch adding the controller reference
	ReleasePod                        // strategic merge patch deleting the controller reference
	CreatePod                         // create (the API server names the pod)
	DeletePod                         // delete with UID and resourceVersion preconditions
	UpdateStatus                      // update of the status subresource
)

var actionNames = [...]string{"", "AdoptRevision", "ReleaseRevision", "UpdateRevision", "CreateRevision",
	"RelabelPod", "DeleteRevision", "AdoptPod", "ReleasePod", "CreatePod", "DeletePod", "UpdateStatus"}

// String returns the action's name, or "Action(N)" for a value without one.
func (a Action) String() string {
	if a > 0 && int(a) < len(actionNames) {
		return actionNames[a]
	}
	return "Action(" + strconv.Itoa(int(a)) + ")"
}

// Write is one write Apply issued, or refused to issue, and its outcome.
type Write struct {
	Action Action
	// Name is the object written: the pod, revision or DaemonSet name. For
	// CreatePod it is the name the API server gave, empty if the create
	// failed.
	Name string
	// Node is the node of a pod create or delete.
	Node string
	// Err is the error of this write; nil when it succeeded.
	Err error
	// Note, when not empty, says why a write counts as done although the
	// API server refused it (NoteRevisionExists, NotePodGone), or was not issued
	// (NoteStatusNewer, NoteStatusCurrent).
	Note string
}

// NoteRevisionExists is the Note of a CreateRevision refused as
// AlreadyExists by the API server although the revision there is the one
// planned: the same data and a controller reference to the DaemonSet. This
// is the revision an earlier sync created and the snapshot (an informer
// cache) has not shown yet; the write counts as done.
const NoteRevisionExists = "revision already exists with the same data and owner"

// NotePodGone is the Note of a DeletePod the API server refused as
// NotFound: the pod is gone already, which is what the delete wanted.
const NotePodGone = "pod already gone"

// NoteStatusNewer is the Note of an UpdateStatus not issued because the
// DaemonSet it would be written onto (read again after a conflict, read
// first for a snapshot without a resourceVersion or generation, or the
// snapshot's own) holds a status that observed a later generation than
// the plan's would. Writing the plan's would move
// status.observedGeneration backwards; the next sync, made from the newer
// DaemonSet, writes its status.
const NoteStatusNewer = "status not written: the DaemonSet's status observed a later generation than the plan"

// NoteStatusCurrent is the Note of an UpdateStatus not issued because the
// DaemonSet read from the API server (after a conflict, or first, for a
// snapshot without a resourceVersion or generation) already holds the
// status the write would make.
const NoteStatusCurrent = "status not written: the DaemonSet already holds it"

// Result is what Apply did.
type Result struct {
	// Writes lists every write issued, in the order issued (creates of one
	// batch, and deletes, in plan order).
	Writes []Write
	// Created are the pods the API server returned for successful creates.
	Created []*corev1.Pod
	// NotAttempted counts the creates not issued because an earlier
	// slow-start batch failed, as upstream stops; a later sync plans them
	// again.
	NotAttempted int
	// DaemonSet is the DaemonSet as the successful status write returned
	// it (its resourceVersion is the controller's own write); nil when no
	// status was written.
	DaemonSet *appsv1.DaemonSet
	// Refused, when not nil, is why Apply issued nothing at all: the
	// snapshot has no DaemonSet, or the plan is for another one
	// (ErrOtherDaemonSet).
	Refused error
}

// Err joins Refused and the errors of every failed write; nil when all
// succeeded.
func (r Result) Err() error {
	var errs []error
	if r.Refused != nil {
		errs = append(errs, r.Refused)
	}
	for _, w := range r.Writes {
		if w.Err != nil {
			errs = append(errs, fmt.Errorf("%s %s: %w", w.Action, w.Name, w.Err))
		}
	}
	return errors.Join(errs...)
}

// ErrNotIssued is matched (errors.Is) by the error of every write Apply
// did not issue (or, after a conflict, did not issue again): refused
// because the snapshot, or the object read again, does not justify it
// (ErrNotInSnapshot, ErrNotOwned, ErrNotOrphan, ErrShouldNotRun,
// ErrNodeHasPod, ErrUnjustifiedDelete), stopped by a fresh read of the
// DaemonSet (ErrCannotAdopt), or a pod that cannot be built
// (convert.ErrNoLabels, as upstream's pod control refuses it before
// sending); and by Result.Refused. Such a write is reported in
// Result.Writes with that error and changes nothing; RecordEvents records
// no Event for it.
var ErrNotIssued = errors.New("apply: write not issued")

// notIssued is the type of the errors of writes Apply does not issue: each
// matches ErrNotIssued as well as itself.
type notIssued struct{ msg string }

func (e *notIssued) Error() string { return e.msg }

// Is reports whether target is ErrNotIssued.
func (e *notIssued) Is(target error) bool { return target == ErrNotIssued }

// ErrOtherDaemonSet is Result.Refused when the plan names another
// DaemonSet (namespace and name) than the snapshot's: its writes would
// create that DaemonSet's pods from this one's template.
var ErrOtherDaemonSet error = &notIssued{"apply: the plan is for another DaemonSet than the snapshot's"}

// ErrNotInSnapshot is the error of a write refused because the plan names
// an object the snapshot does not hold: Apply writes only objects it has
// seen, with their UID.
var ErrNotInSnapshot error = &notIssued{"apply: object not in the snapshot the plan was made from"}

// ErrNotOwned is the error of a write refused because the plan names a
// pod or revision of the snapshot that the DaemonSet does not control
// there and has not adopted in this Apply: a plan made from another
// snapshot. Apply deletes, relabels and updates only the DaemonSet's own
// objects.
var ErrNotOwned error = &notIssued{"apply: object not controlled by the DaemonSet"}

// ErrShouldNotRun is the error of a pod create refused because the
// DaemonSet should not run on the node, as decided again from the
// snapshot's DaemonSet and node (docs/eligibility.md): a plan made from
// another snapshot, or altered.
var ErrShouldNotRun error = &notIssued{"apply: the DaemonSet should not run on the node"}

// ErrNodeHasPod is the error of a pod create refused because the node
// already runs a live pod of the DaemonSet in the snapshot (two with
// surge: the old pod and its replacement), or because the plan creates on
// the node twice: a plan made from another snapshot, or altered, would
// leave the node with one pod too many.
var ErrNodeHasPod error = &notIssued{"apply: the node already runs the DaemonSet's pod"}

// ErrUnjustifiedDelete is the error of a pod delete refused because its
// reason does not hold, as decided again from the snapshot's DaemonSet
// and nodes and from the pod as read from the API server just before the
// delete: a plan made from another snapshot, or altered, or made by a
// kubesync.Planner from an object changed without a new resourceVersion.
var ErrUnjustifiedDelete error = &notIssued{"apply: the delete's reason does not hold"}

// ErrNotOrphan is the error of an adopt refused because the pod or
// revision already has a controller in the snapshot: a plan made from
// another snapshot. Apply adopts only orphans, as upstream does.
var ErrNotOrphan error = &notIssued{"apply: object already has a controller; cannot adopt"}

// ErrCannotAdopt is returned, as upstream does before its first adoption,
// when a fresh read of the DaemonSet finds it gone, replaced (another UID)
// or being deleted. Apply then stops: no other write follows.
var ErrCannotAdopt error = &notIssued{"apply: DaemonSet gone, replaced or being deleted; cannot adopt"}

// Apply issues the writes of p, a plan for c.DaemonSet made from the
// snapshot c, through client, in upstream's order:
//
//  1. revisions: adopt and release (strategic merge patches with the
//     revision's UID), update (of the revision as the patch returned it, if
//     patched, else as in c), create (an AlreadyExists for a revision
//     with the planned data and owner counts as done, with
//     NoteRevisionExists); then, when revisions duplicate the current
//     template, adopt and release pods (step 2's patches, issued here
//     because upstream claims the pods before it relabels them), relabel
//     pods (merge patch) and delete Revisions.DeleteDuplicates;
//  2. pods: adopt and release (strategic merge patches with the pod's UID)
//     unless step 1 did, then creates in slow-start batches (1, 2, 4, ... issued in parallel
//     within a batch; after a batch with an error the rest is not issued),
//     then every delete in parallel, each checked against c and against
//     the pod read again just before it, and held to the UID and the
//     resourceVersion read (a pod already gone is not an error);
//  3. Revisions.Delete (history cleanup), with UID and resourceVersion
//     preconditions;
//  4. the status (UpdateStatus), when p.StatusChanged; on a conflict the
//     DaemonSet is read again and the update retried once on it, as
//     upstream retries: the plan's counters, the fresh observedGeneration
//     unless the sync observed the generation, the fresh collisionCount
//     unless the plan bumped the count the fresh DaemonSet still holds;
//     the retry is not issued when it would move observedGeneration
//     backwards (NoteStatusNewer) or change nothing (NoteStatusCurrent).
//     When c's DaemonSet has no resourceVersion (the write would be
//     unconditional) or no generation, the DaemonSet is read first and
//     the first write is made onto it by the same rules. No status write
//     lowers the observedGeneration of the DaemonSet it is made onto.
//     Result.DaemonSet is the DaemonSet the status write returned.
//
// Before the first adoption the DaemonSet is read from the API server; if
// it is gone, has another UID or is being deleted, Apply stops with
// ErrCannotAdopt, as upstream's sync fails there. An adopt or release
// patch that fails stops Apply after the other claim patches of its step,
// as upstream's claim fails its sync: a revision's before any other write,
// a pod's before the creates, deletes, history cleanup and status update
// (upstream's status update claims again; Apply issues no write the plan
// does not hold). An object gone since the snapshot fails no claim. A
// revision update or create, pod relabel or duplicate revision delete that
// the API server refuses stops Apply there, as upstream's history
// construction fails its sync: no later write, not even the status. A pod
// create or delete it refuses (a pod already gone is not one) skips the
// history cleanup, as upstream's manage and rolling update return their
// error before it; the status is still written.
//
// Apply never issues a write p does not hold, and writes only objects of
// c, named by the plan and matched by name in c.DaemonSet's namespace: a
// name missing from c is reported as ErrNotInSnapshot and not written. A
// pod or revision it would delete, relabel or update must be controlled by
// the DaemonSet in c, or adopted by this Apply; any other is reported as
// ErrNotOwned and not written. Only orphans of c are adopted; a pod or
// revision with a controller there is reported as ErrNotOrphan. The
// create is issued only where the snapshot justifies it (ErrNotInSnapshot,
// ErrShouldNotRun, ErrNodeHasPod: a node of c the DaemonSet should run on,
// without its live pod there, or with one under surge). A pod delete is
// issued only while its reason holds (ErrUnjustifiedDelete), decided again
// from c's DaemonSet and nodes, as a create is, and from c's pod (the
// same UID, claimed by the DaemonSet), to which the delete is held by its
// UID and resourceVersion; a pod without a resourceVersion is read from
// the API server first: a plan made from another snapshot, altered, or
// made from an object changed without a new resourceVersion deletes no pod
// its reason does not name. A delete, relabel or revision update is held
// to the UID and resourceVersion at which the DaemonSet controls the
// object; on a conflict the object is read again and
// written once more only if the DaemonSet still claims it (and, for a
// delete, the reason still holds), else reported as ErrNotOwned
// (docs/never-harm.md, N10). The
// result lists every write with its error; Result.Err joins them. c and p
// are not changed. A plan for another DaemonSet than c's, or a c without
// one, is refused whole (Result.Refused).
func Apply(ctx context.Context, client kubernetes.Interface, c *load.Snapshot, p daemonplan.Plan) Result {
	return ApplyWith(ctx, client, c, p, daemonplan.Options{})
}

// ApplyWith is Apply for a plan made with opts (daemonplan.Sync's, or
// kubesync.Options.Options): of opts it reads only Placement, which
// decides which nodes should run the pod, so that the creates of a plan
// made with Placement.Taints.ComparisonOperators are checked by the same
// rules. Apply is ApplyWith with the zero Options.
func ApplyWith(ctx context.Context, client kubernetes.Interface, c *load.Snapshot, p daemonplan.Plan, opts daemonplan.Options) Result {
	var objs Lookup
	if c != nil {
		objs = SnapshotLookup(c)
	}
	return ApplyObjects(ctx, client, objs, p, opts, nil)
}

// ApplyObjects is ApplyWith against objs instead of a snapshot, for a
// caller that computes the status again once the other writes are issued.
//
// objs is looked up by name, each time Apply checks a write (see
// Lookup): a controller that keeps its informers' objects indexed hands
// them over as they are, and Apply costs what the plan writes, not what
// the cluster holds. Its checks are those Apply makes against a snapshot,
// made on objs as they are when each write is checked.
//
// restate, when not nil, gives the status to write, as upstream's sync
// computes its status after its writes: its updateDaemonSetStatus runs
// after manage, the rolling update and the history cleanup, and counts the
// pods its informer holds by then, the effects of those writes included as
// far as they are seen. When Apply reaches its status step, it calls
// restate once and writes the status restate returns if restate reports
// it changed, instead of p.Status and p.StatusChanged; the status is
// written onto objs' DaemonSet as ApplyWith writes it. restate is called
// from Apply's goroutine, after every create and delete has returned.
func ApplyObjects(ctx context.Context, client kubernetes.Interface, objs Lookup, p daemonplan.Plan, opts daemonplan.Options, restate func() (api.Status, bool)) Result {
	var ds *appsv1.DaemonSet
	if objs != nil {
		ds = objs.DaemonSet()
	}
	if ds == nil {
		return Result{Refused: &notIssued{"apply: the snapshot holds no DaemonSet"}}
	}
	if p.Namespace != ds.Namespace || p.Name != ds.Name {
		return Result{Refused: fmt.Errorf("%w: plan for %s/%s, snapshot of %s/%s", ErrOtherDaemonSet, p.Namespace, p.Name, ds.Namespace, ds.Name)}
	}
	a := &applier{ctx: ctx, client: client, objs: objs, p: p, opts: opts, ds: ds, ns: ds.Namespace, restate: restate}
	if sel, err := metav1.LabelSelectorAsSelector(ds.Spec.Selector); err == nil && !sel.Empty() {
		a.selector = sel
	}
	a.run()
	return a.res
}

type applier struct {
	ctx    context.Context
	client kubernetes.Interface
	objs   Lookup
	p      daemonplan.Plan
	opts   daemonplan.Options
	// restate, when not nil, gives the status to write in place of the
	// plan's (ApplyObjects).
	restate func() (api.Status, bool)
	ds      *appsv1.DaemonSet
	// selector is the DaemonSet's; nil (it claims nothing) when it does not
	// parse or selects everything.
	selector labels.Selector
	ns       string
	res      Result
	checked  bool // the DaemonSet was read before adopting
	// patched holds the revisions as the adopt and release patches
	// returned them, so that an update of the same revision builds on
	// them rather than on the stale snapshot.
	patched map[string]*appsv1.ControllerRevision
	// adopted holds the pods the adopt patches adopted, as the patches
	// returned them (their new resourceVersions).
	adopted map[string]*corev1.Pod
	// claimFailed reports an adopt or release patch that failed (other
	// than on an object gone), after which upstream's sync returns.
	claimFailed bool
	// podsFailed reports a pod create or delete the API server refused,
	// after which upstream's sync skips the history cleanup.
	podsFailed bool
	// view is what the snapshot says of the nodes and the DaemonSet's pods,
	// for the checks of creates and deletes; built once, when first needed.
	view *view
}

func (a *applier) add(w Write) { a.res.Writes = append(a.res.Writes, w) }

func (a *applier) run() {
	p := &a.p
	dups, cleanup := p.Revisions.DeleteDuplicates, p.Revisions.Delete

	// 1. Revisions.
	for _, name := range p.Revisions.Adopt {
		if !a.canAdopt(AdoptRevision) {
			return
		}
		a.patchRevision(AdoptRevision, name, a.adoptPatch)
	}
	for _, name := range p.Revisions.Release {
		a.patchRevision(ReleaseRevision, name, a.releasePatch)
	}
	if a.claimFailed {
		// Upstream's history construction fails: nothing else is written.
		return
	}
	for _, r := range p.Revisions.Update {
		cur := a.patched[r.Name]
		if cur == nil {
			cur = a.revision(r.Name)
		}
		if cur == nil {
			a.add(Write{Action: UpdateRevision, Name: r.Name, Err: ErrNotInSnapshot})
			continue
		}
		if !a.controlled(cur) {
			a.add(Write{Action: UpdateRevision, Name: r.Name, Err: ErrNotOwned})
			continue
		}
		// An update replaces the whole object: it is held to the
		// resourceVersion at which the DaemonSet controls the revision,
		// and built on the revision read again when Apply reads it (see
		// conditional), so that it never writes back the DaemonSet's
		// ownership over another controller's.
		err := a.conditional(cur.UID, cur.ResourceVersion, a.getRevision(r.Name), func(fresh metav1.Object, rv string) error {
			base := cur
			if f, ok := fresh.(*appsv1.ControllerRevision); ok {
				base = f
			}
			obj := convert.UpdatedControllerRevision(base, r)
			obj.ResourceVersion = rv
			out, err := a.client.AppsV1().ControllerRevisions(a.ns).Update(a.ctx, obj, metav1.UpdateOptions{})
			if err == nil && out != nil {
				if a.patched == nil {
					a.patched = map[string]*appsv1.ControllerRevision{}
				}
				a.patched[r.Name] = out
			}
			return err
		})
		if errors.Is(err, errGone) {
			err = fmt.Errorf("%w: revision %s was deleted or replaced since", ErrNotInSnapshot, r.Name)
		}
		a.add(Write{Action: UpdateRevision, Name: r.Name, Err: err})
		if errors.Is(err, ErrNotOwned) || errors.Is(err, ErrNotInSnapshot) {
			continue // refused, as a revision not the DaemonSet's in the snapshot
		}
		if err != nil {
			// Upstream's history construction fails: nothing else is
			// written, and the next sync starts over.
			return
		}
	}
	for _, r := range p.Revisions.Create {
		if !a.createRevision(convert.NewControllerRevision(a.ds, r)) {
			return
		}
	}
	// Upstream de-duplicates the current revision with the DaemonSet's
	// pods in hand, claimed: orphans are adopted (and pods it no longer
	// selects released) before any is relabelled.
	claimed := false
	if len(dups) > 0 || len(p.Relabel) > 0 {
		if !a.claimPods() {
			return
		}
		claimed = true
	}
	for _, rl := range p.Relabel {
		pod := a.pod(rl.Pod)
		if pod == nil {
			a.add(Write{Action: RelabelPod, Name: rl.Pod, Err: ErrNotInSnapshot})
			continue
		}
		if !a.ownsPod(pod) {
			a.add(Write{Action: RelabelPod, Name: rl.Pod, Node: pod.Spec.NodeName, Err: ErrNotOwned})
			continue
		}
		err := a.relabel(a.latestPod(pod), rl.Hash)
		if errors.Is(err, errGone) {
			err = fmt.Errorf("%w: pod %s was deleted or replaced since", ErrNotInSnapshot, rl.Pod)
		}
		a.add(Write{Action: RelabelPod, Name: rl.Pod, Node: pod.Spec.NodeName, Err: err})
		if errors.Is(err, ErrNotOwned) || errors.Is(err, ErrNotInSnapshot) {
			continue // refused, as a pod not the DaemonSet's in the snapshot
		}
		if err != nil {
			return
		}
	}
	for _, name := range dups {
		if !a.deleteRevision(name) {
			return
		}
	}

	// 2. Pods, claimed first unless step 1 did.
	if !claimed && !a.claimPods() {
		return
	}
	a.createPods()
	a.deletePods()

	// 3. History cleanup, unless a pod write failed: upstream's manage or
	// rolling update then returns its error before cleanupHistory, and
	// the status is still written.
	if !a.podsFailed {
		for _, name := range cleanup {
			a.deleteRevision(name)
		}
	}

	// 4. Status, computed again after the writes when the caller asks.
	if a.restate != nil {
		p.Status, p.StatusChanged = a.restate()
	}
	if p.StatusChanged {
		a.updateStatus()
	}
}

// relabel patches pod's revision-hash label to hash. The merge patch
// carries the pod's UID, as the adopt and release patches do (a pod that
// took the name since is Invalid to it), and the resourceVersion at which
// the DaemonSet controls it (see conditional): a pod re-owned since the
// snapshot is not relabelled.
func (a *applier) relabel(pod *corev1.Pod, hash string) error {
	return a.conditional(pod.UID, pod.ResourceVersion, a.getPod(pod.Name), func(_ metav1.Object, rv string) error {
		meta := map[string]any{"uid": pod.UID, "labels": map[string]string{api.LabelRevisionHash: hash}}
		if rv != "" {
			meta["resourceVersion"] = rv
		}
		patch, _ := json.Marshal(map[string]any{"metadata": meta})
		_, err := a.client.CoreV1().Pods(a.ns).Patch(a.ctx, pod.Name, types.MergePatchType, patch, metav1.PatchOptions{})
		return err
	})
}

// claimPods issues the pod adopt and release patches and reports whether
// the sync goes on. A failed claim ends the sync upstream (manage, or the
// de-duplication of revisions, returns before any later write): the rest
// of the plan is not issued.
func (a *applier) claimPods() bool {
	for _, name := range a.p.Adopt {
		if !a.canAdopt(AdoptPod) {
			return false
		}
		a.patchPod(AdoptPod, name, a.adoptPatch)
	}
	for _, name := range a.p.Release {
		a.patchPod(ReleasePod, name, a.releasePatch)
	}
	return !a.claimFailed
}

func (a *applier) pod(name string) *corev1.Pod {
	if p := a.objs.Pod(name); p != nil && p.Name == name && p.Namespace == a.ns {
		return p
	}
	return nil
}

func (a *applier) revision(name string) *appsv1.ControllerRevision {
	if r := a.objs.Revision(name); r != nil && r.Name == name && r.Namespace == a.ns {
		return r
	}
	return nil
}

// claimErr is the error of an adopt or release patch as upstream's claim
// (ClaimObject) takes it: an object gone is no error (not adopted, or
// released already), nor is a release the API server finds invalid; any
// other error fails the claim, and ends the Apply after the claim patches.
func (a *applier) claimErr(release bool, err error) error {
	if err == nil || apierrors.IsNotFound(err) || release && apierrors.IsInvalid(err) {
		return nil
	}
	a.claimFailed = true
	return err
}

// canAdopt reads the DaemonSet once, before the first adoption (upstream:
// the RecheckDeletionTimestamp of ClaimPods and ClaimControllerRevisions).
func (a *applier) canAdopt(action Action) bool {
	if a.checked {
		return true
	}
	fresh, err := a.client.AppsV1().DaemonSets(a.ns).Get(a.ctx, a.ds.Name, metav1.GetOptions{})
	switch {
	case err != nil && !apierrors.IsNotFound(err):
		a.add(Write{Action: action, Name: a.ds.Name, Err: fmt.Errorf("%w: %w", ErrCannotAdopt, err)})
		return false
	case err != nil || fresh.UID != a.ds.UID || fresh.DeletionTimestamp != nil:
		a.add(Write{Action: action, Name: a.ds.Name, Err: ErrCannotAdopt})
		return false
	}
	a.checked = true
	return true
}

// adoptPatch is upstream's ownerRefControllerPatch: the controller
// reference, and the object's UID as a precondition.
func (a *applier) adoptPatch(uid types.UID) []byte {
	ref := convert.ControllerRef(a.ds)
	b, _ := json.Marshal(map[string]any{"metadata": map[string]any{
		"ownerReferences": []metav1.OwnerReference{ref},
		"uid":             uid,
	}})
	return b
}

// releasePatch is upstream's GenerateDeleteOwnerRefStrategicMergeBytes.
func (a *applier) releasePatch(uid types.UID) []byte {
	b, _ := json.Marshal(map[string]any{"metadata": map[string]any{
		"ownerReferences": []map[string]string{{"$patch": "delete", "uid": string(a.ds.UID)}},
		"uid":             uid,
	}})
	return b
}

func (a *applier) patchPod(action Action, name string, patch func(types.UID) []byte) {
	pod := a.pod(name)
	if pod == nil {
		a.add(Write{Action: action, Name: name, Err: ErrNotInSnapshot})
		return
	}
	if action == AdoptPod && metav1.GetControllerOfNoCopy(pod) != nil {
		a.add(Write{Action: action, Name: name, Node: pod.Spec.NodeName, Err: ErrNotOrphan})
		return
	}
	out, err := a.client.CoreV1().Pods(a.ns).Patch(a.ctx, name, types.StrategicMergePatchType, patch(pod.UID), metav1.PatchOptions{})
	if action == AdoptPod && err == nil && out != nil {
		if a.adopted == nil {
			a.adopted = map[string]*corev1.Pod{}
		}
		a.adopted[name] = out
	}
	err = a.claimErr(action == ReleasePod, err)
	a.add(Write{Action: action, Name: name, Node: pod.Spec.NodeName, Err: err})
}

func (a *applier) patchRevision(action Action, name string, patch func(types.UID) []byte) {
	r := a.revision(name)
	if r == nil {
		a.add(Write{Action: action, Name: name, Err: ErrNotInSnapshot})
		return
	}
	if action == AdoptRevision && metav1.GetControllerOfNoCopy(r) != nil {
		a.add(Write{Action: action, Name: name, Err: ErrNotOrphan})
		return
	}
	out, err := a.client.AppsV1().ControllerRevisions(a.ns).Patch(a.ctx, name, types.StrategicMergePatchType, patch(r.UID), metav1.PatchOptions{})
	if err == nil && out != nil {
		if a.patched == nil {
			a.patched = map[string]*appsv1.ControllerRevision{}
		}
		a.patched[name] = out
	}
	err = a.claimErr(action == ReleaseRevision, err)
	a.add(Write{Action: action, Name: name, Err: err})
}

// deleteRevision deletes the revision name, and reports false when the API
// server refused the delete (a refused write, of an object not in the
// snapshot or not the DaemonSet's, is reported and counts as no failure).
func (a *applier) deleteRevision(name string) bool {
	r := a.revision(name)
	if r == nil {
		a.add(Write{Action: DeleteRevision, Name: name, Err: ErrNotInSnapshot})
		return true
	}
	if cur := a.patched[name]; cur != nil {
		r = cur // adopted or released by this Apply
	}
	if !a.controlled(r) {
		a.add(Write{Action: DeleteRevision, Name: name, Err: ErrNotOwned})
		return true
	}
	err := a.conditional(r.UID, r.ResourceVersion, a.getRevision(name), func(_ metav1.Object, rv string) error {
		pre := preconditions(r.UID, rv)
		return a.client.AppsV1().ControllerRevisions(a.ns).Delete(a.ctx, name, metav1.DeleteOptions{Preconditions: &pre})
	})
	if apierrors.IsNotFound(err) || errors.Is(err, errGone) {
		err = nil
	}
	a.add(Write{Action: DeleteRevision, Name: name, Err: err})
	// A revision the DaemonSet no longer controls is refused, as one it
	// does not control in the snapshot: no failure.
	return err == nil || errors.Is(err, ErrNotOwned)
}

// createRevision creates r, and reports whether the write is done. On
// AlreadyExists it reads the revision of that name, as upstream's snapshot
// does: if it holds r's data (upstream: Match) and is controlled by the
// DaemonSet, the write is done, with NoteRevisionExists; otherwise the
// AlreadyExists error stands.
func (a *applier) createRevision(r *appsv1.ControllerRevision) bool {
	w := Write{Action: CreateRevision, Name: r.Name}
	_, w.Err = a.client.AppsV1().ControllerRevisions(a.ns).Create(a.ctx, r, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(w.Err) {
		existing, err := a.client.AppsV1().ControllerRevisions(a.ns).Get(a.ctx, r.Name, metav1.GetOptions{})
		switch {
		case err != nil:
			w.Err = fmt.Errorf("%w; reading it: %w", w.Err, err)
		case bytes.Equal(upstream.StoredData(existing.Data.Raw), upstream.StoredData(r.Data.Raw)) && a.controlled(existing):
			w.Err, w.Note = nil, NoteRevisionExists
		}
	}
	a.add(w)
	return w.Err == nil
}

// controlled reports whether obj's controller reference names the
// DaemonSet. An empty UID matches nothing: a DaemonSet without one owns
// no object, and a reference without one names no DaemonSet.
func (a *applier) controlled(obj metav1.Object) bool {
	ref := metav1.GetControllerOfNoCopy(obj)
	return ref != nil && a.ds.UID != "" && ref.UID == a.ds.UID
}

// ownsPod reports whether the DaemonSet controls pod in the snapshot or
// adopted it in this Apply.
func (a *applier) ownsPod(pod *corev1.Pod) bool {
	return a.controlled(pod) || a.adopted[pod.Name] != nil
}

// latestPod is the newest copy of pod Apply knows: as its adopt patch
// returned it, or as in the snapshot.
func (a *applier) latestPod(pod *corev1.Pod) *corev1.Pod {
	if out := a.adopted[pod.Name]; out != nil && out.UID == pod.UID {
		return out
	}
	return pod
}

// claims reports whether the DaemonSet claims obj as it is now: controlled
// by it and matched by its selector.
func (a *applier) claims(obj metav1.Object) bool {
	return a.controlled(obj) && a.selector != nil && a.selector.Matches(labels.Set(obj.GetLabels()))
}

// errGone reports an object deleted, or replaced by another of its name
// (another UID), since the snapshot.
var errGone = errors.New("gone or replaced since the snapshot")

// recheck reads the object again (get) and returns the resourceVersion
// at which the DaemonSet claims it, for a write conditional on it. The
// error is errGone for an object gone or of another UID than uid, and
// wraps ErrNotOwned for one the DaemonSet no longer claims (another
// controller took it over, or it was released): Apply never writes it.
func (a *applier) recheck(uid types.UID, get func() (metav1.Object, error)) (metav1.Object, error) {
	fresh, err := get()
	switch {
	case apierrors.IsNotFound(err):
		return nil, errGone
	case err != nil:
		return nil, err
	case fresh.GetUID() != uid:
		return nil, errGone
	case !a.claims(fresh):
		return nil, fmt.Errorf("%w: changed since the snapshot (resourceVersion %s)", ErrNotOwned, fresh.GetResourceVersion())
	}
	return fresh, nil
}

// conditional issues write, a delete or patch conditional on the UID uid
// and the resourceVersion rv (none when empty) at which the DaemonSet was
// seen to control the object: the snapshot's, or what Apply's own last
// write returned. Without a resourceVersion it reads the object first. On
// a conflict (the object changed since) it reads it again and writes once
// more only if the DaemonSet still claims it, at its new resourceVersion.
// A real API server changes a pod's resourceVersion on every status
// update, so the second chance is what lets a delete of the DaemonSet's
// own pod through; a controller that took the object over in between
// makes the write fail its precondition rather than touch the object.
//
// write gets the object as read again (nil when not read) and the
// resourceVersion to hold the write to.
func (a *applier) conditional(uid types.UID, rv string, get func() (metav1.Object, error), write func(fresh metav1.Object, rv string) error) error {
	var fresh metav1.Object
	var err error
	if rv == "" {
		if fresh, err = a.recheck(uid, get); err != nil {
			return err
		}
		rv = fresh.GetResourceVersion()
	}
	err = write(fresh, rv)
	if apierrors.IsConflict(err) {
		if fresh, err = a.recheck(uid, get); err != nil {
			return err
		}
		err = write(fresh, fresh.GetResourceVersion())
	}
	return err
}

// preconditions are a delete's: the UID, and the resourceVersion when
// known.
func preconditions(uid types.UID, rv string) metav1.Preconditions {
	pre := metav1.NewUIDPreconditions(string(uid))
	if rv != "" {
		pre.ResourceVersion = &rv
	}
	return *pre
}

func (a *applier) getPod(name string) func() (metav1.Object, error) {
	return func() (metav1.Object, error) {
		return a.client.CoreV1().Pods(a.ns).Get(a.ctx, name, metav1.GetOptions{})
	}
}

func (a *applier) getRevision(name string) func() (metav1.Object, error) {
	return func() (metav1.Object, error) {
		return a.client.AppsV1().ControllerRevisions(a.ns).Get(a.ctx, name, metav1.GetOptions{})
	}
}

// createPods issues the creates in slow-start batches.
func (a *applier) createPods() {
	var creates []placement.Create
	for i, err := range a.checkCreates() {
		if err != nil {
			a.add(Write{Action: CreatePod, Node: a.p.Create[i].Node, Err: err})
		} else {
			creates = append(creates, a.p.Create[i])
		}
	}
	pos := 0
	for _, size := range placement.SlowStartBatches(len(creates)) {
		batch := creates[pos : pos+size]
		pos += size
		writes := make([]Write, len(batch))
		pods := make([]*corev1.Pod, len(batch))
		var wg sync.WaitGroup
		for i, c := range batch {
			wg.Add(1)
			go func() {
				defer wg.Done()
				writes[i] = Write{Action: CreatePod, Node: c.Node}
				pod, err := convert.NewPod(a.ds, c)
				if err != nil {
					// Never sent: no FailedCreate (upstream's pod control
					// refuses a pod without labels the same way).
					err = fmt.Errorf("%w: %w", ErrNotIssued, err)
				} else {
					pod, err = a.client.CoreV1().Pods(a.ns).Create(a.ctx, pod, metav1.CreateOptions{})
				}
				if err != nil {
					writes[i].Err = err
					return
				}
				writes[i].Name = pod.Name
				pods[i] = pod
			}()
		}
		wg.Wait()
		failed := false
		for i := range writes {
			a.add(writes[i])
			if writes[i].Err != nil {
				failed = true
			} else {
				a.res.Created = append(a.res.Created, pods[i])
			}
		}
		if failed {
			a.podsFailed = true
			a.res.NotAttempted = len(creates) - pos
			return
		}
	}
}

// checkCreates returns, for each create of the plan, why the snapshot does
// not justify it, or nil: a create is justified on a node of the snapshot
// that the DaemonSet should run on (decided again from the snapshot's
// DaemonSet, defaulted, and node, with a.opts.Placement) and that runs no
// live pod the DaemonSet claims there (controlled and selected, or adopted
// by this Apply; not being deleted, not Failed or Succeeded), or one with
// surge; the plan's second create on a node is never justified.
func (a *applier) checkCreates() []error {
	errs := make([]error, len(a.p.Create))
	if len(errs) == 0 {
		return errs
	}
	v := a.snapshotView()
	planned := map[string]bool{}
	for i, c := range a.p.Create {
		n := v.node(c.Node)
		switch {
		case v.err != nil:
			errs[i] = v.err
		case !n.present:
			errs[i] = fmt.Errorf("%w: node %s", ErrNotInSnapshot, c.Node)
		case !n.ShouldRun:
			errs[i] = fmt.Errorf("%w: node %s", ErrShouldNotRun, c.Node)
		case planned[c.Node]:
			errs[i] = fmt.Errorf("%w: node %s, created on twice by the plan", ErrNodeHasPod, c.Node)
		case len(v.livePods(c.Node)) >= v.limit:
			errs[i] = fmt.Errorf("%w: node %s runs %d", ErrNodeHasPod, c.Node, len(v.livePods(c.Node)))
		default:
			planned[c.Node] = true
		}
	}
	return errs
}

// deletePods issues every delete in parallel. Each is checked first
// against the snapshot (the pod is there, the DaemonSet's, and the
// delete's reason holds, see justified), and issued with the UID and the
// resourceVersion of the pod checked as preconditions: the pod deleted is
// the pod checked, and no read precedes the delete, as none precedes
// upstream's. A pod without a resourceVersion is read first; a conflict
// (the pod changed since) reads it again and checks it once more: the same
// UID, still claimed by the DaemonSet, the reason still holding (see
// conditional).
func (a *applier) deletePods() {
	writes := make([]Write, len(a.p.Delete))
	if len(writes) == 0 {
		return
	}
	v := a.snapshotView()
	deleted := make(map[string]bool, len(a.p.Delete))
	for _, d := range a.p.Delete {
		deleted[d.Pod] = true
	}
	var wg sync.WaitGroup
	for i, d := range a.p.Delete {
		pod := a.pod(d.Pod)
		writes[i] = Write{Action: DeletePod, Name: d.Pod, Node: d.Node}
		if pod == nil {
			writes[i].Err = ErrNotInSnapshot
			continue
		}
		if !a.ownsPod(pod) {
			writes[i].Err = ErrNotOwned
			continue
		}
		pod = a.latestPod(pod)
		// What the reason needs of the node, read here: the goroutines
		// below only read it.
		n, keeps := v.node(d.Node), v.keeps(d.Node, deleted)
		if err := justified(v, d, pod, pod, n, keeps, a.p.Hash); err != nil {
			writes[i].Err = err
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Held to the resourceVersion at which the pod was checked:
			// the pod deleted is the pod checked, without a read (an API
			// server gives every change a new resourceVersion). A pod
			// without one is read first; a conflict reads it again, and
			// the reason is decided once more on the pod as read.
			err := a.conditional(pod.UID, pod.ResourceVersion, a.getPod(d.Pod), func(fresh metav1.Object, rv string) error {
				if live, ok := fresh.(*corev1.Pod); ok {
					if err := justified(v, d, pod, live, n, keeps, a.p.Hash); err != nil {
						return err
					}
				}
				pre := preconditions(pod.UID, rv)
				return a.client.CoreV1().Pods(a.ns).Delete(a.ctx, d.Pod, metav1.DeleteOptions{Preconditions: &pre})
			})
			if apierrors.IsNotFound(err) || errors.Is(err, errGone) {
				writes[i].Note = NotePodGone
			} else {
				writes[i].Err = err
			}
		}()
	}
	wg.Wait()
	a.res.Writes = slices.Concat(a.res.Writes, writes)
	for i := range writes {
		if writes[i].Err != nil && !errors.Is(writes[i].Err, ErrNotIssued) {
			a.podsFailed = true
		}
	}
}

// view is what the objects say of the plan's nodes and of the DaemonSet's
// pods on them, decided again from the objects, not from the plan: the
// creates and deletes are checked against it. It looks up only the nodes
// the plan writes to, each once.
type view struct {
	// err, when not nil, is why nothing is justified: the DaemonSet does
	// not convert.
	err error
	// elig decides the nodes.
	elig *placement.Eligibility
	objs Lookup
	// claims reports whether a pod is the DaemonSet's: controlled and
	// selected, or adopted by this Apply.
	claims func(*corev1.Pod) bool
	// live caches, by target node, the names of the live pods the
	// DaemonSet claims there: not being deleted, not Failed or Succeeded.
	live map[string][]string
	// limit is how many live pods a node may run before a create: one, two
	// with surge.
	limit int
	// generation is the DaemonSet's template generation, nil if unknown.
	generation *int64
}

// nodeView is the view's decision for one node.
type nodeView struct {
	placement.Decision
	// present: the objects hold the node (once: a name listed twice is
	// decided by neither copy, and justifies nothing); listed: they list
	// the name, once or more.
	present, listed bool
}

// snapshotView builds the view once, after the claim patches (the pods
// they adopted count as the DaemonSet's).
func (a *applier) snapshotView() *view {
	if a.view != nil {
		return a.view
	}
	v := &view{objs: a.objs, live: map[string][]string{}, limit: 1,
		claims: func(pod *corev1.Pod) bool { return a.claims(pod) || a.adopted[pod.Name] != nil }}
	a.view = v
	ds, err := convert.DaemonSet(a.ds)
	if err != nil {
		v.err = fmt.Errorf("%w: %w", ErrNotIssued, err)
		return v
	}
	dds := api.Default(ds)
	v.elig = placement.NewEligibility(&dds, a.opts.Placement)
	v.generation = api.TemplateGeneration(&dds)
	if ru := dds.UpdateStrategy.RollingUpdate; dds.UpdateStrategy.Type == api.RollingUpdate && ru != nil && ru.MaxSurge != nil {
		if n, err := ru.MaxSurge.Scaled(1, true); err == nil && n != 0 {
			v.limit = 2
		}
	}
	return v
}

// livePods returns the names of the live pods the DaemonSet claims whose
// target node is node, looked up once per node.
func (v *view) livePods(node string) []string {
	if names, ok := v.live[node]; ok {
		return names
	}
	names := []string{}
	for _, pod := range v.objs.PodsOn(node) {
		if pod == nil || !v.claims(pod) {
			continue
		}
		ap := convert.Pod(pod)
		if ap.Deleting || api.IsTerminal(&ap) {
			continue
		}
		if target, err := api.TargetNodeName(&ap); err == nil && target == node {
			names = append(names, pod.Name)
		}
	}
	slices.Sort(names)
	v.live[node] = names
	return names
}

// node decides the node of that name as the objects hold it; a name they
// lack, or list twice, is not present.
func (v *view) node(name string) nodeView {
	n, listed := v.objs.Node(name)
	if n == nil || v.elig == nil {
		return nodeView{listed: listed}
	}
	node := convert.Node(n)
	return nodeView{Decision: v.elig.Decide(&node), present: true, listed: true}
}

// keeps reports whether node runs a live pod of the DaemonSet that the
// plan does not delete: what a delete of a duplicate or a replaced pod
// leaves on the node.
func (v *view) keeps(node string, deleted map[string]bool) bool {
	for _, name := range v.livePods(node) {
		if !deleted[name] {
			return true
		}
	}
	return false
}

// justified returns nil when the reason of d holds for the pod, as the
// snapshot holds it (snap) and as it is now (cur: snap again, or the pod
// read from the API server), on n, d's node as the snapshot decides it,
// keeps telling whether the node keeps a live pod of the DaemonSet the
// plan does not delete; otherwise an error wrapping ErrUnjustifiedDelete
// that says what does not hold. Each reason is held to what the plan's
// step decided it from (placement.ManageNode and the rolling update):
//
//  1. the pod's target node is d.Node;
//  2. Failed and Succeeded: the pod's phase;
//  3. NotEligible and UntoleratedTaint: the node is in the snapshot, the
//     pod may not continue there, for an untolerated NoExecute taint
//     exactly when the reason is UntoleratedTaint;
//  4. NodeGone: the node is not in the snapshot and the pod is not bound;
//  5. Duplicate and SurgeReplaced: the node keeps another live pod;
//  6. Outdated: the snapshot's pod is not of the current revision (the
//     plan's hash or the DaemonSet's template generation,
//     docs/rolling-update.md, R2); Unschedulable: the same, on a node of
//     the snapshot that should not run the pod. The labels are the
//     snapshot's because the plan's own relabels (duplicate revisions) may
//     give an old pod the current hash before upstream's rolling update,
//     which reads its informer's copy, deletes it.
func justified(v *view, d placement.Delete, snap, cur *corev1.Pod, n nodeView, keeps bool, hash string) error {
	if v.err != nil {
		return v.err
	}
	ap, old := convert.Pod(cur), convert.Pod(snap)
	node, err := api.TargetNodeName(&ap)
	if err != nil || node != d.Node {
		return fmt.Errorf("%w: pod %s is not on node %s", ErrUnjustifiedDelete, d.Pod, d.Node)
	}
	var holds bool
	switch d.Reason {
	case placement.Failed:
		holds = ap.Phase == api.PodFailed
	case placement.Succeeded:
		holds = ap.Phase == api.PodSucceeded
	case placement.NotEligible, placement.UntoleratedTaint:
		holds = n.present && !n.ShouldContinueRunning &&
			(n.Reason == placement.UntoleratedNoExecute) == (d.Reason == placement.UntoleratedTaint)
	case placement.NodeGone:
		holds = !n.listed && ap.NodeName == ""
	case placement.Duplicate, placement.SurgeReplaced:
		holds = keeps
	case placement.Outdated:
		holds = !api.IsUpdated(&old, hash, v.generation)
	case placement.Unschedulable:
		holds = n.present && !n.ShouldRun && !api.IsUpdated(&old, hash, v.generation)
	}
	if !holds {
		return fmt.Errorf("%w: %s of pod %s on node %s", ErrUnjustifiedDelete, d.Reason, d.Pod, d.Node)
	}
	return nil
}

// updateStatus writes the plan's status (upstream: storeDaemonSetStatus,
// one retry after a fresh read). The status is written onto a DaemonSet
// whose status Apply knows: the snapshot's when it has a resourceVersion
// to hold the write to and a generation (every DaemonSet an API server
// stores has both), else the DaemonSet read first; after a conflict, the
// DaemonSet read again. Onto either, statusOnto decides what to write, or
// that nothing is written.
func (a *applier) updateStatus() {
	dsClient := a.client.AppsV1().DaemonSets(a.ns)
	w := Write{Action: UpdateStatus, Name: a.ds.Name}
	var out *appsv1.DaemonSet
	base, read := a.ds, false
	if a.ds.ResourceVersion == "" || a.ds.Generation == 0 {
		// Without a resourceVersion the write is unconditional (the API
		// server allows it for a DaemonSet's status), and without a
		// generation the plan's observedGeneration is 0: either could
		// overwrite a status that observed a later generation.
		base, w.Err = a.readDaemonSet()
		read = true
	}
	for attempt := 0; w.Err == nil; attempt++ {
		st, note := statusOnto(a.ds, base, a.p.Status, read)
		if note != "" {
			w.Note = note
			break
		}
		toUpdate := base.DeepCopy()
		toUpdate.Status = st
		out, w.Err = dsClient.UpdateStatus(a.ctx, toUpdate, metav1.UpdateOptions{})
		if !apierrors.IsConflict(w.Err) || attempt > 0 {
			break
		}
		base, w.Err = a.readDaemonSet()
		read = true
	}
	if w.Err == nil && out != nil {
		a.res.DaemonSet = out
	}
	a.add(w)
}

// readDaemonSet reads the DaemonSet from the API server, and refuses one
// of another UID than the snapshot's (replaced since, or a snapshot
// without a UID, which names no DaemonSet in particular).
func (a *applier) readDaemonSet() (*appsv1.DaemonSet, error) {
	fresh, err := a.client.AppsV1().DaemonSets(a.ns).Get(a.ctx, a.ds.Name, metav1.GetOptions{})
	switch {
	case err != nil:
		return nil, err
	case a.ds.UID == "":
		return nil, fmt.Errorf("apply: the snapshot's DaemonSet %s/%s has no UID: its status is not written to %s", a.ns, a.ds.Name, fresh.UID)
	case fresh.UID != a.ds.UID:
		return nil, fmt.Errorf("apply: DaemonSet %s/%s was replaced (UID %s, planned for %s)", a.ns, a.ds.Name, fresh.UID, a.ds.UID)
	}
	return fresh, nil
}

// statusOnto is the status a write puts on base for the plan's status st
// made from the snapshot's DaemonSet ds, as upstream's
// storeDaemonSetStatus writes and retries: the plan's counters; its
// observedGeneration only when the sync observed the generation (st's is
// ds's generation, not the input's kept while expectations were pending,
// docs/status.md, S7), base's otherwise; base's collisionCount, unless the
// plan bumped it (docs/history.md, H9) from the count base still holds, as
// upstream bumps it only on a count that is not stale. With base = ds this
// is the plan's status.
//
// A non-empty note says why nothing is written: NoteStatusNewer when
// base's status observed a later generation than the write would (upstream
// writes its generation back over it), and, on a DaemonSet read (read
// true), NoteStatusCurrent when its status is already the one to write.
func statusOnto(ds, base *appsv1.DaemonSet, st api.Status, read bool) (appsv1.DaemonSetStatus, string) {
	if st.ObservedGeneration != ds.Generation {
		st.ObservedGeneration = base.Status.ObservedGeneration
	}
	if equalCount(st.CollisionCount, ds.Status.CollisionCount) || !equalCount(base.Status.CollisionCount, ds.Status.CollisionCount) {
		st.CollisionCount = base.Status.CollisionCount
	}
	out := convert.DaemonSetStatus(base.Status, st)
	switch {
	case out.ObservedGeneration < base.Status.ObservedGeneration:
		return out, NoteStatusNewer
	case read && apiequality.Semantic.DeepEqual(out, base.Status):
		return out, NoteStatusCurrent
	}
	return out, ""
}

func equalCount(a, b *int32) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}
