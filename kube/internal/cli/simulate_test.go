package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daemonplan/daemonplan/kube/schema"
)

// TestSimulateGolden: the v1.37 conformance cluster seed-124 with its
// DaemonSet's image changed (testdata/seed-124-ds-v1.2.yaml) rolls out in
// steps of maxUnavailable 2 and converges; the table is
// testdata/simulate-seed-124.table.golden (regenerate with -update).
func TestSimulateGolden(t *testing.T) {
	c := readCase137(t, "seed-124")
	html := filepath.Join(t.TempDir(), "out.html")
	got := runCLI(t, "", "simulate", "-f", clusterFile(c), "--now", nowFlag(c),
		"--ds-file", "testdata/seed-124-ds-v1.2.yaml", "--ready-after", "30s", "--html", html)
	if got.code != exitOK || got.stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing", got.code, got.stderr)
	}
	golden := filepath.Join("testdata", "simulate-seed-124.table.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got.stdout != string(want) {
		t.Errorf("stdout differs from %s (rerun with -update and read the diff):\n%s", golden, got.stdout)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatalf("--html: %v", err)
	}
	if !strings.Contains(string(page), "<svg") || strings.Count(string(page), `class="node-row"`) != 9 {
		t.Errorf("--html: want an SVG with one row per node (9)")
	}
}

// TestSimulate: flags, outputs and errors.
func TestSimulate(t *testing.T) {
	c := readCase137(t, "seed-124")
	base := []string{"simulate", "-f", clusterFile(c), "--now", nowFlag(c)}
	v2 := append(append([]string{}, base...), "--ds-file", "testdata/seed-124-ds-v1.2.yaml")
	tests := []struct {
		name, reason string
		args         []string
		code         int
		stdout       []string // substrings
		absent       []string // substrings stdout must not hold
		stderr       string   // substring
	}{{
		name:   "no edit: already converged",
		reason: "without --ds-file the cluster as found is driven on; seed-124 has nothing to do",
		args:   base,
		stdout: []string{"converged in 0s: 0 steps, 1 syncs"},
	}, {
		name:   "every pod fails",
		reason: "--fail-rate 1 fails every new pod: the run stops at the bound and names the nodes",
		args:   append(append([]string{}, v2...), "--fail-rate", "1", "--max-duration", "5m"),
		stdout: []string{"stopped at the time limit", "maxUnavailable 2 used up", "no predicted duration: the rollout did not finish"},
		absent: []string{"predicted duration 5m", "predicted duration 4m"},
	}, {
		name:   "no updateStrategy",
		reason: "a DaemonSet that states no updateStrategy has the defaulted RollingUpdate (maxUnavailable 1), which the table names",
		args: []string{"simulate", "--now", genNow, "-f", writeTemp(t, "nostrategy.json", string(genCluster(t,
			genSpec{nodes: 3, image: "agent:v1", noStrategy: true}, time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))))},
		stdout: []string{"(RollingUpdate, maxUnavailable 1, maxSurge 0)"},
		absent: []string{"()"},
	}, {
		name:   "restated manifest: nothing to roll",
		reason: "a manifest is merged into the live DaemonSet as kubectl apply merges it (the same reading as diff), so one that leaves the defaulted fields out but restates the live image rolls nothing",
		args: append(append([]string{}, base...), "--ds-file", writeTemp(t, "restated.yaml", `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: node-agent
spec:
  template:
    spec:
      containers:
      - name: agent
        image: registry.example.com/agent:v1.1
`)),
		stdout: []string{"predicted duration 0s (RollingUpdate, maxUnavailable 2, maxSurge 0)", "converged in 0s: 0 steps, 1 syncs"},
	}, {
		name:   "usage: fail rate",
		reason: "a rate outside 0..1 is a usage error",
		args:   append(append([]string{}, base...), "--fail-rate", "2"),
		code:   exitUsage,
		stderr: "--fail-rate 2: want a number from 0 to 1",
	}, {
		name:   "usage: output",
		reason: "only table and json",
		args:   append(append([]string{}, base...), "-o", "yaml"),
		code:   exitUsage,
		stderr: `-o "yaml": want one of table, json`,
	}, {
		name:   "ds-file of another DaemonSet",
		reason: "the new spec must be the input DaemonSet's, as an update is",
		args:   append(append([]string{}, base...), "--ds-file", "testdata/node-hypothetical.yaml"),
		code:   exitError,
		stderr: "want exactly one DaemonSet, found 0",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runCLI(t, "", tt.args...)
			if got.code != tt.code {
				t.Fatalf("exit %d, want %d (%s); stderr %q", got.code, tt.code, tt.reason, got.stderr)
			}
			for _, s := range tt.stdout {
				if !strings.Contains(got.stdout, s) {
					t.Errorf("stdout lacks %q (%s):\n%s", s, tt.reason, got.stdout)
				}
			}
			for _, s := range tt.absent {
				if strings.Contains(got.stdout, s) {
					t.Errorf("stdout holds %q (%s):\n%s", s, tt.reason, got.stdout)
				}
			}
			if !strings.Contains(got.stderr, tt.stderr) {
				t.Errorf("stderr %q lacks %q (%s)", got.stderr, tt.stderr, tt.reason)
			}
		})
	}
}

// TestSimulateJSON: -o json is the schema.Simulation document, every list
// present, the same seed the same document.
func TestSimulateJSON(t *testing.T) {
	c := readCase137(t, "seed-124")
	args := []string{"simulate", "-f", clusterFile(c), "--now", nowFlag(c), "--ds-file", "testdata/seed-124-ds-v1.2.yaml",
		"--fail-rate", "0.3", "--seed", "5", "-o", "json"}
	a, b := runCLI(t, "", args...), runCLI(t, "", args...)
	if a.code != exitOK || a.stdout != b.stdout {
		t.Fatalf("exit %d, stderr %q; same seed, same output: %v", a.code, a.stderr, a.stdout == b.stdout)
	}
	var doc schema.Simulation
	if err := json.Unmarshal([]byte(a.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.DaemonSet.Name != "node-agent" || len(doc.Nodes) != 9 || len(doc.Syncs) == 0 || doc.Seed != 5 ||
		(doc.Outcome == "Converged") != (doc.Stall == nil) {
		t.Errorf("unexpected document: %+v", doc)
	}
	for _, n := range doc.Nodes {
		if n.Intervals == nil || n.Failures == nil {
			t.Errorf("node %s: null list", n.Name)
		}
	}
	if strings.Contains(a.stdout, "null") && doc.Stall != nil {
		t.Errorf("a null list in %s", a.stdout)
	}
}
