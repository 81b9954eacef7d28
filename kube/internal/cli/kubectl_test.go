package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/daemonplan/daemonplan/kube/schema"
)

// TestFilenameMerge checks that -f repeats and merges its sources, as
// kubectl does, whatever mix of files, standard input and YAML Lists.
func TestFilenameMerge(t *testing.T) {
	seed01 := readCase(t, "seed-01")
	whole := runCLI(t, "", "plan", "-f", clusterFile(seed01), "--now", nowFlag(seed01), "-o", "json")
	if whole.code != exitOK {
		t.Fatalf("exit %d: %s", whole.code, whole.stderr)
	}
	// Split seed-01's List: the DaemonSet alone in one file, the rest in two
	// YAML Lists concatenated on standard input.
	var list struct {
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal(seed01.Cluster, &list); err != nil {
		t.Fatal(err)
	}
	var dsItem []map[string]any
	var rest [2][]map[string]any
	for i, it := range list.Items {
		if it["kind"] == "DaemonSet" {
			dsItem = append(dsItem, it)
			continue
		}
		rest[i%2] = append(rest[i%2], it)
	}
	dir := t.TempDir()
	dsFile := filepath.Join(dir, "ds.json")
	writeList(t, dsFile, dsItem)
	var stdin strings.Builder
	for i, items := range rest {
		if i > 0 {
			stdin.WriteString("---\n")
		}
		b, err := yaml.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
		if err != nil {
			t.Fatal(err)
		}
		stdin.Write(b)
	}
	tests := []struct {
		name, reason string
		stdin        string
		args         []string
	}{
		{"file and stdin", "the DaemonSet from a file, the rest as two YAML Lists on stdin", stdin.String(), []string{"-f", dsFile, "-f", "-"}},
		{"stdin and file", "order of -f does not matter", stdin.String(), []string{"-f", "-", "--filename", dsFile}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"plan", "--now", nowFlag(seed01), "-o", "json"}, tt.args...)
			got := runCLI(t, tt.stdin, args...)
			if got.code != exitOK {
				t.Fatalf("exit %d: %s", got.code, got.stderr)
			}
			if diff := cmp.Diff(whole.stdout, got.stdout); diff != "" {
				t.Errorf("merged plan mismatch (-one file +merged) (%s):\n%s", tt.reason, diff)
			}
		})
	}
}

func writeList(t *testing.T, path string, items []map[string]any) {
	t.Helper()
	b, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestOutputFormats checks -o yaml (the JSON document as YAML), wide (the
// table plus a row per node) and name (resource/name of what is written).
func TestOutputFormats(t *testing.T) {
	seed01 := readCase(t, "seed-01")
	run := func(o string) result {
		t.Helper()
		r := runCLI(t, "", "plan", "-f", clusterFile(seed01), "--now", nowFlag(seed01), "-o", o)
		if r.code != exitOK || r.stderr != "" {
			t.Fatalf("-o %s: exit %d, stderr %q", o, r.code, r.stderr)
		}
		return r
	}
	var fromJSON, fromYAML schema.Plan
	if err := json.Unmarshal([]byte(run("json").stdout), &fromJSON); err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict([]byte(run("yaml").stdout), &fromYAML); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fromJSON, fromYAML); diff != "" {
		t.Errorf("-o yaml is not -o json's document (-json +yaml):\n%s", diff)
	}
	if !fromJSON.StatusChanged || fromJSON.Hash != "5cbcfd9f59" || len(fromJSON.Keep) == 0 {
		t.Errorf("the document lacks the plan's statusChanged, hash or keep: %+v", fromJSON)
	}

	wide := run("wide").stdout
	table := run("table").stdout
	for _, w := range []string{
		table,
		// The REASON names the untolerated taint (key=value:Effect).
		"NODE       SHOULD-RUN   CONTINUE   REASON                                                                        PODS\n",
		"node-008   true         true       Eligible                                                                      node-agent-42m9j=delete(Duplicate),node-agent-vrkv8=keep\n",
		"node-006   false        true       UntoleratedNoSchedule(ToBeDeletedByClusterAutoscaler=1748779200:NoSchedule)   node-agent-smqwb=adopt+keep\n",
		"node-010   true         true       Eligible                                                                      (new)=create\n",
	} {
		if !strings.Contains(wide, w) {
			t.Errorf("-o wide lacks %q:\n%s", w, wide)
		}
	}

	want := `daemonset.apps/node-agent
controllerrevision.apps/node-agent-5cbcfd9f59
pod/node-agent-42m9j
pod/node-agent-jwbkl
pod/node-agent-jx74q
pod/node-agent-m2h9f
pod/node-agent-smqwb
pod/node-agent-
pod/node-agent-
`
	if diff := cmp.Diff(want, run("name").stdout); diff != "" {
		t.Errorf("-o name mismatch (-want +got):\n%s", diff)
	}
}

func TestVersionAndPluginName(t *testing.T) {
	got := runCLI(t, "", "--version")
	if got.code != exitOK || !strings.HasPrefix(got.stdout, "daemonplan version ") {
		t.Errorf("--version: exit %d, stdout %q", got.code, got.stdout)
	}
	var out, errOut strings.Builder
	code := Run("kubectl daemonplan", []string{"plan", "-f", "-", "--bogus"}, strings.NewReader(""), &out, &errOut)
	if code != exitUsage || !strings.HasPrefix(errOut.String(), "kubectl daemonplan: unknown flag: --bogus (run 'kubectl daemonplan plan --help'") {
		t.Errorf("plugin error: exit %d, stderr %q", code, errOut.String())
	}
	out.Reset()
	if code := Run("kubectl daemonplan", []string{"--help"}, strings.NewReader(""), &out, &errOut); code != exitOK || !strings.Contains(out.String(), "kubectl daemonplan explain -f cluster.yaml node-017") {
		t.Errorf("plugin help: exit %d, names itself wrongly:\n%s", code, out.String())
	}
}
