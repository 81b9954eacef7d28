package progressive

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonplan/daemonplan/field"
)

// Annotation is the DaemonSet annotation that holds the rollout: its
// policy and its state, one JSON document (Rollout). Every driver reads it
// and writes it back with the DaemonSet's resourceVersion as a
// precondition, so that it is also the lock.
const Annotation = "daemonplan.io/rollout"

// Rollout is the document of the Annotation.
type Rollout struct {
	// Policy is the policy the rollout runs under, as `rollout start` was
	// given it (not defaulted).
	Policy Policy `json:"policy"`
	// Status is where the rollout stands.
	Status RolloutState `json:"status"`
}

// Phase is where a rollout stands.
type Phase string

// The phases, in the order a rollout goes through them. Canary and the
// zone phases are skipped when the policy has none.
const (
	// PhaseCanary: the canary nodes are updated, then the rollout waits
	// for `rollout promote`.
	PhaseCanary Phase = "Canary"
	// PhaseZone: the nodes of Status.Zone are updated.
	PhaseZone Phase = "Zone"
	// PhaseRemaining: every node left is updated.
	PhaseRemaining Phase = "Rest"
	// PhaseDone: every node runs an available pod of Status.Revision.
	PhaseDone Phase = "Done"
	// PhaseAborted: no more deletes for Status.Revision. The template is
	// left as it is; `rollout undo` rolls the previous revision out.
	PhaseAborted Phase = "Aborted"
)

var phases = []string{string(PhaseCanary), string(PhaseZone), string(PhaseRemaining), string(PhaseDone), string(PhaseAborted)}

// RolloutState is the state of a rollout, kept on the DaemonSet.
type RolloutState struct {
	// Revision is the controller-revision-hash being rolled out; empty
	// until the first step after `rollout start`, which takes the
	// DaemonSet's current one.
	Revision string `json:"revision,omitempty"`
	Phase    Phase  `json:"phase"`
	// Zone is the zone of PhaseZone.
	Zone string `json:"zone,omitempty"`
	// Zones is the zone order, resolved when the first zone phase starts.
	Zones []string `json:"zones,omitempty"`
	// Promoted records `rollout promote` for Revision.
	Promoted bool `json:"promoted,omitempty"`
	// SkipCanary is set by `rollout undo`: the revision rolled back to
	// ran before, so no canary gates it.
	SkipCanary bool `json:"skipCanary,omitempty"`
	// Paused, when set, stops every delete.
	Paused *PauseState `json:"paused,omitempty"`
	// Reason says why the rollout aborted (PhaseAborted).
	Reason string `json:"reason,omitempty"`
	// Waived are the UIDs of new pods that failed a gate before `rollout
	// resume` acknowledged them: the gates no longer judge them.
	Waived []types.UID `json:"waived,omitempty"`
	// InFlight are the pods whose deletes were decided and recorded here
	// before they were issued. They count as unavailable until the
	// cluster shows them gone or terminating.
	InFlight []InFlight `json:"inFlight,omitempty"`
	// Replacing are the nodes whose old pod a step decided to delete,
	// and when, until a step sees their new pod available: the measure
	// of the ETA.
	Replacing []Replacing `json:"replacing,omitempty"`
	// Replaced counts the replacements measured (delete decided to new
	// pod available, as the steps saw them) and ReplaceTime sums their
	// times: their mean is the ETA's time per node.
	Replaced    int             `json:"replaced,omitempty"`
	ReplaceTime metav1.Duration `json:"replaceTime,omitempty"`
	// Restore is the updateStrategy `rollout start --switch-strategy`
	// switched from: the step that finds the rollout done writes it
	// back (and clears it).
	Restore *appsv1.DaemonSetUpdateStrategy `json:"restoreStrategy,omitempty"`
	// Generation is the DaemonSet's metadata.generation the last step
	// saw: a finished rollout at the DaemonSet's generation cannot move
	// (StepAll skips it).
	Generation int64 `json:"generation,omitempty"`
	// Updated is when a driver last wrote the status.
	Updated metav1.Time `json:"updated,omitempty"`
}

// Replacing is a node being replaced: its old pod's delete was decided
// at Since.
type Replacing struct {
	Node  string           `json:"node"`
	Since metav1.MicroTime `json:"since"`
}

