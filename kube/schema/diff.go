package schema

// Diff is the document `daemonplan diff -o json` prints: what an edit to
// the cluster would do (package whatif, docs/whatif.md). Every list is
// present (never null); nodes are sorted by name.
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
	Nodes   []DiffNode  `json:"nodes"`
	Counts  DiffCounts  `json:"counts"`
	Budgets DiffBudgets `json:"budgets"`
	// Steps counts the rollout's steps (one budget's worth of
	// replacements each), Syncs every simulated sync, Duration the
	// simulated time (a Go duration) with new pods Ready ReadyAfter after
	// their creation and deleted pods gone GracePeriod after their
	// deletion. Duration is a prediction only when Done.
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
}

// DiffNode is what the edit does to one node.
type DiffNode struct {
	Name string `json:"name"`
	// Change is Unchanged, Gains, Loses, Replaced or Outdated.
	Change string `json:"change"`
	// Added: the node is only in the edited cluster; Removed: only in the
	// cluster as it is.
	Added   bool `json:"added"`
	Removed bool `json:"removed"`
	// Pod is the DaemonSet's pod the node runs now ("" for none);
	// Replacement the pod it runs once the rollout settles, when that is
	// another ("" otherwise).
	Pod         string `json:"pod"`
	Replacement string `json:"replacement"`
	// Why is, for Loses, the reason of the delete ("Outdated",
	// "NotEligible", "UntoleratedTaint", ...); "" otherwise, and for a
	// removed node whose pod no sync deletes (pod garbage collection
	// removes it).
	Why string `json:"why"`
	// Before and After are the node's decisions for the DaemonSet as it is
	// and as edited; null where the node is not.
	Before *Decision `json:"before"`
	After  *Decision `json:"after"`
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
	NotYetReplaced int `json:"notYetReplaced"`
}

// DiffBudgets are the rolling update's budgets right after the edit,
// scaled against the nodes that should run the pod.
type DiffBudgets struct {
	Desired        int `json:"desired"`
	MaxUnavailable int `json:"maxUnavailable"`
	MaxSurge       int `json:"maxSurge"`
}
