package apply

import (
	"errors"
	"reflect"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/placement"
)

// The reasons of the Events upstream's DaemonSet controller records, and
// RecordEvents with them: those of the controller itself
// (pkg/controller/daemon) and those of the pod control it writes pods
// with (pkg/controller, RealPodControl).
const (
	ReasonSelectingAll       = "SelectingAll"       // Warning: the selector is exactly empty
	ReasonFailedDaemonPod    = "FailedDaemonPod"    // Warning: a failed pod is deleted
	ReasonSucceededDaemonPod = "SucceededDaemonPod" // Normal: a succeeded pod is deleted
	ReasonSuccessfulCreate   = "SuccessfulCreate"   // Normal: a pod created
	ReasonFailedCreate       = "FailedCreate"       // Warning: a pod create refused
	ReasonSuccessfulDelete   = "SuccessfulDelete"   // Normal: a pod deleted
	ReasonFailedDelete       = "FailedDelete"       // Warning: a pod delete refused
)

// EventSource is the component upstream's DaemonSet controller records
// its Events as; kube/examples/controller records as it too.
const EventSource = "daemonset-controller"

// RecordEvents records on rec, about ds, the Events upstream's DaemonSet
// controller records in the sync of which p is the plan and res what
// Apply issued of it, with upstream's reasons, types and messages, in
// upstream's order:
//
//   - SelectingAll when ds's selector is exactly empty (the plan then has
//     no write);
//   - FailedDaemonPod or SucceededDaemonPod for each pod p deletes because
//     its phase is Failed or Succeeded, recorded as upstream records it,
//     before the writes, whether or not the delete succeeds (but not when
//     Apply did not issue it);
//   - for each pod create Apply issued, SuccessfulCreate with the name the
//     API server gave, or FailedCreate with the error the API server
//     answered (none when the namespace is terminating);
//   - for each pod delete Apply issued, SuccessfulDelete, or FailedDelete
//     with the error (none for a pod already gone, NotePodGone).
//
// Writes Apply did not issue (their errors match ErrNotIssued: a create
// refused as ErrShouldNotRun or ErrNodeHasPod, a delete refused as
// ErrNotOwned or ErrUnjustifiedDelete, a pod without labels) have no
// Event: the API server never refused them, and Result.Writes reports
// them with their reasons. Nor do adopt, release, relabel, revision and status
// writes, as upstream records none for them. A nil rec records nothing.
func RecordEvents(rec record.EventRecorder, ds *appsv1.DaemonSet, p daemonplan.Plan, res Result) {
	if rec == nil || ds == nil {
		return
	}
	if sel := ds.Spec.Selector; sel != nil && reflect.DeepEqual(sel, &metav1.LabelSelector{}) {
		rec.Eventf(ds, corev1.EventTypeWarning, ReasonSelectingAll, "This daemon set is selecting all pods. A non-empty selector is required.")
	}
	if res.Refused != nil {
		return
	}
	// A delete Apply did not issue found no failed or succeeded pod to
	// report: the pod is not the snapshot's, or not in that phase.
	notIssued := map[string]bool{}
	for _, w := range res.Writes {
		if w.Action == DeletePod && errors.Is(w.Err, ErrNotIssued) {
			notIssued[w.Name] = true
		}
	}
	for _, d := range p.Delete {
		if notIssued[d.Pod] {
			continue
		}
		switch d.Reason {
		case placement.Failed:
			rec.Eventf(ds, corev1.EventTypeWarning, ReasonFailedDaemonPod, "Found failed daemon pod %s/%s on node %s, will try to kill it", ds.Namespace, d.Pod, d.Node)
		case placement.Succeeded:
			rec.Eventf(ds, corev1.EventTypeNormal, ReasonSucceededDaemonPod, "Found succeeded daemon pod %s/%s on node %s, will try to delete it", ds.Namespace, d.Pod, d.Node)
		}
	}
	for _, w := range res.Writes {
		if errors.Is(w.Err, ErrNotIssued) {
			continue
		}
		switch w.Action {
		case CreatePod:
			switch {
			case w.Err == nil:
				rec.Eventf(ds, corev1.EventTypeNormal, ReasonSuccessfulCreate, "Created pod: %v", w.Name)
			case !apierrors.HasStatusCause(w.Err, corev1.NamespaceTerminatingCause):
				rec.Eventf(ds, corev1.EventTypeWarning, ReasonFailedCreate, "Error creating: %v", w.Err)
			}
		case DeletePod:
			switch {
			case w.Err != nil:
				rec.Eventf(ds, corev1.EventTypeWarning, ReasonFailedDelete, "Error deleting: %v", w.Err)
			case w.Note != NotePodGone:
				rec.Eventf(ds, corev1.EventTypeNormal, ReasonSuccessfulDelete, "Deleted pod: %v", w.Name)
			}
		}
	}
}
