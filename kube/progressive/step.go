package progressive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/kube/live"
	"github.com/daemonplan/daemonplan/kube/load"
)

// ErrConflict reports that the DaemonSet changed between the step's read
// and its write of the Annotation (409 Conflict): another driver, a user
// or the DaemonSet controller wrote it. The step deleted nothing; step
// again, from a fresh read.
var ErrConflict = errors.New("the DaemonSet changed since it was read (409 Conflict): nothing deleted; step again")

// NotOnDeleteError reports a DaemonSet whose updateStrategy is not
// OnDelete: its own controller would roll it out, and a driver must not
// delete beside it. Command switches it.
type NotOnDeleteError struct {
	Namespace, Name string
	Type            appsv1.DaemonSetUpdateStrategyType
}

func (e *NotOnDeleteError) Error() string {
	return fmt.Sprintf("daemonset %s/%s has updateStrategy %s, not OnDelete: its own controller would roll it out beside daemonplan. Switch it first:\n  %s",
		e.Namespace, e.Name, e.Type, e.Command())
}

// Command is the kubectl command that switches the DaemonSet to OnDelete.
func (e *NotOnDeleteError) Command() string {
	return fmt.Sprintf(`kubectl patch daemonset %s -n %s --type merge -p '{"spec":{"updateStrategy":{"type":"OnDelete","rollingUpdate":null}}}'`, e.Name, e.Namespace)
}

// checkStrategy refuses a DaemonSet that is not on OnDelete.
func checkStrategy(ds *appsv1.DaemonSet) error {
	if t := ds.Spec.UpdateStrategy.Type; t != appsv1.OnDeleteDaemonSetStrategyType {
		if t == "" {
			t = appsv1.RollingUpdateDaemonSetStrategyType
		}
		return &NotOnDeleteError{Namespace: ds.Namespace, Name: ds.Name, Type: t}
	}
	return nil
}

// StepResult is what one Step saw and did.
type StepResult struct {
	// Rollout is the rollout after the step: as written, or as read when
	// the step wrote nothing or its write failed.
	Rollout Rollout
	// Wrote reports that the step wrote the Annotation.
	Wrote bool
	// Deletes are the deletes the step issued, in pod-name order, each
	// with its outcome.
	Deletes []PodDelete
	// Nodes is every node's state, by node name.
	Nodes []NodeProgress
	// Budget is policy.maxUnavailable resolved against the desired nodes;
	// InUse counts the nodes that spend it (Updating, Deleting, Missing).
	Budget, InUse int
	// Waiting says why the step deleted nothing, when it did not.
	Waiting string
	// Plan is the core's plan the deletes were taken from (information).
	Plan daemonplan.Plan
	// Events are the Events the step recorded (Driver.Recorder), or
	// would have with one.
	Events []Event
	// ETA is how long the rollout has left; nil when it is done or
	// aborted, or the step could not decide.
	ETA *ETA
}

// PodDelete is one pod delete a step issued.
type PodDelete struct {
	Pod, Node string
	UID       types.UID
	// Err is nil when the pod was deleted or was already gone; a
	// Conflict means it changed since the read (the next step deletes it
	// again, from a fresh read, if the rollout still says so).
	Err error
}

// Driver runs rollouts through Client, and records an Event on the
// DaemonSet with Recorder at each change a step or a command makes: the
// Reason constants. The zero Recorder records nothing; APIRecorder writes
// each Event at once. The package functions Step, Start, Pause, Resume,
// Promote, Abort and Undo are a Driver's without a Recorder.
type Driver struct {
	Client   kubernetes.Interface
	Recorder record.EventRecorder
}

// Step is Driver{Client: client}.Step: it records no Events.
func Step(ctx context.Context, client kubernetes.Interface, namespace, name string, now time.Time) (StepResult, error) {
	return Driver{Client: client}.Step(ctx, namespace, name, now)
}

// Step reads the DaemonSet namespace/name, its pods, its
// ControllerRevisions and every node (package live), decides with the
// core planner which outdated pods to delete now, writes the new state to
// the Annotation with the DaemonSet's resourceVersion as a precondition,
// and only then deletes those pods, each with its UID and resourceVersion
// as preconditions. now is the clock availability and gates are judged
// at. Then it records the step's Events (StepResult.Events): a phase
// entered, a pause point, each pod that failed a gate, an abort by a
// gate, the rollout complete, a new revision, and each delete's outcome.
// A step that wrote nothing records nothing.
//
// The decision is daemonplan.Sync's for the DaemonSet as if its strategy
// were RollingUpdate with policy.maxUnavailable (maxSurge 0) and
// rollout.Progressive built from the phase (canary, zone scope, strict
// budgets, pause); of its plan only the rolling update's deletes (reason
// Outdated) of pods the DaemonSet controls are issued: never a create and
// never manage's deletes, which the DaemonSet controller does itself.
// Pods recorded in flight count as being deleted (unavailable) until the
// cluster shows them gone or terminating.
//
// The error is ErrNoRollout, a *NotOnDeleteError, ErrConflict (nothing
// deleted), a read or write error, or the planner's. Result holds what was
// decided even then.
func (dr Driver) Step(ctx context.Context, namespace, name string, now time.Time) (StepResult, error) {
	client := dr.Client
	s, d, res, err := observe(ctx, client, namespace, name, now)
	if err != nil || !d.changed {
		return res, err
	}
	prev := res.Rollout.Status
	d.next.Status.Updated = metav1.NewTime(now.UTC().Truncate(time.Second))
	if err := writeRollout(ctx, client, s.DaemonSet, d.next, d.restore); err != nil {
		return res, err
	}
	res.Rollout, res.Wrote = *d.next, true
	res.Deletes = deletePods(ctx, client, d.deletes)
	res.Events = stepEvents(&prev, &res.Rollout.Status, d.failed, res.Deletes)
	RecordEvents(dr.Recorder, s.DaemonSet, res.Events)
	return res, nil
}

