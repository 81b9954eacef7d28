package schema

import "time"

// Plan is one plan in the schema: everything a daemonplan.Plan holds, with
// every list present (never null) and sorted as the plan sorts it. The keys
// up to "warnings" are the conformance schema; the keys after it add what
// the conformance cases do not record.
type Plan struct {
	DaemonSet     Ref           `json:"daemonSet"`
	Nodes         []Node        `json:"nodes"`
	Create        []Create      `json:"create"`
	Delete        []Delete      `json:"delete"`
	Adopt         []string      `json:"adopt"`
	Release       []string      `json:"release"`
	Relabel       []Relabel     `json:"relabel"`
	Revisions     Revisions     `json:"revisions"`
	Status        Status        `json:"status"`
	RolloutStatus RolloutStatus `json:"rolloutStatus"`
	Errors        []string      `json:"errors"`
	Warnings      []Warning     `json:"warnings"`

	// KubernetesVersion is the Kubernetes minor whose controller the plan
	// reproduces ("1.37"); it decides the revision hash.
	KubernetesVersion string `json:"kubernetesVersion"`
	// StatusChanged is false when upstream would not write the status
	// (Status is then the input's).
	StatusChanged bool `json:"statusChanged"`
	// Hash is the current revision's hash: the controller-revision-hash of
	// new pods; empty when history could not be constructed.
	Hash string `json:"hash"`
	// Keep names the claimed pods the plan leaves alone, sorted.
	Keep []string `json:"keep"`
	// SkippedCreates and SkippedDeletes count what the burst limit cut.
	SkippedCreates int `json:"skippedCreates"`
	SkippedDeletes int `json:"skippedDeletes"`
	// RequeueAfter asks for another sync after that long (a Go duration,
	// "0s" for none).
	RequeueAfter string `json:"requeueAfter"`
	// Backoff is the failed-pod backoff state to carry to the next sync,
	// sorted by DaemonSet UID, observed generation and node.
	Backoff []Backoff `json:"backoff"`
	// Progress is what the opt-in rollout extensions decided (holds,
	// partition, canary, zone order); absent when none is on.
	Progress *Progress `json:"progress,omitempty"`
}

// Progress is rollout.Progress: what the progressive extensions decided
// in one sync. It is information, not a write.
type Progress struct {
	// Held is why the rolling update wrote nothing although outdated
	// nodes remain: NotHeld, Paused, Frozen, CanaryWaiting, CanaryAborted,
	// PartitionReached or OutOfScope.
	Held string `json:"held"`
	// Outdated counts the nodes holding an old pod and no new one; Allowed
	// those the extensions let the rolling update touch in this sync.
	Outdated int `json:"outdated"`
	Allowed  int `json:"allowed"`
	// Partition is how many nodes keep an old pod.
	Partition int `json:"partition"`
	// HeldCreates counts the creates partitioned scaling held back.
	HeldCreates int `json:"heldCreates"`
	// Canary is the canary's state, absent without a canary.
	Canary *CanaryProgress `json:"canary,omitempty"`
	// Zones is the group order, absent without one.
	Zones *ZoneProgress `json:"zones,omitempty"`
}

// CanaryProgress is rollout.CanaryProgress.
type CanaryProgress struct {
	// Phase is Running, WaitingVerdict, Promoted or Aborted.
	Phase string `json:"phase"`
	// Want is the number of canary nodes; Nodes names them, sorted.
	Want  int      `json:"want"`
	Nodes []string `json:"nodes"`
	// Failed names the canary pods beyond an auto-fail threshold, and
	// Reason says which threshold the first one crossed.
	Failed []string `json:"failed"`
	Reason string   `json:"reason,omitempty"`
	// RollbackTo and RollbackHash name the revision an aborted canary
	// rolls back to (kubectl rollout undo --to-revision); 0 and "" when
	// there is none.
	RollbackTo   int64  `json:"rollbackTo,omitempty"`
	RollbackHash string `json:"rollbackHash,omitempty"`
}

// ZoneProgress is rollout.ZoneProgress: the update groups, in update
// order.
type ZoneProgress struct {
	// Active are the groups the rolling update may touch now; Waiting the
	// groups with outdated nodes that wait for an active one.
	Active  []string `json:"active"`
	Waiting []string `json:"waiting"`
}

// Backoff is one failed-pod backoff window (placement.BackoffKey and
// BackoffEntry).
type Backoff struct {
	DaemonSetUID       string    `json:"daemonSetUID"`
	ObservedGeneration int64     `json:"observedGeneration"`
	Node               string    `json:"node"`
	Delay              string    `json:"delay"`
	LastUpdate         time.Time `json:"lastUpdate"`
}

// Ref names the DaemonSet.
type Ref struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// Node is the eligibility of one node.
type Node struct {
	Name                  string `json:"name"`
	ShouldRun             bool   `json:"shouldRun"`
	ShouldContinueRunning bool   `json:"shouldContinueRunning"`
	Reason                string `json:"reason"`
	Message               string `json:"message"`
}

