// Package progressive rolls a stock apps/v1 DaemonSet out progressively on
// a live cluster: a canary, then zone by zone, then the rest, under one
// cluster-wide budget, with health gates, pause, resume, promote, abort
// and undo. It is the engine of `daemonplan rollout`.
//
// # Who does what
//
// The DaemonSet stays a stock DaemonSet with `updateStrategy: OnDelete`.
// The cluster's own DaemonSet controller creates every pod: on a node
// without one, from the current template. This package only decides which
// outdated pods to delete, and when, and deletes them. It never creates a
// pod and never changes the template, but in Undo.
//
// The decision is the core planner's, not a second copy of its rules: a
// step runs daemonplan.Sync (through kubesync.Input, with upstream's
// revision hash) on the DaemonSet as if its strategy were RollingUpdate
// with the policy's maxUnavailable and maxSurge 0, and with
// rollout.Progressive built from the rollout's phase:
//
//  1. canary: Canary{Nodes, Selector} with no verdict, until `rollout
//     promote`: the core takes at most that many nodes to the new
//     revision and then holds (CanaryWaiting);
//  2. zone Z: Scope {zones.key In [Z]}: only Z's nodes are touched;
//  3. rest: no filter;
//  4. paused, done or aborted: Pause (nothing is deleted).
//
// StrictBudgets comes from the policy in every phase, and the budget is
// always the cluster's. Of the plan, only the rolling update's deletes
// (placement.Outdated) of pods the DaemonSet controls are issued; creates
// and manage's deletes are the controller's. Surge is refused: under
// OnDelete the controller creates a pod only where none is.
//
// # State on the cluster, and the lock
//
// The policy and the state (phase, the revision hash rolled out, pause and
// why, the pods whose deletes are in flight) are one JSON document in the
// DaemonSet's annotation daemonplan.io/rollout (Rollout). A step:
//
//  1. reads the DaemonSet, every node, its pods and its ControllerRevisions
//     (package live);
//  2. decides, without I/O;
//  3. writes the new state with a merge patch carrying the DaemonSet's
//     resourceVersion: a Conflict (ErrConflict) means another driver, a
//     user or the controller wrote the DaemonSet since; the step then
//     deletes nothing;
//  4. only then deletes the pods it recorded, each with its UID and
//     resourceVersion as preconditions.
//
// A pod recorded in flight counts as being deleted (its node unavailable)
// until the cluster shows it gone or terminating; a later step that finds
// it still running deletes it again unless the rollout was paused or
// aborted meanwhile. So a driver killed between 3 and 4, or two drivers
// at once, never take more nodes down than the budget.
//
// # Gates
//
// Every live pod of the revision rolled out is judged at each step: one
// that failed, restarted more than gates.maxRestarts times, or is not
// Ready gates.readyDeadline after its creation pauses the rollout (or
// aborts it, gates.onFailure). Resume waives the pods that failed.
//
// # Entry points
//
//   - Policy, Policy.Validate, Policy.Defaulted, DecodePolicy: the policy
//     document;
//   - Rollout, Status, Parse, Decode, Annotation: the state on the
//     DaemonSet;
//   - Step: one step of a rollout;
//   - Start, Pause, Resume, Promote, Abort, Undo, Get: the commands, each
//     one write of the annotation with the resourceVersion as a
//     precondition, retried from a fresh read after a Conflict;
//   - Driver: the same steps and commands, recording an Event on the
//     DaemonSet at each change (the Reason constants) with its Recorder;
//     APIRecorder writes each Event at once, RecordEvents records a list.
//
// # Events
//
// A Driver records, after the write that made the change: RolloutStarted,
// PhaseChanged, RolloutPaused (Warning when a gate paused), RolloutResumed,
// GateFailed (Warning, one per pod, with the pod, its node and why),
// CanaryPromoted, RolloutAborted (Warning), RolledBack, RolloutComplete,
// NewRevision, and upstream's SuccessfulDelete or FailedDelete for each
// pod delete. A write that fails (a Conflict) records nothing.
//
// It reads no clock (Step takes now), logs nothing and starts no
// goroutines. It drives one DaemonSet per call: a long-running driver
// calls Step in a loop.
package progressive
