package progressive

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/tools/reference"

	"github.com/daemonplan/daemonplan/kube/apply"
)

// The reasons of the Events a Driver records on the DaemonSet, in
// upstream's style (CamelCase, what happened). The pod deletes reuse the
// reasons and messages of upstream's DaemonSet controller, which records
// the same deletes under RollingUpdate.
const (
	ReasonRolloutStarted   = "RolloutStarted"             // Normal: `rollout start` recorded a policy
	ReasonNewRevision      = "NewRevision"                // Normal: the template changed mid-rollout; the rollout starts again from the canary
	ReasonPhaseChanged     = "PhaseChanged"               // Normal: the rollout entered a phase (a zone, the rest)
	ReasonRolloutPaused    = "RolloutPaused"              // Normal: paused by the user or a pause point of the policy
	ReasonRolloutResumed   = "RolloutResumed"             // Normal: `rollout resume`
	ReasonGateFailed       = "GateFailed"                 // Warning: a new pod failed a health gate: the pod and why
	ReasonCanaryPromoted   = "CanaryPromoted"             // Normal: `rollout promote`
	ReasonRolloutAborted   = "RolloutAborted"             // Warning: by `rollout abort` or a failed gate
	ReasonRolledBack       = "RolledBack"                 // Normal: `rollout undo` set the template back
	ReasonRolloutComplete  = "RolloutComplete"            // Normal: every node runs an available pod of the revision
	ReasonStrategyRestored = "UpdateStrategyRestored"     // Normal: the strategy `start --switch-strategy` switched from, written back at the end
	ReasonSuccessfulDelete = apply.ReasonSuccessfulDelete // Normal: an outdated pod deleted (upstream's)
	ReasonFailedDelete     = apply.ReasonFailedDelete     // Warning: a pod delete refused (upstream's)
)

// EventSource is the component a Driver's Events are recorded as.
const EventSource = "daemonplan-rollout"

// Event is one Event a step or a command records on the DaemonSet.
type Event struct {
	// Type is corev1.EventTypeNormal or corev1.EventTypeWarning.
	Type    string
	Reason  string
	Message string
}

// String renders e as record.FakeRecorder does: "Type Reason Message".
func (e Event) String() string { return e.Type + " " + e.Reason + " " + e.Message }

// RecordEvents records evs on rec, about ds, in order. A nil rec or ds
// records nothing.
func RecordEvents(rec record.EventRecorder, ds *appsv1.DaemonSet, evs []Event) {
	if rec == nil || ds == nil {
		return
	}
	for _, e := range evs {
		rec.Event(ds, e.Type, e.Reason, e.Message)
	}
}

// stepEvents are the Events of a step that wrote next over prev: the
// phase and pause changes, each gate failure (failed: the new ones, by
// pod UID, with why), and the outcome of each delete issued.
func stepEvents(prev, next *RolloutState, failed []gateFailure, deletes []PodDelete) []Event {
	var out []Event
	normal := func(reason, format string, args ...any) {
		out = append(out, Event{corev1.EventTypeNormal, reason, fmt.Sprintf(format, args...)})
	}
	warn := func(reason, format string, args ...any) {
		out = append(out, Event{corev1.EventTypeWarning, reason, fmt.Sprintf(format, args...)})
	}
	if prev.Revision != "" && next.Revision != prev.Revision {
		normal(ReasonNewRevision, "the template changed: rolling out revision %s under the same policy, from the canary", next.Revision)
	}
	// Gate failures, each pod once while the pause or abort it caused
	// lasts.
	var known []types.UID
	if p := prev.Paused; p != nil && p.By == ByGate {
		known = p.Pods
	}
	for _, f := range failed {
		if !slices.Contains(known, f.uid) {
			warn(ReasonGateFailed, "%s", f.why)
		}
	}
	switch {
	case next.Phase == PhaseAborted && prev.Phase != PhaseAborted:
		warn(ReasonRolloutAborted, "rollout of revision %s aborted: %s", next.Revision, next.Reason)
	case next.Phase == PhaseDone && prev.Phase != PhaseDone:
		normal(ReasonRolloutComplete, "every node runs an available pod of revision %s", next.Revision)
		if r := prev.Restore; r != nil && next.Restore == nil {
			normal(ReasonStrategyRestored, "updateStrategy switched back to %s", r.Type)
		}
	case next.Revision != prev.Revision && prev.Revision != "":
		// NewRevision says it: the rollout starts again.
	case prev.Revision == "" && (next.Phase != prev.Phase || next.Zone != prev.Zone):
		// The first step after start or undo: the canary phase was only
		// where the rollout begins.
		normal(ReasonPhaseChanged, "phase %s", phaseText(next))
	case next.Phase != prev.Phase || next.Zone != prev.Zone:
		normal(ReasonPhaseChanged, "phase %s (was %s)", phaseText(next), phaseText(prev))
	}
	if p := next.Paused; p != nil && p.By != ByGate && (prev.Paused == nil || prev.Paused.By != p.By || prev.Paused.Reason != p.Reason) {
		normal(ReasonRolloutPaused, "paused by %s: %s", p.By, p.Reason)
	}
	if p := next.Paused; p != nil && p.By == ByGate && (prev.Paused == nil || prev.Paused.By != ByGate) {
		warn(ReasonRolloutPaused, "paused by %s: %s", p.By, p.Reason)
	}
	for _, d := range deletes {
		if d.Err != nil {
			warn(ReasonFailedDelete, "Error deleting: %v", d.Err)
			continue
		}
		normal(ReasonSuccessfulDelete, "Deleted pod: %v", d.Pod)
	}
	return out
}