// Inspect is Step without its writes: what a step would decide now, for
// `rollout status`. It needs only the rights of a reader (get and list).
// Result.Rollout, Nodes, Budget and InUse are as a step would leave them
// (a gate that fails shows as a pause), Deletes is empty and Wrote false.
func Inspect(ctx context.Context, client kubernetes.Interface, namespace, name string, now time.Time) (StepResult, error) {
	_, d, res, err := observe(ctx, client, namespace, name, now)
	if err == nil && d.next != nil {
		res.Rollout = *d.next
	}
	return res, err
}

// observe reads and decides, for Step and Inspect.
func observe(ctx context.Context, client kubernetes.Interface, namespace, name string, now time.Time) (*load.Snapshot, decision, StepResult, error) {
	v, err := live.ServerVersion(client.Discovery())
	if err != nil {
		return nil, decision{}, StepResult{}, err
	}
	s, err := read(ctx, client, namespace, name)
	if err != nil {
		return nil, decision{}, StepResult{}, err
	}
	r, err := Parse(s.DaemonSet)
	if err != nil {
		return nil, decision{}, StepResult{}, err
	}
	res := StepResult{Rollout: *r}
	if finished(r) && s.DaemonSet.Spec.UpdateStrategy.Type != appsv1.OnDeleteDaemonSetStrategyType {
		// Done or aborted, and the DaemonSet is back on its own
		// controller (switched back at the end, or by its user): nothing
		// is left to drive.
		return s, decision{}, res, nil
	}
	if err := checkStrategy(s.DaemonSet); err != nil {
		return nil, decision{}, res, err
	}
	d, err := decide(s, r, now, v)
	res.Plan, res.Nodes, res.Budget, res.InUse, res.Waiting, res.ETA = d.plan, d.nodes, d.budget, d.inUse, d.waiting, d.eta
	return s, d, res, err
}

// read reads the snapshot of one DaemonSet.
func read(ctx context.Context, client kubernetes.Interface, namespace, name string) (*load.Snapshot, error) {
	objs, err := live.Read(ctx, client, namespace, name, live.Options{})
	if err != nil {
		return nil, err
	}
	s, err := objs.Snapshot(namespace, name)
	if errors.Is(err, load.ErrNoDaemonSet) {
		// Said as the other live commands say it, not as a file's.
		return nil, fmt.Errorf("no DaemonSet %q in namespace %s of the cluster", name, namespace)
	}
	return s, err
}

// writeRollout writes r to the Annotation of ds with a merge patch that
// carries ds's resourceVersion: the API server refuses it with a Conflict
// if anyone wrote the DaemonSet since, which is ErrConflict. A non-nil
// strategy is written as spec.updateStrategy by the same patch.
func writeRollout(ctx context.Context, client kubernetes.Interface, ds *appsv1.DaemonSet, r *Rollout, strategy *appsv1.DaemonSetUpdateStrategy) error {
	patch, err := annotationPatch(ds.ResourceVersion, r, strategy)
	if err != nil {
		return err
	}
	_, err = client.AppsV1().DaemonSets(ds.Namespace).Patch(ctx, ds.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	return writeErr(err)
}

func writeErr(err error) error {
	if apierrors.IsConflict(err) {
		return fmt.Errorf("%w (%v)", ErrConflict, err)
	}
	return err
}

// annotationPatch is the merge patch that sets the Annotation to r at
// resourceVersion rv, and spec.updateStrategy to strategy when it is not
// nil (rollingUpdate null when strategy has none, so that a merge does
// not keep the old one).
func annotationPatch(rv string, r *Rollout, strategy *appsv1.DaemonSetUpdateStrategy) ([]byte, error) {
	doc, err := r.Encode()
	if err != nil {
		return nil, err
	}
	patch := map[string]any{"metadata": map[string]any{
		"resourceVersion": rv,
		"annotations":     map[string]string{Annotation: doc},
	}}
	if strategy != nil {
		var ru any
		if strategy.RollingUpdate != nil {
			ru = strategy.RollingUpdate
		}
		patch["spec"] = map[string]any{"updateStrategy": map[string]any{"type": strategy.Type, "rollingUpdate": ru}}
	}
	return json.Marshal(patch)
}

// deletePods deletes each pod with its UID and resourceVersion as
// preconditions.
func deletePods(ctx context.Context, client kubernetes.Interface, pods []toDelete) []PodDelete {
	out := make([]PodDelete, 0, len(pods))
	for _, td := range pods {
		p := td.pod
		rv := p.ResourceVersion
		pre := metav1.Preconditions{UID: &p.UID, ResourceVersion: &rv}
		err := client.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{Preconditions: &pre})
		if apierrors.IsNotFound(err) {
			err = nil
		}
		out = append(out, PodDelete{Pod: p.Name, Node: td.node, UID: p.UID, Err: err})
	}
	return out
}
