package schema

// Simulation is the document `daemonplan simulate -o json` prints: a
// rollout driven through package sim to convergence or to a stall, as
// package timeline records it. Durations are Go durations ("1m30s"),
// offsets from the simulation's start. Every list is present (never
// null); stall is null when the outcome is "Converged".
type Simulation struct {
	DaemonSet Ref `json:"daemonSet"`
	// KubernetesVersion is the Kubernetes minor whose controller is
	// simulated ("1.37").
	KubernetesVersion string `json:"kubernetesVersion"`
	// Strategy is the update strategy's type: RollingUpdate or OnDelete.
	Strategy string `json:"strategy"`
	// Start is the simulated clock at the start (--now), RFC 3339.
	Start string `json:"start"`
	// ReadyAfter is how long each new pod takes to become Ready (or fail,
	// or first exit); FailRate the share of new pods that fail, CrashRate
	// the share that crash-loop, restarting CrashBackoff after their first
	// exit, then after twice that (up to 5m); Seed the seed that picks
	// them.
	ReadyAfter   string  `json:"readyAfter"`
	FailRate     float64 `json:"failRate"`
	CrashRate    float64 `json:"crashRate"`
	CrashBackoff string  `json:"crashBackoff"`
	Seed         uint64  `json:"seed"`
	// GracePeriod is how long each deleted pod takes to go.
	GracePeriod string `json:"gracePeriod"`
	// Outcome is "Converged" or "Stalled"; Summary says it in one line.
	Outcome string `json:"outcome"`
	Summary string `json:"summary"`
	Stall   *Stall `json:"stall"`
	// Duration is the simulated time up to the last sync (the predicted
	// duration only when the outcome is "Converged"); Steps the rollout's
	// steps, one budget's worth of replacements each.
	Duration string `json:"duration"`
	Steps    int    `json:"steps"`
	// Outdated counts the nodes left running a pod of another revision
	// than the current one (OnDelete).
	Outdated  int                  `json:"outdated"`
	Syncs     []SimulationSync     `json:"syncs"`
	Revisions []SimulationRevision `json:"revisions"`
	// Nodes are all nodes of the input, sorted by name.
	Nodes []SimulationNode `json:"nodes"`
	// Phases are the phases of the progressive rollout simulated with a
	// rollout policy (simulate --rollout-policy or rollout start's policy
	// flags), in order: empty without one.
	Phases []SimulationPhase `json:"phases"`
}

// SimulationPhase is one move of a simulated progressive rollout
// (progressive.PhaseChange): at offset At it entered Phase (Canary, Zone,
// Rest, Done or Aborted) and Zone; Answer is the operator's answer the
// simulation assumed at once ("promote", "resume", with Reason the pause
// point), Gate the health gate that paused or aborted the rollout.
type SimulationPhase struct {
	At     string `json:"at"`
	Phase  string `json:"phase"`
	Zone   string `json:"zone"`
	Answer string `json:"answer"`
	Reason string `json:"reason"`
	Gate   string `json:"gate"`
}

// Stall names why a simulated rollout did not converge.
type Stall struct {
	// Kind is "Stuck" (nothing left to wait for), "SyncLimit" or
	// "TimeLimit" (a bound of the simulation was reached), or "Unclaimed"
	// (the DaemonSet never claims the pods it creates).
	Kind string `json:"kind"`
	// Message is the stall in one line.
	Message string        `json:"message"`
	Holders []StallHolder `json:"holders"`
	// Budget names the budget the holders use up ("maxUnavailable 1 used
	// up"), or is empty.
	Budget string `json:"budget"`
	// Held is what held the rolling update back ("NotHeld" for nothing).
	Held string `json:"held"`
}

// StallHolder is a node that holds a stalled rollout back.
type StallHolder struct {
	Node string `json:"node"`
	Pod  string `json:"pod"`
	Why  string `json:"why"`
}

// SimulationSync is one simulated sync: its time, writes, the status it
// leaves and the budgets.
type SimulationSync struct {
	At             string `json:"at"`
	Creates        int    `json:"creates"`
	Deletes        int    `json:"deletes"`
	Desired        int    `json:"desired"`
	Updated        int    `json:"updated"`
	Available      int    `json:"available"`
	Unavailable    int    `json:"unavailable"`
	MaxUnavailable int    `json:"maxUnavailable"`
	MaxSurge       int    `json:"maxSurge"`
}

// SimulationRevision is a revision whose pods appear.
type SimulationRevision struct {
	Hash     string `json:"hash"`
	Revision int64  `json:"revision"`
	Current  bool   `json:"current"`
}

// SimulationNode is one node's history: contiguous intervals from "0s" to
// the duration, and the pods that failed there.
type SimulationNode struct {
	Name      string              `json:"name"`
	Intervals []SimulationSpan    `json:"intervals"`
	Failures  []SimulationFailure `json:"failures"`
}

// SimulationSpan is a stretch of time during which the node's pods and
// their states do not change; pods is empty while it has none.
type SimulationSpan struct {
	From string          `json:"from"`
	To   string          `json:"to"`
	Pods []SimulationPod `json:"pods"`
}

// SimulationPod is a pod during a span; state is NotReady, Ready, Failed
// or Deleting.
type SimulationPod struct {
	Name  string `json:"name"`
	Hash  string `json:"hash"`
	State string `json:"state"`
}

// SimulationFailure is a pod seen failed.
type SimulationFailure struct {
	At  string `json:"at"`
	Pod string `json:"pod"`
}