// PauseState says who paused a rollout and why.
type PauseState struct {
	// By is User (`rollout pause`), Gate (a new pod failed a gate) or
	// Policy (a pause point).
	By     PauseBy `json:"by"`
	Reason string  `json:"reason,omitempty"`
	// Pods are the UIDs of the pods that failed a gate.
	Pods []types.UID `json:"pods,omitempty"`
}

// PauseBy says who paused a rollout.
type PauseBy string

// Who pauses.
const (
	ByUser   PauseBy = "User"
	ByGate   PauseBy = "Gate"
	ByPolicy PauseBy = "Policy"
)

// InFlight is a pod delete decided by a step.
type InFlight struct {
	Pod  string    `json:"pod"`
	UID  types.UID `json:"uid"`
	Node string    `json:"node,omitempty"`
}

// ErrNoRollout reports a DaemonSet without the Annotation: no rollout was
// started.
var ErrNoRollout = errors.New("no progressive rollout on this DaemonSet (annotation " + Annotation + "): run 'rollout start'")

// Parse reads the rollout of ds from its Annotation: ErrNoRollout when
// there is none, else a decoding error or the validation errors
// (field.ErrorList, paths rooted at "policy" and "status"). Unknown fields
// are refused. ds is not changed.
func Parse(ds *appsv1.DaemonSet) (*Rollout, error) {
	raw, ok := ds.Annotations[Annotation]
	if !ok {
		return nil, ErrNoRollout
	}
	r, err := Decode([]byte(raw))
	if err != nil {
		return nil, fmt.Errorf("annotation %s of daemonset %s/%s: %w", Annotation, ds.Namespace, ds.Name, err)
	}
	return r, nil
}

// Decode decodes and validates a rollout document (see Parse).
func Decode(data []byte) (*Rollout, error) {
	var r Rollout
	if err := strictJSON(data, &r); err != nil {
		return nil, err
	}
	if errs := r.Validate(); len(errs) > 0 {
		return nil, errs
	}
	return &r, nil
}

// DecodePolicy decodes and validates a policy document, as
// `rollout start --policy FILE` reads it; unknown fields are refused.
func DecodePolicy(data []byte) (Policy, error) {
	var p Policy
	if err := strictJSON(data, &p); err != nil {
		return Policy{}, err
	}
	if errs := p.Validate(); len(errs) > 0 {
		return Policy{}, errs
	}
	return p, nil
}

func strictJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("more than one JSON document")
	}
	return nil
}

// Validate checks the policy (Policy.Validate) and the status: a known
// phase, a zone with PhaseZone, a known pauser, in-flight pods with a
// name and a UID.
func (r *Rollout) Validate() field.ErrorList {
	errs := r.Policy.Validate()
	sp := field.NewPath("status")
	st := &r.Status
	if !slices.Contains(phases, string(st.Phase)) {
		errs = append(errs, field.NotSupported(sp.Child("phase"), string(st.Phase), phases...))
	}
	if st.Phase == PhaseZone && st.Zone == "" {
		errs = append(errs, field.Required(sp.Child("zone"), "the zone of phase Zone"))
	}
	if p := st.Paused; p != nil && p.By != ByUser && p.By != ByGate && p.By != ByPolicy {
		errs = append(errs, field.NotSupported(sp.Child("paused", "by"), string(p.By), string(ByUser), string(ByGate), string(ByPolicy)))
	}
	for i, f := range st.InFlight {
		ip := sp.Child("inFlight").Index(i)
		if f.Pod == "" {
			errs = append(errs, field.Required(ip.Child("pod"), ""))
		}
		if f.UID == "" {
			errs = append(errs, field.Required(ip.Child("uid"), ""))
		}
	}
	return errs
}

// Encode renders r as the Annotation's value.
func (r *Rollout) Encode() (string, error) {
	b, err := json.Marshal(r)
	return string(b), err
}

// clone returns a deep copy of r.
func (r *Rollout) clone() *Rollout {
	out := &Rollout{Policy: r.Policy.clone(), Status: r.Status}
	st := &out.Status
	st.Zones = slices.Clone(st.Zones)
	st.Waived = slices.Clone(st.Waived)
	st.InFlight = slices.Clone(st.InFlight)
	st.Replacing = slices.Clone(st.Replacing)
	st.Restore = st.Restore.DeepCopy()
	if st.Paused != nil {
		p := *st.Paused
		p.Pods = slices.Clone(p.Pods)
		st.Paused = &p
	}
	return out
}