// phaseText names a phase in messages: "Canary", "Zone a", "Rest".
func phaseText(st *RolloutState) string {
	switch {
	case st.Phase == "":
		return "none"
	case st.Phase == PhaseZone:
		return "Zone " + st.Zone
	}
	return string(st.Phase)
}

// policyText sums a policy up for RolloutStarted.
func policyText(p Policy) string {
	d := p.Defaulted()
	var parts []string
	if c := d.Canary; c != nil {
		s := "canary " + countString(c.Nodes)
		if c.Selector != nil {
			s += " of " + metav1.FormatLabelSelector(c.Selector)
		}
		parts = append(parts, s)
	}
	if z := d.Zones; z != nil {
		order := "by label " + z.Key
		if len(z.Order) > 0 {
			order = strings.Join(z.Order, ", ")
		}
		parts = append(parts, "zones "+order)
	}
	parts = append(parts, "maxUnavailable "+countString(d.MaxUnavailable))
	return strings.Join(parts, ", ")
}

// APIRecorder is a record.EventRecorder that writes each Event at once,
// with one create of a core/v1 Event in the DaemonSet's namespace: no
// aggregation, no retry and no goroutine, so that a command that exits
// right after its writes loses none (client-go's broadcaster writes
// from a goroutine and drops what is queued when it is shut down). A
// failed create is given to OnError (nil: dropped); it never fails the
// step or command that recorded it.
type APIRecorder struct {
	Client kubernetes.Interface
	// Component is the Event's source (default EventSource).
	Component string
	// Now is the clock of the Events' timestamps (default time.Now).
	Now func() time.Time
	// OnError gets each Event that could not be written, with why.
	OnError func(reason string, err error)

	mu  sync.Mutex
	seq int64
}

var _ record.EventRecorder = (*APIRecorder)(nil)

// Event writes one Event about object.
func (r *APIRecorder) Event(object runtime.Object, eventtype, reason, message string) {
	r.write(object, nil, eventtype, reason, message)
}

// Eventf is Event with a message format.
func (r *APIRecorder) Eventf(object runtime.Object, eventtype, reason, messageFmt string, args ...any) {
	r.write(object, nil, eventtype, reason, fmt.Sprintf(messageFmt, args...))
}

// AnnotatedEventf is Eventf with annotations on the Event.
func (r *APIRecorder) AnnotatedEventf(object runtime.Object, annotations map[string]string, eventtype, reason, messageFmt string, args ...any) {
	r.write(object, annotations, eventtype, reason, fmt.Sprintf(messageFmt, args...))
}

func (r *APIRecorder) write(object runtime.Object, annotations map[string]string, eventtype, reason, message string) {
	fail := func(err error) {
		if r.OnError != nil {
			r.OnError(reason, err)
		}
	}
	ref, err := reference.GetReference(scheme.Scheme, object)
	if err != nil {
		fail(err)
		return
	}
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	component := r.Component
	if component == "" {
		component = EventSource
	}
	t := metav1.NewTime(now())
	r.mu.Lock()
	r.seq++
	seq := r.seq
	r.mu.Unlock()
	ns := ref.Namespace
	if ns == "" {
		ns = metav1.NamespaceDefault
	}
	ev := &corev1.Event{
		// The name as client-go's recorder makes it, made unique within
		// this recorder by a sequence number for Events of the same
		// nanosecond.
		ObjectMeta:     metav1.ObjectMeta{Name: fmt.Sprintf("%s.%x", ref.Name, t.UnixNano()+seq), Namespace: ns, Annotations: annotations},
		InvolvedObject: *ref,
		Reason:         reason,
		Message:        message,
		Source:         corev1.EventSource{Component: component},
		FirstTimestamp: t,
		LastTimestamp:  t,
		Count:          1,
		Type:           eventtype,
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := r.Client.CoreV1().Events(ns).Create(ctx, ev, metav1.CreateOptions{}); err != nil {
		fail(err)
	}
}
