package progressive

import (
	"fmt"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/rollout"
	"github.com/daemonplan/daemonplan/sim"
)

// Simulation moves a progressive rollout's phases through a simulated
// cluster (package sim) as Step moves them on a live one, with the same
// rules: the DaemonSet is planned as PlanAs sets it, and before each sync
// (timeline.Options.BeforeSync) BeforeSync plans the cluster under the
// current phase, moves the phase (Advance, on View of that plan) and sets
// the cluster's Options.Progressive (ProgressiveOf) for the sync.
//
// In the simulated cluster the core's plan is applied whole: its creates
// stand for the DaemonSet controller's, which creates a pod on every node
// without one under OnDelete too, and its deletes of outdated pods for the
// driver's. The health gates judge the simulated pods by the live step's
// rule: a new pod that fails, restarts more than maxRestarts times (a
// crash-looping pod, sim.CrashLoop, restarting on the cluster's back-off),
// or is not Ready by the ready deadline, pauses or aborts the rollout
// (Wake asks for a sync at that deadline and at that restart). A gate's pause
// is not answered: the simulated rollout stops there, as a stall. What a
// simulation does not model: the step interval (the driver sees a new pod
// available at its next step, not at once), and the operator: it promotes
// the canary as soon as it waits for the verdict, and resumes a pause
// point of the policy as soon as it is reached. Each such answer, and each
// gate that fired, is recorded in Changes.
type Simulation struct {
	// Policy is the rollout's policy, defaulted.
	Policy Policy
	// State is where the simulated rollout stands.
	State RolloutState
	// Changes are the phases the rollout entered, in order, and the
	// operator's answers the simulation assumed.
	Changes []PhaseChange
}

// PhaseChange is a simulated rollout's move.
type PhaseChange struct {
	// At is the simulated time of the sync before which it happened.
	At time.Time
	// Phase and Zone are the phase entered (the same as the last change's
	// for an answer that does not move the phase).
	Phase Phase
	Zone  string
	// Answer is the operator's answer assumed at once, if any: "promote"
	// (the canary waited for its verdict), or "resume" (a pause point of
	// the policy); Reason says which pause.
	Answer string
	Reason string
	// Gate is set when a health gate fired before the sync: the reason
	// it paused or aborted the rollout (then Phase is Aborted).
	Gate string
}

// NewSimulation returns a simulation of a rollout under pol, which must
// be valid (Policy.Validate).
func NewSimulation(pol Policy) *Simulation {
	return &Simulation{Policy: pol.Defaulted()}
}

// Prepare sets c's DaemonSet as the driver plans it (PlanAs): call it
// once, before timeline.Run. c must not be tracked.
func (s *Simulation) Prepare(c *sim.Cluster) {
	PlanAs(&c.DaemonSet, s.Policy)
}

// BeforeSync moves the phase before a sync of c, as a step does before it
// plans, and sets c.Options.Progressive for that sync. It is meant for
// timeline.Options.BeforeSync.
func (s *Simulation) BeforeSync(c *sim.Cluster) error {
	pol, st := s.Policy, &s.State
	c.Options.Progressive = ProgressiveOf(pol, st)
	in := c.Input()
	probe, err := daemonplan.Sync(in, c.Options)
	if err != nil {
		return err
	}
	if probe.Hash == "" || len(probe.Errors) > 0 {
		return fmt.Errorf("the plan has no revision hash or failed: %v", probe.Errors)
	}
	if st.Revision != probe.Hash {
		restart(st, probe.Hash)
	}
	if st.Phase == "" {
		st.Phase = PhaseCanary
	}
	if st.Phase == PhaseCanary && !st.Promoted && st.Paused == nil && probe.Progress.Canary != nil && probe.Progress.Canary.Phase == rollout.PhaseWaiting {
		// `rollout promote`, at once.
		st.Promoted = true
		s.Changes = append(s.Changes, PhaseChange{At: c.Now, Phase: st.Phase, Zone: st.Zone, Answer: "promote"})
	}
	phase, zone := st.Phase, st.Zone
	Advance(st, pol, View(in, c.DaemonSet.UID, probe, pol, probe.Hash, c.Now), in.Nodes)
	if st.Phase != phase || st.Zone != zone || len(s.Changes) == 0 {
		s.Changes = append(s.Changes, PhaseChange{At: c.Now, Phase: st.Phase, Zone: st.Zone})
	}
	s.gate(c, probe.Hash)
	if p := st.Paused; p != nil && p.By == ByPolicy {
		// `rollout resume`, at once.
		st.Paused = nil
		s.Changes = append(s.Changes, PhaseChange{At: c.Now, Phase: st.Phase, Zone: st.Zone, Answer: "resume", Reason: p.Reason})
	}
	c.Options.Progressive = ProgressiveOf(pol, st)
	return nil
}

// gate judges the new pods of c (those of hash, live, the DaemonSet's)
// before a sync, as a live step does, and records a gate that fired.
func (s *Simulation) gate(c *sim.Cluster, hash string) {
	st := &s.State
	if st.Phase == PhaseDone || st.Phase == PhaseAborted || st.Paused != nil && st.Paused.By == ByGate {
		return
	}
	var failures []gateFailure
	for _, p := range s.newPods(c, hash) {
		if why := judge(*s.Policy.Gates, p.Phase == api.PodFailed, c.Restarts(p.Name), p.Ready, c.Now.Sub(p.Created)); why != "" {
			failures = append(failures, gateFailure{types.UID(p.UID), fmt.Sprintf("pod %s on node %s %s", p.Name, p.NodeName, why)})
		}
	}
	if failGate(st, s.Policy, failures) == nil {
		return
	}
	reason := st.Reason
	if st.Paused != nil {
		reason = st.Paused.Reason
	}
	s.Changes = append(s.Changes, PhaseChange{At: c.Now, Phase: st.Phase, Zone: st.Zone, Gate: reason})
}

// Wake is how long from c.Now until the first moment a gate can fail a
// new pod: one second after the ready deadline of a pod not Ready yet (the
// simulation's grain), or the restart of a crash-looping pod beyond
// maxRestarts; 0 when no gate can fail. It is meant for
// timeline.Options.Wake.
func (s *Simulation) Wake(c *sim.Cluster) time.Duration {
	st := &s.State
	if st.Revision == "" || st.Phase == PhaseDone || st.Phase == PhaseAborted || st.Paused != nil {
		return 0
	}
	var next time.Duration
	soonest := func(at time.Time) {
		if d := at.Sub(c.Now); d > 0 && (next == 0 || d < next) {
			next = d
		}
	}
	for _, p := range s.newPods(c, st.Revision) {
		if p.Ready || p.Phase == api.PodFailed {
			continue
		}
		soonest(p.Created.Add(s.Policy.Gates.ReadyDeadline.Duration + time.Second))
		if at, ok := c.RestartAt(p.Name, *s.Policy.Gates.MaxRestarts+1); ok {
			soonest(at)
		}
	}
	return next
}

// newPods are c's live pods of the DaemonSet and of hash, by name.
func (s *Simulation) newPods(c *sim.Cluster, hash string) []*api.Pod {
	var out []*api.Pod
	for i := range c.Pods {
		p := &c.Pods[i]
		if p.Deleting || p.Controller == nil || p.Controller.UID != c.DaemonSet.UID || p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] != hash ||
			slices.Contains(s.State.Waived, types.UID(p.UID)) {
			continue
		}
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b *api.Pod) int { return strings.Compare(a.Name, b.Name) })
	return out
}
