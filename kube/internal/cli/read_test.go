package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadAsKubectl runs the CLI on the inputs a new user gives it: each
// row is a finding of reading files as kubectl reads them, with the exit
// status and a line stderr must hold.
func TestReadAsKubectl(t *testing.T) {
	kruise, err := os.ReadFile(filepath.Join("testdata", "kruise.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	const node = "---\napiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
	typo := strings.Replace(ds("agent"), "spec: {containers:", "spec: {nodeselector: {disk: ssd}, containers:", 1)
	tests := []struct {
		name   string
		reason string
		files  []string
		args   []string
		code   int
		stderr string
	}{
		{"no nodes", "a forgotten nodes prints DESIRED 0 and a finished rollout: warned", []string{ds("agent")}, nil, exitOK,
			"warning: plan: %s: no nodes in the input: the plan places no pod"},
		{"no nodes strict", "with --strict input without nodes is refused", []string{ds("agent")}, []string{"--strict"}, exitError,
			"no nodes in the input: the plan places no pod; include them, e.g. kubectl get ds/NAME,nodes,pods,controllerrevisions -o yaml (--strict)"},
		{"unknown field", "a misspelled field is kubectl's warning", []string{typo + node}, nil, exitOK,
			`warning: %s: YAML document 1 (apps/v1 DaemonSet default/agent): unknown field "spec.template.spec.nodeselector"`},
		{"unknown field strict", "with --strict a misspelled field is refused", []string{typo + node}, []string{"--strict"}, exitError,
			`strict decoding error: unknown field "spec.template.spec.nodeselector" (--strict)`},
		{"taint effect typo", "a node's taint effect the API server would reject is a finding like the DaemonSet's, at the node's position", []string{ds("agent") + "---\napiVersion: v1\nkind: Node\nmetadata: {name: n1}\nspec: {taints: [{key: k, effect: NoSchedul}]}\n"}, nil, exitOK,
			`warning: %s: YAML document 2: nodes[0].spec.taints[0].effect: Unsupported value: "NoSchedul": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`},
		{"taint effect typo strict", "with --strict the node's finding refuses the input", []string{ds("agent") + "---\napiVersion: v1\nkind: Node\nmetadata: {name: n1}\nspec: {taints: [{key: k, effect: NoSchedul}]}\n"}, []string{"--strict"}, exitError,
			`error: %s: YAML document 2: nodes[0].spec.taints[0].effect: Unsupported value: "NoSchedul"`},
		{"pod operator typo", "a pod's toleration operator the API server would reject is a finding", []string{ds("agent") + node + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec: {tolerations: [{key: k, operator: Exist}]}\n"}, nil, exitOK,
			`warning: %s: YAML document 3: pods[0].spec.tolerations[0].operator: Unsupported value: "Exist"`},
		{"Kruise twice", "the same OpenKruise DaemonSet given twice is one DaemonSet", []string{string(kruise), string(kruise)}, nil, exitOK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"plan", "--now", "2025-06-01T12:00:00Z"}
			var first string
			for i, content := range tt.files {
				f := filepath.Join(dir, string(rune('a'+i))+".yaml")
				if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
				if first == "" {
					first = f
				}
				args = append(args, "-f", f)
			}
			got := runCLI(t, "", append(args, tt.args...)...)
			if got.code != tt.code {
				t.Fatalf("%s: exit %d, want %d; stderr:\n%s", tt.reason, got.code, tt.code, got.stderr)
			}
			want := strings.Replace(tt.stderr, "%s", first, 1)
			if want != "" && !strings.Contains(got.stderr, want) {
				t.Errorf("%s: stderr:\n%s\nwant a line containing %q", tt.reason, got.stderr, want)
			}
		})
	}
}
