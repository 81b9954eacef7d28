package progressive

import (
	"fmt"
	"time"

	"github.com/daemonplan/daemonplan"
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
// driver's. What a simulation does not model: the step interval (the
// driver sees a new pod available at its next step, not at once), the
// gates (a new pod that fails or hangs stops the simulated rollout as a
// stall, not as a pause), and the operator: it promotes the canary as soon
// as it waits for the verdict, and resumes a pause point of the policy as
// soon as it is reached. Each such answer is recorded in Changes.
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
	if p := st.Paused; p != nil && p.By == ByPolicy {
		// `rollout resume`, at once.
		st.Paused = nil
		s.Changes = append(s.Changes, PhaseChange{At: c.Now, Phase: st.Phase, Zone: st.Zone, Answer: "resume", Reason: p.Reason})
	}
	c.Options.Progressive = ProgressiveOf(pol, st)
	return nil
}
