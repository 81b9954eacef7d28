package schema

import "encoding/json"

// RolloutReport is the document `daemonplan rollout status -o json`
// prints: where a progressive rollout stands (package progressive,
// docs/progressive-live.md), as the table shows it, with every node.
// Durations are Go durations ("1m30s"). Every list is present (never
// null); paused and eta are null when there is none. The exit status is
// the table's: 3 paused by a gate, 4 aborted.
type RolloutReport struct {
	DaemonSet Ref `json:"daemonSet"`
	// Policy is the policy as `rollout start` recorded it (not
	// defaulted), in the annotation's own form.
	Policy json.RawMessage `json:"policy"`
	// Revision is the controller-revision-hash rolled out; empty until
	// the first step after start.
	Revision string `json:"revision"`
	// Phase is Canary, Zone, Rest, Done or Aborted; Zone the zone of the
	// Zone phase; Zones the zone order, once resolved.
	Phase string   `json:"phase"`
	Zone  string   `json:"zone"`
	Zones []string `json:"zones"`
	// Promoted records `rollout promote`; Reason is why the rollout
	// aborted.
	Promoted bool   `json:"promoted"`
	Reason   string `json:"reason"`
	// Paused is the pause, when there is one.
	Paused *RolloutPause `json:"paused"`
	// Budget is maxUnavailable resolved; InUse the nodes that spend it
	// (Updating, Deleting, Missing).
	Budget int `json:"budget"`
	InUse  int `json:"inUse"`
	// Waiting says why the next step would delete nothing; empty when it
	// would.
	Waiting string `json:"waiting"`
	// InFlight are the deletes recorded and not yet seen done.
	InFlight []RolloutPod `json:"inFlight"`
	ETA      *RolloutETA  `json:"eta"`
	// Nodes are all nodes, by name, Idle ones included.
	Nodes []RolloutNode `json:"nodes"`
}

// RolloutPause is a pause: By is User, Gate or Policy (a pause point; as the
// annotation records it) and Reason says why.
type RolloutPause struct {
	By     string `json:"by"`
	Reason string `json:"reason"`
}

// RolloutPod names a pod and its node.
type RolloutPod struct {
	Pod  string `json:"pod"`
	Node string `json:"node"`
}

// RolloutETA is how long the rollout has left (progressive.ETA):
// Remaining for Nodes nodes, Budget at a time, PerNode each; Source is
// Measured (the mean of Measured replacements) or Model (the timeline
// model's terms in Model). Waits are the operator's answers Remaining
// does not count.
type RolloutETA struct {
	Remaining string   `json:"remaining"`
	Nodes     int      `json:"nodes"`
	Budget    int      `json:"budget"`
	PerNode   string   `json:"perNode"`
	Source    string   `json:"source"`
	Measured  int      `json:"measured"`
	Model     string   `json:"model"`
	Waits     []string `json:"waits"`
}

// RolloutNode is one node: its zone (empty without zones), its state
// (Updated, Updating, Outdated, Deleting, Missing or Idle), its live
// pod of the DaemonSet (empty without one), and whether it should run
// one.
type RolloutNode struct {
	Name    string `json:"name"`
	Zone    string `json:"zone"`
	State   string `json:"state"`
	Pod     string `json:"pod"`
	Desired bool   `json:"desired"`
}
