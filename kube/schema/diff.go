package schema

// Diff is the document `daemonplan diff -o json` prints: what an edit to
// the cluster would do (package whatif, docs/whatif.md): the cluster as it
// settles with the edit against the same cluster as it settles without it,
// node by node, and, apart, what the cluster does anyway without the edit
// (Pending). Every list is present (never null); nodes are sorted by name.
type Diff struct {
	DaemonSet Ref `json:"daemonSet"`
	// KubernetesVersion is the Kubernetes minor whose controller the
	// simulation reproduces ("1.37").
	KubernetesVersion string `json:"kubernetesVersion"`
	// Edits are the edits compared, in the order they were applied, as the
	// flags that give them: "--ds-file NEW.yaml", "--node-file F",
	// "--remove-node NODE", "--label NODE:KEY=VALUE",
	// "--taint NODE:KEY=VALUE:EFFECT".
	Edits []string `json:"edits"`
	// Nodes holds every node of the cluster as it is and as edited.
	Nodes []DiffNode `json:"nodes"`
	// Counts count the nodes per change of the edit (DiffNode.Change).
	Counts  DiffCounts  `json:"counts"`
	Budgets DiffBudgets `json:"budgets"`
	// Steps counts the steps of the rollout with the edit, from now (one
	// budget's worth of replacements each), Syncs every simulated sync,
	// Duration the simulated time (a Go duration) with new pods Ready
	// ReadyAfter after their creation and deleted pods gone GracePeriod
	// after their deletion: what `daemonplan simulate` reports for the
	// edited cluster. Duration is a prediction only when Done.
	Steps       int    `json:"steps"`
	Syncs       int    `json:"syncs"`
	Duration    string `json:"duration"`
	ReadyAfter  string `json:"readyAfter"`
	GracePeriod string `json:"gracePeriod"`
	// Settled: the simulation reached a sync with nothing to do and
	// nothing to wait for. Done: kubectl rollout status would then say
	// the rollout is done (always true for OnDelete).
	Settled bool `json:"settled"`
	Done    bool `json:"done"`
	// Unsettled says why the simulation did not settle; absent when it
	// did.
	Unsettled string `json:"unsettled,omitempty"`
	// Pending is what the cluster does without the edit, from now.
	Pending DiffPending `json:"pending"`
}

// DiffPending is the cluster without the edit, simulated with the same
// timing: what is pending anyway (a rollout under way, nodes without
// their pod). The fields read as Diff's.
type DiffPending struct {
	// Counts count the nodes per DiffNode.Pending change; a node only in
	// the edited cluster counts as Unchanged.
	Counts    DiffCounts `json:"counts"`
	Steps     int        `json:"steps"`
	Syncs     int        `json:"syncs"`
	Duration  string     `json:"duration"`
	Settled   bool       `json:"settled"`
	Done      bool       `json:"done"`
	Unsettled string     `json:"unsettled,omitempty"`
}

// DiffNode is what the edit does to one node, and what the cluster does to
// it anyway.
type DiffNode struct {
	Name string `json:"name"`
	// Change is the edit's: the node as the cluster settles with the edit
	// against the node as it settles without it. Unchanged; Gains (a pod
	// it would not have); Loses (the pod it would have: Why); Replaced
	// (another pod than it would have: a new one, of the new template
	// when the edit changes it); Keeps (the pod it runs now, which would
	// be replaced or deleted); Outdated (a pod of an old template,
	// OnDelete); NotYetReplaced (the simulation stopped before the
	// rolling update replaced its pod); DecisionChanged (it ends as it
	// would, but the DaemonSet's decision about it changes: Before and
	// After).
	Change string `json:"change"`
	// Added: the node is only in the edited cluster; Removed: only in the
	// cluster as it is.
	Added   bool `json:"added"`
	Removed bool `json:"removed"`
	// Pod is the DaemonSet's pod the node runs now ("" for none);
	// WithEdit and WithoutEdit the pods it runs once the simulation with
	// the edit and the one without it stop ("" for none). A pod a
	// simulation creates has the simulation's name.
	Pod         string `json:"pod"`
	WithEdit    string `json:"withEdit"`
	WithoutEdit string `json:"withoutEdit"`
	// Why is, for Loses, the reason of the delete, with the edit, of the
	// pod the node runs now ("Outdated", "NotEligible",
	// "UntoleratedTaint", ...); "" otherwise, when the pod lost is one
	// the node would only get without the edit (After says why not), and
	// for a removed node whose pod no sync deletes (pod garbage
	// collection removes it).
	Why string `json:"why"`
	// Pending is what the cluster does to the node without the edit,
	// against now.
	Pending DiffNodePending `json:"pending"`
	// Before and After are the node's decisions for the DaemonSet as it is
	// and as edited; null where the node is not.
	Before *Decision `json:"before"`
	After  *Decision `json:"after"`
	// NewPod is, for a node that gets a pod of the edited template
	// (Gains, Replaced, NotYetReplaced), that pod as admitted and what the
	// scheduler does with it: with maxSurge above 0 beside the pod the node
	// runs now, without it once that pod is gone. Absent otherwise, and
	// when the input says nothing beyond the template (no admission
	// object, no status.allocatable on the node).
	NewPod *NewPod `json:"newPod,omitempty"`
}

// DiffNodePending is what the cluster does to one node without the edit,
// against now: Change is Unchanged, Gains, Loses, Replaced, Outdated or
// NotYetReplaced, and Why the reason of the delete for Loses, as in
// DiffNode.
type DiffNodePending struct {
	Change string `json:"change"`
	Why    string `json:"why"`
}

// Decision is one node's eligibility.
type Decision struct {
	ShouldRun             bool   `json:"shouldRun"`
	ShouldContinueRunning bool   `json:"shouldContinueRunning"`
	Reason                string `json:"reason"`
	Message               string `json:"message"`
}

// DiffCounts count the nodes per change.
type DiffCounts struct {
	Unchanged int `json:"unchanged"`
	Gains     int `json:"gains"`
	Loses     int `json:"loses"`
	Replaced  int `json:"replaced"`
	Outdated  int `json:"outdated"`
	// NotYetReplaced counts the nodes the rolling update would replace
	// that the simulation stopped before (at a limit, or stalled).
	NotYetReplaced  int `json:"notYetReplaced"`
	Keeps           int `json:"keeps"`
	DecisionChanged int `json:"decisionChanged"`
}

// DiffBudgets are the rolling update's budgets right after the edit,
// scaled against the nodes that should run the pod.
type DiffBudgets struct {
	Desired        int `json:"desired"`
	MaxUnavailable int `json:"maxUnavailable"`
	MaxSurge       int `json:"maxSurge"`
}
