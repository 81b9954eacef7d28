package conformance

import "encoding/json"

// Plan is the plan schema printed by `daemonplan plan -o json`.
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
}

// Expected is an expected.json: upstream's plan and, for a
// non-deterministic case, the other outcomes seen.
type Expected struct {
	Plan
	// Deterministic is false when upstream picked pods or nodes in map
	// order; a missing field means true.
	Deterministic *bool         `json:"deterministic,omitempty"`
	Alternatives  []Alternative `json:"alternatives"`
	// Unmapped records writes the API refused; never compared.
	Unmapped []json.RawMessage `json:"unmapped,omitempty"`
}

// Alternative is another outcome upstream was seen to produce.
type Alternative struct {
	Create []Create `json:"create"`
	Delete []Delete `json:"delete"`
}

// IsDeterministic reports whether the case must match create and delete
// exactly.
func (e *Expected) IsDeterministic() bool {
	return e.Deterministic == nil || *e.Deterministic
}
