package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestOverheadJSON(t *testing.T) {
	r := runCLI(t, "", "overhead", "-f", "testdata/overhead-cluster.yaml", "-o", "json")
	if r.code != exitOK {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
	var got overheadDoc
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("output is not the overhead document: %v\n%s", err, r.stdout)
	}
	yes, no := true, false
	want := overheadDoc{Nodes: []overheadNode{{
		// node-a: both land; the legacy pod takes 800m of 1 cpu and port
		// 9100, so kube-proxy (100m) fits and the exporter (250m, its
		// limits standing for requests; 9100 taken) does not.
		Name: "node-a",
		DaemonSets: []overheadEntry{
			{Namespace: "kube-system", Name: "kube-proxy", Lands: true, Reason: "Eligible",
				Requests: map[string]string{"cpu": "100m", "memory": "64Mi"}, Fits: &yes,
				Scheduling: &overheadScheduling{Outcome: "Fits"}},
			// The legacy pod has the exporter's priority (0): the
			// exporter's pod stays Pending.
			{Namespace: "monitoring", Name: "node-exporter", Lands: true, Reason: "Eligible",
				Requests: map[string]string{"cpu": "250m", "memory": "128Mi"}, Fits: &no,
				Insufficient: []string{"cpu"}, Conflicts: []string{"9100/TCP"},
				Scheduling: &overheadScheduling{Outcome: "Pending", Reason: "NoLowerPriority"}},
		},
		Requests: map[string]string{"cpu": "350m", "memory": "192Mi"},
		// Together they overrun the cpu and bind 9100 twice.
		AllFit: &no, Insufficient: []string{"cpu"}, Conflicts: []string{"9100/TCP"},
		Left: map[string]string{"cpu": "-150m", "memory": "3904Mi", "pods": "107"},
	}, {
		// node-b: tainted and without allocatable: only kube-proxy lands,
		// and fit is unknown.
		Name: "node-b",
		DaemonSets: []overheadEntry{
			{Namespace: "kube-system", Name: "kube-proxy", Lands: true, Reason: "Eligible",
				Requests: map[string]string{"cpu": "100m", "memory": "64Mi"}},
			{Namespace: "monitoring", Name: "node-exporter", Lands: false, Reason: "UntoleratedNoSchedule",
				Requests: map[string]string{"cpu": "250m", "memory": "128Mi"}},
		},
		Requests: map[string]string{"cpu": "100m", "memory": "64Mi"},
	}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("overhead -o json mismatch (-want +got):\n%s", diff)
	}
	if !strings.Contains(r.stdout, `"fits": null`) {
		t.Errorf("a node without allocatable must print \"fits\": null:\n%s", r.stdout)
	}
}

// TestOverheadHypotheticalNode answers the autoscaler's question on a
// visible conformance cluster for a node that does not exist.
func TestOverheadHypotheticalNode(t *testing.T) {
	c := readCase(t, "seed-01")
	r := runCLI(t, "", "overhead", "-f", clusterFile(c), "--node-file", "testdata/node-hypothetical.yaml", "-o", "json")
	if r.code != exitOK {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
	var got overheadDoc
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Nodes) != 1 || got.Nodes[0].Name != "new-general-1" {
		t.Fatalf("want only the hypothetical node, got %+v", got.Nodes)
	}
	ds := got.Nodes[0].DaemonSets
	// seed-01's node-agent selects linux nodes outside pools batch and gpu
	// and tolerates dedicated=infra:NoSchedule: it lands.
	if len(ds) != 1 || !ds[0].Lands || ds[0].Reason != "Eligible" || ds[0].Fits == nil || !*ds[0].Fits {
		t.Errorf("node-agent on the hypothetical node: %+v", ds)
	}
}

func TestOverheadTable(t *testing.T) {
	r := runCLI(t, "", "overhead", "-f", "testdata/overhead-cluster.yaml")
	if r.code != exitOK {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
	golden := filepath.Join("testdata", "overhead.table.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(r.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), r.stdout); diff != "" {
		t.Errorf("overhead table mismatch (-want +got):\n%s", diff)
	}
}

func TestOverheadErrors(t *testing.T) {
	tests := []struct {
		name, reason string
		args         []string
		code         int
		stderr       string
	}{
		{"NoFile", "-f is required", []string{"overhead"}, exitUsage, "-f FILE is required"},
		{"BadOutput", "only table and json", []string{"overhead", "-f", "testdata/overhead-cluster.yaml", "-o", "yaml"}, exitUsage, `-o "yaml"`},
		{"NodeFileWithoutNode", "the node file must hold one Node", []string{"overhead", "-f", "testdata/overhead-cluster.yaml", "--node-file", "testdata/overhead-cluster.yaml"}, exitError, "want exactly one Node, found 2"},
		{"NoDaemonSet", "nothing to answer about", []string{"overhead", "-f", "testdata/node-hypothetical.yaml"}, exitError, "no DaemonSet"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCLI(t, "", tt.args...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.stderr) {
				t.Errorf("exit %d, stderr %q; want %d and %q (%s)", r.code, r.stderr, tt.code, tt.stderr, tt.reason)
			}
		})
	}
}

// TestOverheadAdmission: with admission objects in the input, each daemon
// pod is admitted (LimitRange defaults, priority, RuntimeClass overhead),
// one naming a missing PriorityClass is said to be refused, and the
// scheduler column shows which pods fit, wait, or preempt whom.
func TestOverheadAdmission(t *testing.T) {
	r := runCLI(t, "", "overhead", "-f", "testdata/overhead-admission.yaml")
	if r.code != exitOK {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
	golden := filepath.Join("testdata", "overhead-admission.table.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(r.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), r.stdout); diff != "" {
		t.Errorf("overhead table mismatch (-want +got):\n%s", diff)
	}
	const refused = `warning: overhead: DaemonSet kube-system/typo: the API server refuses its pods: spec.template.spec.priorityClassName: Forbidden: no PriorityClass with name system-node-critcal was found`
	if strings.TrimSpace(r.stderr) != refused {
		t.Errorf("stderr %q, want %q", r.stderr, refused)
	}
}

// TestOverheadAdmissionErrors: a bad admission object is an error naming
// the file, document and field.
func TestOverheadAdmissionErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "in.yaml")
	in := "apiVersion: v1\nkind: List\nitems:\n- apiVersion: apps/v1\n  kind: DaemonSet\n  metadata: {name: a, namespace: ns}\n  spec:\n    selector: {matchLabels: {app: a}}\n    template:\n      metadata: {labels: {app: a}}\n      spec: {containers: [{name: a, image: a}]}\n" +
		"---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: odd}\nvalue: 1\npreemptionPolicy: Sometimes\n"
	if err := os.WriteFile(file, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "", "overhead", "-f", file)
	want := "YAML document 2 (PriorityClass odd): preemptionPolicy: Unsupported value"
	if r.code != exitError || !strings.Contains(r.stderr, want) {
		t.Errorf("exit %d, stderr %q; want %d and %q", r.code, r.stderr, exitError, want)
	}
}

