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
				Requests: map[string]string{"cpu": "100m", "memory": "64Mi"}, Fits: &yes},
			{Namespace: "monitoring", Name: "node-exporter", Lands: true, Reason: "Eligible",
				Requests: map[string]string{"cpu": "250m", "memory": "128Mi"}, Fits: &no,
				Insufficient: []string{"cpu"}, Conflicts: []string{"9100/TCP"}},
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
	want := `NODE           DAEMONSET                 LANDS  REASON                 REQUESTS               FITS  ALL FIT  LEFT
new-general-1  kube-system/kube-proxy    true   Eligible               cpu=100m,memory=64Mi   true
new-general-1  monitoring/node-exporter  false  UntoleratedNoSchedule  cpu=250m,memory=128Mi  -
new-general-1  TOTAL                                                   cpu=100m,memory=64Mi         true     cpu=3820m,ephemeral-storage=95Gi,memory=15296Mi,pods=109
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