// Create is one pod to create.
type Create struct {
	Node        string            `json:"node"`
	Labels      map[string]string `json:"labels"`
	Tolerations []Toleration      `json:"tolerations"`
	// Pod is the pod as admission leaves it and what kube-scheduler does
	// with it on Node; absent when the input says nothing beyond the
	// template: no LimitRange, PriorityClass or RuntimeClass, and no
	// status.allocatable on the node. Not part of the conformance schema.
	Pod *NewPod `json:"pod,omitempty"`
}

// NewPod is a daemon pod to be created, as the API server admits it
// (docs/overhead.md, AD1–AD7), and what kube-scheduler does with it on its
// node (SC1–SC9).
type NewPod struct {
	// Requests are its effective requests, as the scheduler counts them:
	// LimitRange defaults, limits standing for missing requests and the
	// RuntimeClass overhead included.
	Requests map[string]string `json:"requests"`
	// Priority and PreemptionPolicy are as admitted; PriorityClassName is
	// the class they come from ("" for none).
	Priority          int32  `json:"priority"`
	PriorityClassName string `json:"priorityClassName,omitempty"`
	PreemptionPolicy  string `json:"preemptionPolicy"`
	// Overhead is spec.overhead as admitted (from the RuntimeClass).
	Overhead map[string]string `json:"overhead,omitempty"`
	// Refused says why the API server refuses the pod: it is never
	// created, and Scheduling.Outcome is NotCreated.
	Refused []string `json:"refused,omitempty"`
	// Scheduling is null when the node lists no status.allocatable (and
	// the pod is not refused).
	Scheduling *Scheduling `json:"scheduling"`
}

// Scheduling is what kube-scheduler does with a daemon pod on its node
// (overhead.Scheduling).
type Scheduling struct {
	// Outcome is Fits, Pending, Preempts or NotCreated.
	Outcome string `json:"outcome"`
	// Reason says why a Pending pod does not preempt: PreemptionNever,
	// LargerThanNode, NoLowerPriority or PreemptionDoesNotHelp.
	Reason string `json:"reason,omitempty"`
	// Insufficient and PortConflicts say why the pod does not fit beside
	// the pods there (Pending or Preempts).
	Insufficient  []string `json:"insufficient,omitempty"`
	PortConflicts []string `json:"portConflicts,omitempty"`
	// Victims are the pods preempted, namespace/name, the most important
	// first; PDBViolations counts those a PodDisruptionBudget protects.
	Victims       []string `json:"victims,omitempty"`
	PDBViolations int      `json:"pdbViolations,omitempty"`
	// Beside names the DaemonSet's own pods counted on the node: an old
	// pod the new one is created beside (maxSurge), or one still
	// terminating.
	Beside []string `json:"beside,omitempty"`
}

// Toleration is a created pod's toleration; omitted fields are left out.
type Toleration struct {
	Key               string `json:"key,omitempty"`
	Operator          string `json:"operator,omitempty"`
	Value             string `json:"value,omitempty"`
	Effect            string `json:"effect,omitempty"`
	TolerationSeconds *int64 `json:"tolerationSeconds,omitempty"`
}

// Delete is one pod to delete.
type Delete struct {
	Pod    string `json:"pod"`
	Node   string `json:"node"`
	Reason string `json:"reason"`
}

// Relabel is one pod whose controller-revision-hash label is rewritten.
type Relabel struct {
	Pod  string `json:"pod"`
	Hash string `json:"hash"`
}

// Revisions are the ControllerRevision writes of the sync.
type Revisions struct {
	Create []Revision `json:"create"`
	Update []Revision `json:"update"`
	Delete []string   `json:"delete"`
	Adopt  []string   `json:"adopt"`
	// Release names owned revisions the DaemonSet no longer selects; not in
	// the conformance cases.
	Release []string `json:"release"`
}

// Revision is a ControllerRevision created or renumbered.
type Revision struct {
	Name     string `json:"name"`
	Revision int64  `json:"revision"`
	Hash     string `json:"hash"`
}

// Status is the DaemonSet status the sync writes.
type Status struct {
	CurrentNumberScheduled int32  `json:"currentNumberScheduled"`
	NumberMisscheduled     int32  `json:"numberMisscheduled"`
	DesiredNumberScheduled int32  `json:"desiredNumberScheduled"`
	NumberReady            int32  `json:"numberReady"`
	ObservedGeneration     int64  `json:"observedGeneration"`
	UpdatedNumberScheduled int32  `json:"updatedNumberScheduled"`
	NumberAvailable        int32  `json:"numberAvailable"`
	NumberUnavailable      int32  `json:"numberUnavailable"`
	CollisionCount         *int32 `json:"collisionCount,omitempty"`
}

// RolloutStatus is what `kubectl rollout status` prints.
type RolloutStatus struct {
	Message string `json:"message"`
	Done    bool   `json:"done"`
}

// Warning is a validation finding.
type Warning struct {
	Field  string `json:"field"`
	Type   string `json:"type"`
	Detail string `json:"detail"`
	// Message is the finding as the API server would word it, bad value
	// included: `spec.updateStrategy.rollingUpdate.maxSurge: Invalid
	// value: "abc%": ...`.
	Message string `json:"message"`
}
