package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanNegativeQuantity checks that plan reports a container's negative
// request, which the API server refuses, as it reports other field
// errors: a warning naming the field path, an error with --strict.
func TestPlanNegativeQuantity(t *testing.T) {
	file := filepath.Join(t.TempDir(), "cluster.yaml")
	const cluster = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system, uid: agent-uid}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers:
      - name: agent
        image: agent:v1
        resources: {requests: {cpu: "-1"}}
---
apiVersion: v1
kind: Node
metadata: {name: n1}
`
	if err := os.WriteFile(file, []byte(cluster), 0o644); err != nil {
		t.Fatal(err)
	}
	const finding = `spec.template.spec.containers[0].resources.requests[cpu]: Invalid value: "-1": must be greater than or equal to 0`
	got := runCLI(t, "", "plan", "-f", file, "-o", "name")
	if got.code != exitOK || !strings.Contains(got.stderr, "warning: "+finding) {
		t.Errorf("plan: exit %d, stderr %q; want 0 and the warning %q", got.code, got.stderr, finding)
	}
	got = runCLI(t, "", "plan", "-f", file, "-o", "name", "--strict")
	if got.code != exitError || !strings.Contains(got.stderr, "error: "+finding) || got.stdout != "" {
		t.Errorf("plan --strict: exit %d, stdout %q, stderr %q; want 1, nothing and the error %q", got.code, got.stdout, got.stderr, finding)
	}
}

// TestQuietSilencesNotes checks that a DaemonSet without a uid gets one
// note, which says how to silence it, and that -q silences it, for every
// command that reads a DaemonSet.
func TestQuietSilencesNotes(t *testing.T) {
	file := filepath.Join(t.TempDir(), "cluster.yaml")
	const cluster = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: agent, image: "agent:v1"}]
---
apiVersion: v1
kind: Node
metadata: {name: n1}
`
	if err := os.WriteFile(file, []byte(cluster), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"plan", "-f", file},
		{"explain", "-f", file, "n1"},
		{"diff", "-f", file, "--image", "agent=agent:v2"},
		{"simulate", "-f", file, "--image", "agent=agent:v2"},
	} {
		got := runCLI(t, "", args...)
		if got.code != exitOK || strings.Count(got.stderr, "note:") != 1 || !strings.Contains(got.stderr, "(-q hides notes)") {
			t.Errorf("%q: exit %d, stderr %q; want 0 and one note that says -q hides it", args, got.code, got.stderr)
		}
		got = runCLI(t, "", append(args, "-q")...)
		if got.code != exitOK || got.stderr != "" {
			t.Errorf("%q -q: exit %d, stderr %q; want 0 and nothing", args, got.code, got.stderr)
		}
	}
}

// TestNoteHashlessPods checks that pods of the DaemonSet without a
// controller-revision-hash label, which the rollout counts as outdated
// (unless their pod-template-generation matches), get a note saying so.
func TestNoteHashlessPods(t *testing.T) {
	file := filepath.Join(t.TempDir(), "cluster.yaml")
	const cluster = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system, uid: agent-uid}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: agent, image: "agent:v1"}]
---
apiVersion: v1
kind: Node
metadata: {name: n1}
---
apiVersion: v1
kind: Pod
metadata:
  name: agent-x
  namespace: kube-system
  labels: {app: agent}
  ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: agent-uid, controller: true}]
spec:
  nodeName: n1
  containers: [{name: agent, image: "agent:v1"}]
status: {phase: Running}
`
	if err := os.WriteFile(file, []byte(cluster), 0o644); err != nil {
		t.Fatal(err)
	}
	got := runCLI(t, "", "plan", "-f", file)
	const note = "daemonplan: plan: note: 1 pod of DaemonSet kube-system/agent has no controller-revision-hash label (kube-system/agent-x): " +
		"counted as outdated unless its pod-template-generation label is the template generation, as the controller counts it (-q hides notes)\n"
	if got.code != exitOK || !strings.Contains(got.stderr, note) {
		t.Errorf("exit %d, stderr %q; want 0 and %q", got.code, got.stderr, note)
	}
	if got := runCLI(t, "", "plan", "-f", file, "-q"); strings.Contains(got.stderr, "note:") {
		t.Errorf("-q: stderr %q", got.stderr)
	}
}
