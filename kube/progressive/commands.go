package progressive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/revision"
)

// ErrInProgress reports a `rollout start` on a DaemonSet whose rollout is
// neither done nor aborted.
var ErrInProgress = errors.New("a rollout is in progress: pause, resume, promote or abort it")

// ErrNotPaused reports a resume of a rollout that is not paused.
var ErrNotPaused = errors.New("the rollout is not paused")

// ErrNotCanary reports a promote of a rollout that is not in its canary
// phase.
var ErrNotCanary = errors.New("the rollout is not in its canary phase")

// ErrFinished reports a command on a rollout that is done or aborted.
var ErrFinished = errors.New("the rollout is done or aborted")

// conflictRetries bounds the retries of a command whose write met a
// Conflict: each one reads the DaemonSet again and applies the command
// to what it finds.
const conflictRetries = 5

// change reads the DaemonSet, lets edit change its rollout, and writes it
// with the resourceVersion read, again from a fresh read after a
// Conflict. edit gets nil when the DaemonSet has no rollout.
func change(ctx context.Context, client kubernetes.Interface, namespace, name string, edit func(ds *appsv1.DaemonSet, r *Rollout) (*Rollout, error)) (*Rollout, error) {
	var err error
	for range conflictRetries {
		var ds *appsv1.DaemonSet
		ds, err = client.AppsV1().DaemonSets(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		r, perr := Parse(ds)
		if perr != nil && !errors.Is(perr, ErrNoRollout) {
			return nil, perr
		}
		next, eerr := edit(ds, r)
		if eerr != nil {
			return nil, eerr
		}
		err = writeRollout(ctx, client, ds, next)
		if !errors.Is(err, ErrConflict) {
			return next, err
		}
	}
	return nil, err
}

// Start starts a rollout of namespace/name under p: the next Step takes
// the DaemonSet's current revision and begins with the canary (or the
// first zone, or every node). It refuses a DaemonSet not on OnDelete
// (*NotOnDeleteError), an invalid policy (field.ErrorList) and a DaemonSet
// whose rollout is in progress (ErrInProgress).
func Start(ctx context.Context, client kubernetes.Interface, namespace, name string, p Policy) (*Rollout, error) {
	if errs := p.Validate(); len(errs) > 0 {
		return nil, errs
	}
	return change(ctx, client, namespace, name, func(ds *appsv1.DaemonSet, r *Rollout) (*Rollout, error) {
		if err := checkStrategy(ds); err != nil {
			return nil, err
		}
		if r != nil && r.Status.Phase != PhaseDone && r.Status.Phase != PhaseAborted {
			return nil, fmt.Errorf("%w (phase %s of revision %s)", ErrInProgress, r.Status.Phase, r.Status.Revision)
		}
		return &Rollout{Policy: p.clone(), Status: RolloutState{Phase: PhaseCanary}}, nil
	})
}

// Pause pauses the rollout: no step deletes until Resume.
func Pause(ctx context.Context, client kubernetes.Interface, namespace, name, reason string) (*Rollout, error) {
	return change(ctx, client, namespace, name, func(_ *appsv1.DaemonSet, r *Rollout) (*Rollout, error) {
		if r == nil {
			return nil, ErrNoRollout
		}
		if finished(r) {
			return nil, ErrFinished
		}
		next := r.clone()
		if reason == "" {
			reason = "paused by 'rollout pause'"
		}
		next.Status.Paused = &PauseState{By: ByUser, Reason: reason}
		return next, nil
	})
}

// Resume lifts a pause, whoever paused: the pods that failed a gate are
// waived (the gates no longer judge them).
func Resume(ctx context.Context, client kubernetes.Interface, namespace, name string) (*Rollout, error) {
	return change(ctx, client, namespace, name, func(_ *appsv1.DaemonSet, r *Rollout) (*Rollout, error) {
		if r == nil {
			return nil, ErrNoRollout
		}
		if r.Status.Paused == nil {
			return nil, ErrNotPaused
		}
		next := r.clone()
		next.Status.Waived = append(next.Status.Waived, next.Status.Paused.Pods...)
		next.Status.Paused = nil
		return next, nil
	})
}

// Promote records the verdict Promote on the canary: the rollout goes on
// past it.
func Promote(ctx context.Context, client kubernetes.Interface, namespace, name string) (*Rollout, error) {
	return change(ctx, client, namespace, name, func(_ *appsv1.DaemonSet, r *Rollout) (*Rollout, error) {
		if r == nil {
			return nil, ErrNoRollout
		}
		if r.Status.Phase != PhaseCanary {
			return nil, fmt.Errorf("%w (phase %s)", ErrNotCanary, r.Status.Phase)
		}
		next := r.clone()
		next.Status.Promoted = true
		return next, nil
	})
}

// Abort aborts the rollout: no more deletes for its revision. The
// template is left as it is (Undo rolls the previous revision out).
func Abort(ctx context.Context, client kubernetes.Interface, namespace, name, reason string) (*Rollout, error) {
	return change(ctx, client, namespace, name, func(_ *appsv1.DaemonSet, r *Rollout) (*Rollout, error) {
		if r == nil {
			return nil, ErrNoRollout
		}
		if r.Status.Phase == PhaseDone {
			return nil, ErrFinished
		}
		next := r.clone()
		if reason == "" {
			reason = "aborted by 'rollout abort'"
		}
		next.Status.Phase, next.Status.Zone, next.Status.Reason = PhaseAborted, "", reason
		next.Status.Paused, next.Status.InFlight = nil, nil
		return next, nil
	})
}

// Undo sets the DaemonSet's template back to the revision before the
// current one, as `kubectl rollout undo` does (revision.Rollback decides
// which), and starts a rollout of it under the same policy, without a
// canary: that revision ran before. One write does both, with the
// DaemonSet's resourceVersion as a precondition. It returns the number of
// the revision rolled back to.
func Undo(ctx context.Context, client kubernetes.Interface, namespace, name string) (int64, error) {
	var to int64
	var err error
	for range conflictRetries {
		to, err = undo(ctx, client, namespace, name)
		if !errors.Is(err, ErrConflict) {
			return to, err
		}
	}
	return 0, err
}

func undo(ctx context.Context, client kubernetes.Interface, namespace, name string) (int64, error) {
	s, err := read(ctx, client, namespace, name)
	if err != nil {
		return 0, err
	}
	r, err := Parse(s.DaemonSet)
	if err != nil {
		return 0, err
	}
	if err := checkStrategy(s.DaemonSet); err != nil {
		return 0, err
	}
	ds, err := convert.DaemonSet(s.DaemonSet)
	if err != nil {
		return 0, err
	}
	rb, err := revision.Rollback(ds, convert.Revisions(s.Revisions), 0)
	if err != nil {
		return 0, err
	}
	if rb.Outcome != revision.RolledBack {
		return 0, errors.New(rb.Message)
	}
	var patch map[string]any
	if err := json.Unmarshal(rb.Template, &patch); err != nil {
		return 0, fmt.Errorf("revision %s: %w", rb.Name, err)
	}
	next := &Rollout{Policy: r.Policy.clone(), Status: RolloutState{Phase: PhaseCanary, SkipCanary: true}}
	doc, err := next.Encode()
	if err != nil {
		return 0, err
	}
	patch["metadata"] = map[string]any{
		"resourceVersion": s.DaemonSet.ResourceVersion,
		"annotations":     map[string]string{Annotation: doc},
	}
	body, err := json.Marshal(patch)
	if err != nil {
		return 0, err
	}
	_, err = client.AppsV1().DaemonSets(namespace).Patch(ctx, name, types.StrategicMergePatchType, body, metav1.PatchOptions{})
	return rb.Revision, writeErr(err)
}

// Get reads the rollout of namespace/name (Parse of the DaemonSet read).
func Get(ctx context.Context, client kubernetes.Interface, namespace, name string) (*Rollout, error) {
	ds, err := client.AppsV1().DaemonSets(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return Parse(ds)
}

func finished(r *Rollout) bool {
	return r.Status.Phase == PhaseDone || r.Status.Phase == PhaseAborted
}
