package progressive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
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
// Conflict; once written, it records the Event edit returned. edit gets
// nil when the DaemonSet has no rollout.
func (dr Driver) change(ctx context.Context, namespace, name string, edit func(ds *appsv1.DaemonSet, r *Rollout) (*Rollout, Event, error)) (*Rollout, error) {
	client := dr.Client
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
		next, ev, eerr := edit(ds, r)
		if eerr != nil {
			return nil, eerr
		}
		var strategy *appsv1.DaemonSetUpdateStrategy
		if next.Status.Restore != nil && ds.Spec.UpdateStrategy.Type != appsv1.OnDeleteDaemonSetStrategyType {
			strategy = &appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
		}
		err = writeRollout(ctx, client, ds, next, strategy)
		if err == nil {
			RecordEvents(dr.Recorder, ds, []Event{ev})
		}
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
//
// Start is Driver{Client: client}.Start: it records no Events.
func Start(ctx context.Context, client kubernetes.Interface, namespace, name string, p Policy) (*Rollout, error) {
	return Driver{Client: client}.Start(ctx, namespace, name, p)
}

// Start is the package's Start, recording RolloutStarted.
func (dr Driver) Start(ctx context.Context, namespace, name string, p Policy) (*Rollout, error) {
	return dr.StartWith(ctx, namespace, name, p, StartOptions{})
}

// StartOptions are the options of Driver.StartWith.
type StartOptions struct {
	// SwitchStrategy switches a DaemonSet on RollingUpdate to OnDelete in
	// the write that starts the rollout, and records its strategy in the
	// state (RolloutState.Restore); the step that finds the rollout done
	// writes it back. An aborted rollout keeps OnDelete: back on
	// RollingUpdate, the controller would roll the aborted revision out
	// itself. Undo and a later Start carry the record on, so the
	// strategy comes back when that rollout is done. Without it, a
	// DaemonSet not on OnDelete is refused (*NotOnDeleteError).
	SwitchStrategy bool
}

// StartWith is Start with options.
func (dr Driver) StartWith(ctx context.Context, namespace, name string, p Policy, opts StartOptions) (*Rollout, error) {
	if errs := p.Validate(); len(errs) > 0 {
		return nil, errs
	}
	return dr.change(ctx, namespace, name, func(ds *appsv1.DaemonSet, r *Rollout) (*Rollout, Event, error) {
		var restore *appsv1.DaemonSetUpdateStrategy
		if r != nil && r.Status.Restore != nil {
			restore = r.Status.Restore.DeepCopy()
		}
		msg := "progressive rollout started: " + policyText(p)
		if err := checkStrategy(ds); err != nil {
			if !opts.SwitchStrategy {
				return nil, Event{}, err
			}
			restore = ds.Spec.UpdateStrategy.DeepCopy()
			if restore.Type == "" {
				restore.Type = appsv1.RollingUpdateDaemonSetStrategyType
			}
			msg += fmt.Sprintf("; updateStrategy switched from %s to OnDelete until the rollout is done", restore.Type)
		}
		if r != nil && r.Status.Phase != PhaseDone && r.Status.Phase != PhaseAborted {
			return nil, Event{}, fmt.Errorf("%w (phase %s of revision %s)", ErrInProgress, r.Status.Phase, r.Status.Revision)
		}
		ev := Event{corev1.EventTypeNormal, ReasonRolloutStarted, msg}
		return &Rollout{Policy: p.clone(), Status: RolloutState{Phase: PhaseCanary, Restore: restore}}, ev, nil
	})
}

// Pause pauses the rollout: no step deletes until Resume.
//
// Pause is Driver{Client: client}.Pause: it records no Events.
func Pause(ctx context.Context, client kubernetes.Interface, namespace, name, reason string) (*Rollout, error) {
	return Driver{Client: client}.Pause(ctx, namespace, name, reason)
}

// Pause is the package's Pause, recording RolloutPaused.
func (dr Driver) Pause(ctx context.Context, namespace, name, reason string) (*Rollout, error) {
	return dr.change(ctx, namespace, name, func(_ *appsv1.DaemonSet, r *Rollout) (*Rollout, Event, error) {
		if r == nil {
			return nil, Event{}, ErrNoRollout
		}
		if finished(r) {
			return nil, Event{}, ErrFinished
		}
		next := r.clone()
		if reason == "" {
			reason = "paused by 'rollout pause'"
		}
		next.Status.Paused = &PauseState{By: ByUser, Reason: reason}
		return next, Event{corev1.EventTypeNormal, ReasonRolloutPaused, fmt.Sprintf("paused by %s: %s", ByUser, reason)}, nil
	})
}

// Resume lifts a pause, whoever paused: the pods that failed a gate are
// waived (the gates no longer judge them).
//
// Resume is Driver{Client: client}.Resume: it records no Events.
func Resume(ctx context.Context, client kubernetes.Interface, namespace, name string) (*Rollout, error) {
	return Driver{Client: client}.Resume(ctx, namespace, name)
}

// Resume is the package's Resume, recording RolloutResumed.
func (dr Driver) Resume(ctx context.Context, namespace, name string) (*Rollout, error) {
	return dr.change(ctx, namespace, name, func(_ *appsv1.DaemonSet, r *Rollout) (*Rollout, Event, error) {
		if r == nil {
			return nil, Event{}, ErrNoRollout
		}
		if r.Status.Paused == nil {
			return nil, Event{}, ErrNotPaused
		}
		next := r.clone()
		p := next.Status.Paused
		msg := fmt.Sprintf("resumed (was paused by %s: %s)", p.By, p.Reason)
		if len(p.Pods) > 0 {
			msg += fmt.Sprintf("; the %d pods that failed a gate are no longer judged", len(p.Pods))
		}
		next.Status.Waived = append(next.Status.Waived, p.Pods...)
		next.Status.Paused = nil
		return next, Event{corev1.EventTypeNormal, ReasonRolloutResumed, msg}, nil
	})
}

// Promote records the verdict Promote on the canary: the rollout goes on
// past it.
//
// Promote is Driver{Client: client}.Promote: it records no Events.
func Promote(ctx context.Context, client kubernetes.Interface, namespace, name string) (*Rollout, error) {
	return Driver{Client: client}.Promote(ctx, namespace, name)
}

// Promote is the package's Promote, recording CanaryPromoted.
func (dr Driver) Promote(ctx context.Context, namespace, name string) (*Rollout, error) {
	return dr.change(ctx, namespace, name, func(_ *appsv1.DaemonSet, r *Rollout) (*Rollout, Event, error) {
		if r == nil {
			return nil, Event{}, ErrNoRollout
		}
		if r.Status.Phase != PhaseCanary {
			return nil, Event{}, fmt.Errorf("%w (phase %s)", ErrNotCanary, r.Status.Phase)
		}
		next := r.clone()
		next.Status.Promoted = true
		return next, Event{corev1.EventTypeNormal, ReasonCanaryPromoted, fmt.Sprintf("canary of revision %s promoted: the rollout goes on past it", r.Status.Revision)}, nil
	})
}

// Abort aborts the rollout: no more deletes for its revision. The
// template is left as it is (Undo rolls the previous revision out).
//
// Abort is Driver{Client: client}.Abort: it records no Events.
func Abort(ctx context.Context, client kubernetes.Interface, namespace, name, reason string) (*Rollout, error) {
	return Driver{Client: client}.Abort(ctx, namespace, name, reason)
}

// Abort is the package's Abort, recording RolloutAborted.
func (dr Driver) Abort(ctx context.Context, namespace, name, reason string) (*Rollout, error) {
	return dr.change(ctx, namespace, name, func(_ *appsv1.DaemonSet, r *Rollout) (*Rollout, Event, error) {
		if r == nil {
			return nil, Event{}, ErrNoRollout
		}
		if r.Status.Phase == PhaseDone {
			return nil, Event{}, ErrFinished
		}
		next := r.clone()
		if reason == "" {
			reason = "aborted by 'rollout abort'"
		}
		next.Status.Phase, next.Status.Zone, next.Status.Reason = PhaseAborted, "", reason
		next.Status.Paused, next.Status.InFlight = nil, nil
		return next, Event{corev1.EventTypeWarning, ReasonRolloutAborted, fmt.Sprintf("rollout of revision %s aborted: %s", r.Status.Revision, reason)}, nil
	})
}

// Undo sets the DaemonSet's template back to the revision before the
// current one, as `kubectl rollout undo` does (revision.Rollback decides
// which), and starts a rollout of it under the same policy, without a
// canary: that revision ran before. One write does both, with the
// DaemonSet's resourceVersion as a precondition. It returns the number of
// the revision rolled back to.
//
// Undo is Driver{Client: client}.Undo: it records no Events.
func Undo(ctx context.Context, client kubernetes.Interface, namespace, name string) (int64, error) {
	return Driver{Client: client}.Undo(ctx, namespace, name)
}

// Undo is the package's Undo, recording RolledBack.
func (dr Driver) Undo(ctx context.Context, namespace, name string) (int64, error) {
	var to int64
	var err error
	for range conflictRetries {
		to, err = dr.undo(ctx, namespace, name)
		if !errors.Is(err, ErrConflict) {
			return to, err
		}
	}
	return 0, err
}

func (dr Driver) undo(ctx context.Context, namespace, name string) (int64, error) {
	client := dr.Client
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
	next := &Rollout{Policy: r.Policy.clone(), Status: RolloutState{Phase: PhaseCanary, SkipCanary: true, Restore: r.Status.Restore}}
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
	if err == nil {
		RecordEvents(dr.Recorder, s.DaemonSet, []Event{{corev1.EventTypeNormal, ReasonRolledBack,
			fmt.Sprintf("template set back to revision %d (%s); rolling it out under the same policy, without a canary", rb.Revision, rb.Name)}})
	}
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