// TestOverheadRuntimeClassScheduling: a RuntimeClass's scheduling is not
// modelled, and said.
func TestOverheadRuntimeClassScheduling(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "in.yaml")
	in := "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: a, namespace: ns}\nspec:\n  selector: {matchLabels: {app: a}}\n  template:\n    metadata: {labels: {app: a}}\n    spec: {runtimeClassName: gvisor, containers: [{name: a, image: a}]}\n" +
		"---\napiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: gvisor}\nhandler: runsc\nscheduling: {nodeSelector: {sandbox: gvisor}}\n"
	if err := os.WriteFile(file, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "", "overhead", "-f", file)
	want := "YAML document 2 (RuntimeClass gvisor): scheduling.nodeSelector and tolerations are not modelled"
	if r.code != exitOK || !strings.Contains(r.stderr, want) {
		t.Errorf("exit %d, stderr %q; want 0 and %q", r.code, r.stderr, want)
	}
}

// TestOverheadNodePoolRefused: with admission objects, a DaemonSet whose
// pods the API server refuses lands on no node of a NodePool and is left
// out of every total.
func TestOverheadNodePoolRefused(t *testing.T) {
	r := runCLI(t, "", "overhead", "-f", "testdata/nodepool/daemonsets.yaml", "-f", "testdata/nodepool/refused.yaml",
		"--nodepool", "testdata/nodepool/nodepool.yaml", "--instance-types", "testdata/nodepool/instance-types.yaml")
	if r.code != exitOK {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
	for _, want := range []string{
		"kube-system/typo                  None     the API server refuses its pods (spec.template.spec.priorityClassName)",
		"AT MOST (5 pods)",
		"m7i.large      4 at most",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	if !strings.Contains(r.stderr, "DaemonSet kube-system/typo: the API server refuses its pods") {
		t.Errorf("stderr %q does not say why", r.stderr)
	}
}

// TestOverheadTogether checks what the table adds to each pod's fit: a
// DaemonSet that does not land shows no fit (its pod is never created),
// and each node's TOTAL row says whether the landing pods fit together
// (ALL FIT) and what they leave of allocatable (LEFT), as the overhead
// example prints them.
func TestOverheadTogether(t *testing.T) {
	r := runCLI(t, "", "overhead", "-f", "testdata/overhead-cluster.yaml", "--node-file", "testdata/node-hypothetical.yaml")
	if r.code != exitOK {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
	// new-general-1 is tainted dedicated=infra:NoSchedule: kube-proxy
	// tolerates it and lands, the exporter does not.
	want := `NODE           DAEMONSET                 LANDS  REASON                 REQUESTS               FITS  SCHEDULER  ALL FIT  LEFT
new-general-1  kube-system/kube-proxy    true   Eligible               cpu=100m,memory=64Mi   true  fits
new-general-1  monitoring/node-exporter  false  UntoleratedNoSchedule  cpu=250m,memory=128Mi  -     -
new-general-1  TOTAL                                                   cpu=100m,memory=64Mi                    true     cpu=3820m,ephemeral-storage=95Gi,memory=15296Mi,pods=109
`
	if diff := cmp.Diff(want, r.stdout); diff != "" {
		t.Errorf("overhead table mismatch (-want +got):\n%s", diff)
	}

	r = runCLI(t, "", "overhead", "-f", "testdata/overhead-cluster.yaml", "-o", "json")
	var got overheadDoc
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("output is not the overhead document: %v\n%s", err, r.stdout)
	}
	// node-a: the legacy pod takes 800m and port 9100; kube-proxy's 100m
	// fits after it, the exporter's 250m and port 9100 do not.
	no := false
	a := got.Nodes[0]
	if diff := cmp.Diff(map[string]string{"cpu": "-150m", "memory": "3904Mi", "pods": "107"}, a.Left); diff != "" {
		t.Errorf("node-a left mismatch (-want +got):\n%s", diff)
	}
	if a.AllFit == nil || *a.AllFit != no || !slices.Equal(a.Insufficient, []string{"cpu"}) || !slices.Equal(a.Conflicts, []string{"9100/TCP"}) {
		t.Errorf("node-a: allFit %v, insufficient %q, portConflicts %q; want false, [cpu], [9100/TCP]", a.AllFit, a.Insufficient, a.Conflicts)
	}
	// node-b lists no allocatable: neither is known.
	if b := got.Nodes[1]; b.AllFit != nil || b.Left != nil {
		t.Errorf("node-b without allocatable: allFit %v, left %v; want null", b.AllFit, b.Left)
	}
}

// TestOverheadNoNodes: a DaemonSet without nodes answers nothing, and says
// why and what to add instead of printing a bare header.
func TestOverheadNoNodes(t *testing.T) {
	ds := "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: big, namespace: default, uid: u1}\nspec:\n  selector: {matchLabels: {app: big}}\n  template:\n    metadata: {labels: {app: big}}\n    spec:\n      containers: [{name: big, image: big:v1}]\n"
	r := runCLI(t, ds, "overhead", "-f", "-")
	if r.code != exitOK || !strings.Contains(r.stderr, "holds no Node: no row to answer") || !strings.Contains(r.stderr, "--node-file") {
		t.Errorf("exit %d, stderr %q; want 0 and a warning naming what to add", r.code, r.stderr)
	}
}
