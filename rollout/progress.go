package rollout

import (
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/internal/base/enum"
	"github.com/daemonplan/daemonplan/revision"
)

// Hold says why the progressive extensions kept the rolling update from
// writing while outdated nodes remain.
type Hold uint8

// The holds. The zero value is no hold.
const (
	NotHeld Hold = iota
	// Paused: Progressive.Pause is set.
	Paused
	// Frozen: Progressive.Freeze is set.
	Frozen
	// CanaryWaiting: every canary node runs an available pod of the
	// current revision; the rollout waits for a verdict.
	CanaryWaiting
	// CanaryAborted: the canary was aborted, by verdict or by AutoFail.
	CanaryAborted
	// PartitionReached: every outdated node the partition lets go has
	// gone.
	PartitionReached
	// OutOfScope: every outdated node left is outside Scope.
	OutOfScope
)

var holdNames = [...]string{
	NotHeld:          "NotHeld",
	Paused:           "Paused",
	Frozen:           "Frozen",
	CanaryWaiting:    "CanaryWaiting",
	CanaryAborted:    "CanaryAborted",
	PartitionReached: "PartitionReached",
	OutOfScope:       "OutOfScope",
}

// String returns the hold's name.
func (h Hold) String() string {
	return enum.Name(holdNames[:], int(h), "Hold")
}

// Progress reports what the progressive extensions decided in one sync.
// It is information, not a write; the zero value means no extension is on.
type Progress struct {
	// Held is why the rolling update wrote nothing although Outdated is
	// not zero; NotHeld when it wrote, or only waits for its budgets.
	Held Hold
	// Outdated counts the nodes holding an old pod and no new one, as the
	// sync found them.
	Outdated int
	// Allowed counts the outdated nodes the extensions let the rolling
	// update touch in this sync (before budgets); the others keep their
	// pods.
	Allowed int
	// Partition is the resolved partition: how many nodes keep an old pod.
	Partition int
	// HeldCreates counts the creates of manage that PartitionedScaling held
	// back.
	HeldCreates int
	// Canary is the canary's state; nil without Progressive.Canary.
	Canary *CanaryProgress
	// Zones is the group order; nil without Progressive.Zones, or while a
	// canary gates the rollout.
	Zones *ZoneProgress
}

// CanaryPhase is where a canary stands.
type CanaryPhase uint8

// The canary phases.
const (
	// PhaseRunning: the canary nodes are being updated, or they cover
	// every outdated node.
	PhaseRunning CanaryPhase = iota + 1
	// PhaseWaiting: the canary nodes run available pods of the
	// current revision; other nodes wait for Promote.
	PhaseWaiting
	// PhasePromoted: the current revision is promoted; the canary no
	// longer gates.
	PhasePromoted
	// PhaseAborted: the current revision was aborted; the rollout
	// writes nothing and RollbackTo names the revision to return to.
	PhaseAborted
)

var phaseNames = [...]string{
	PhaseRunning:  "Running",
	PhaseWaiting:  "WaitingVerdict",
	PhasePromoted: "Promoted",
	PhaseAborted:  "Aborted",
}

// String returns the phase's name.
func (p CanaryPhase) String() string {
	return enum.Name(phaseNames[:], int(p), "CanaryPhase")
}

// CanaryProgress is the canary's state in one sync.
type CanaryProgress struct {
	Phase CanaryPhase
	// Want is Canary.Nodes resolved against the desired nodes.
	Want int
	// Nodes are the canary nodes, sorted; empty once promoted.
	Nodes []string
	// Failed names the canary pods beyond an AutoFail threshold, sorted,
	// and Reason says which threshold the first one crossed.
	Failed []string
	Reason string
	// RollbackTo is, when Phase is Aborted, the revision number to roll
	// back to (`kubectl rollout undo --to-revision`): the newest old
	// revision the caller promoted, else the newest old revision; 0 when
	// there is none. RollbackHash is its hash. daemonplan.Sync fills both
	// (see RollbackTarget). The caller rolls back, records Abort for the
	// aborted hash and Promote for RollbackHash: a revision the cluster
	// returns to is known good, and a canary would otherwise gate the
	// rollback itself.
	RollbackTo   int64
	RollbackHash string
}

// ZoneProgress is the group order in one sync. Each list is in update
// order.
type ZoneProgress struct {
	// Active are the groups the rolling update may touch now.
	Active []string
	// Waiting are groups with outdated nodes that wait for an active one
	// to finish.
	Waiting []string
}

// RollbackTarget returns the revision an aborted canary rolls back to, and
// its hash: the newest of old whose hash c promotes, else the newest of
// old, else 0 and "".
func (c *Canary) RollbackTarget(old []revision.Revision) (int64, string) {
	var newest, promoted *revision.Revision
	for i := range old {
		r := &old[i]
		if newest == nil || r.Revision > newest.Revision {
			newest = r
		}
		if c != nil && c.Verdicts[r.Labels[api.LabelRevisionHash]] == Promote && (promoted == nil || r.Revision > promoted.Revision) {
			promoted = r
		}
	}
	switch {
	case promoted != nil:
		return promoted.Revision, promoted.Labels[api.LabelRevisionHash]
	case newest != nil:
		return newest.Revision, newest.Labels[api.LabelRevisionHash]
	}
	return 0, ""
}
