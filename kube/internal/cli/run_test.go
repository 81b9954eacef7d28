package cli

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/kube/internal/conformance"
	"github.com/daemonplan/daemonplan/kube/kubesync"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/kube/upstream"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// result is what one run printed.
type result struct {
	code           int
	stdout, stderr string
}

// runCLI runs the command in-process with stdin and a fixed default clock.
func runCLI(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	c := &cli{name: "daemonplan", stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut,
		now: func() time.Time { return time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC) }}
	code := c.run(args)
	return result{code, out.String(), errOut.String()}
}

// readCase reads a conformance case of this checkout.
func readCase(t *testing.T, name string) conformance.Case {
	t.Helper()
	conformance.SkipIfAbsent(t)
	c, err := conformance.ReadCase(filepath.Join(conformance.CasesDir(), name))
	if err != nil {
		t.Fatalf("ReadCase(%s): %v", name, err)
	}
	return c
}

// readCase137 reads a case of the v1.37 set.
func readCase137(t *testing.T, name string) conformance.Case {
	t.Helper()
	conformance.SkipIfAbsent(t)
	c, err := conformance.ReadCase(filepath.Join(conformance.Sets()[1].Dir, name))
	if err != nil {
		t.Fatalf("ReadCase(%s): %v", name, err)
	}
	return c
}

func clusterFile(c conformance.Case) string { return filepath.Join(c.Dir, "cluster.json") }

func nowFlag(c conformance.Case) string { return c.Now.Format(time.RFC3339) }

// wantConforms fails unless stdout is a plan that conforms to the case.
func wantConforms(t *testing.T, c conformance.Case, stdout string) {
	t.Helper()
	for _, d := range conformance.Compare(c.Expected, []byte(stdout)) {
		t.Errorf("%s: %s", c.Name, d)
	}
}

func TestPlanJSON(t *testing.T) {
	seed01 := readCase(t, "seed-01")
	seed124 := readCase(t, "seed-124")
	seed101 := readCase137(t, "seed-101")
	v134 := []string{"--kubernetes-version", "1.34"}
	tests := []struct {
		name, reason string
		c            conformance.Case
		stdin        string
		args         []string
		version      upstream.Version // zero: the default, Latest
	}{{
		name:   "v1.37 case, default version",
		reason: "a case the v1.37 controller decided conforms without a version flag",
		c:      seed101,
		args:   []string{"plan", "-f", clusterFile(seed101), "--now", nowFlag(seed101), "-o", "json"},
	}, {
		name:    "seed-01 file",
		reason:  "the conformance README's command must print a conforming plan",
		c:       seed01,
		args:    append([]string{"plan", "-f", clusterFile(seed01), "--now", nowFlag(seed01), "-o", "json"}, v134...),
		version: upstream.V1_34,
	}, {
		name:    "seed-01 stdin",
		reason:  "-f - reads the same input from standard input",
		c:       seed01,
		stdin:   string(seed01.Cluster),
		args:    append([]string{"plan", "-f", "-", "--now", nowFlag(seed01), "-o", "json"}, v134...),
		version: upstream.V1_34,
	}, {
		name:    "long flags, flags in any order",
		reason:  "--filename and --output are kubectl's spellings",
		c:       seed01,
		args:    []string{"plan", "--output=json", "--now=" + nowFlag(seed01), "--filename", clusterFile(seed01), "--kubernetes-version=v1.34.4"},
		version: upstream.V1_34,
	}, {
		name:    "seed-124 multi-document YAML",
		reason:  "kubectl -o yaml output, one object per document, plans like the JSON List",
		c:       seed124,
		args:    append([]string{"plan", "-f", "testdata/seed-124.yaml", "--now", nowFlag(seed124), "-o", "json"}, v134...),
		version: upstream.V1_34,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runCLI(t, tt.stdin, tt.args...)
			if got.code != exitOK || got.stderr != "" {
				t.Fatalf("exit %d, stderr %q; want 0 and nothing (%s)", got.code, got.stderr, tt.reason)
			}
			wantConforms(t, tt.c, got.stdout)
			// The output is exactly the library's rendering, indented.
			cl, err := load.Read(bytes.NewReader(tt.c.Cluster))
			if err != nil {
				t.Fatal(err)
			}
			p, err := kubesync.Sync(cl, tt.c.Now, kubesync.State{}, kubesync.Options{KubernetesVersion: tt.version})
			if err != nil {
				t.Fatal(err)
			}
			want, err := json.MarshalIndent(kubesync.JSON(p, tt.version), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want)+"\n", got.stdout); diff != "" {
				t.Errorf("plan -o json mismatch (-want +got) (%s):\n%s", tt.reason, diff)
			}
		})
	}
}

func TestPlanTable(t *testing.T) {
	seed01 := readCase(t, "seed-01")
	got := runCLI(t, "", "plan", "-f", clusterFile(seed01), "--now", nowFlag(seed01))
	if got.code != exitOK || got.stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing", got.code, got.stderr)
	}
	tests := []struct {
		name, reason, want string
	}{
		{"header", "kubectl get ds columns, then misscheduled", "NAMESPACE   NAME         DESIRED   CURRENT   READY   UP-TO-DATE   AVAILABLE   NODE SELECTOR            AGE   MISSCHEDULED\n"},
		{"status line", "the status upstream writes: desired 10, current 8, ready 7, updated 8, available 7, misscheduled 4",
			"default     node-agent   10        8         7       8            7           kubernetes.io/os=linux   30d   4\n"},
		{"create", "node and the new pod's hash label", "node-010   5cbcfd9f59\n"},
		{"delete", "pod, node and reason", "node-agent-jx74q   node-gone-2   NodeGone\n"},
		{"adopt", "the orphan the sync claims", "node-agent-smqwb   adopt\n"},
		{"revision", "the ControllerRevision the sync creates", "node-agent-5cbcfd9f59   create   1          5cbcfd9f59\n"},
		{"rollout", "kubectl rollout status's message ends the table",
			"\nWaiting for daemon set \"node-agent\" rollout to finish: 8 out of 10 new pods have been updated...\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(got.stdout, tt.want) {
				t.Errorf("table lacks %q (%s); got:\n%s", tt.want, tt.reason, got.stdout)
			}
		})
	}
	if !strings.HasSuffix(got.stdout, "have been updated...\n") {
		t.Errorf("table does not end with the rollout message:\n%s", got.stdout)
	}
}

// TestPlanTableGolden pins the whole table for seed-01. Regenerate with
// go test ./kube/cmd/daemonplan -run TestPlanTableGolden -update, and read
// the diff before committing it.
func TestPlanTableGolden(t *testing.T) {
	seed01 := readCase(t, "seed-01")
	got := runCLI(t, "", "plan", "-f", clusterFile(seed01), "--now", nowFlag(seed01), "-o", "table")
	if got.code != exitOK {
		t.Fatalf("exit %d: %s", got.code, got.stderr)
	}
	golden := filepath.Join("testdata", "seed-01.table.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got.stdout); diff != "" {
		t.Errorf("plan -o table mismatch (-want +got):\n%s", diff)
	}
}

func TestExplain(t *testing.T) {
	seed01 := readCase(t, "seed-01")
	seed124 := readCase(t, "seed-124")
	f01, now01 := clusterFile(seed01), nowFlag(seed01)
	tests := []struct {
		name, reason string
		args         []string
		want         []string
	}{{
		name:   "NoSchedule taint",
		reason: "node-009 has dedicated=batch:NoSchedule, which the template does not tolerate",
		args:   []string{"explain", "-f", f01, "--now", now01, "node-009"},
		want: []string{"ShouldRun:              false\n", "ShouldContinueRunning:  true\n",
			"Reason:                 UntoleratedNoSchedule\n",
			"Failing:                1. taint dedicated=batch:NoSchedule is not tolerated: no new pod\n",
			"Pods:                   node-agent-r44z4: kept: runs the current template\n",
			"Fix:                    1. add the toleration {key: dedicated, operator: Equal, value: batch, effect: NoSchedule}"},
	}, {
		name:   "node affinity, with pod deletes",
		reason: "node-011 fails the required node affinity: its two pods are deleted",
		args:   []string{"explain", "node-011", "-f", f01, "--now", now01},
		want: []string{"ShouldRun:              false\n", "ShouldContinueRunning:  false\n",
			"Reason:                 NodeAffinityMismatch\n",
			"Failing:                1. required node affinity term 0 does not match: pool NotIn [gpu] (the node has pool=gpu)\n",
			"                        2. required node affinity term 1 does not match: metadata.name In [node-001] (the node is named node-011)\n",
			"Pods:                   node-agent-jwbkl: deleted: the node no longer meets",
			"                        node-agent-m2h9f: deleted: the node no longer meets",
			"holds (any one term is enough: the terms are ORed)"},
	}, {
		name:   "eligible, with a create",
		reason: "node-010 should run the pod and has none",
		args:   []string{"explain", "-f", f01, "--now", now01, "--", "node-010"},
		want: []string{"ShouldRun:              true\n", "Reason:                 Eligible\n",
			"Failing:                nothing: the node meets every placement rule\n",
			"Pods:                   (new): a new pod is created (hash 5cbcfd9f59)\n"},
	}, {
		name:   "nodeSelector key, YAML input",
		reason: "seed-124's node-003 does not have kubernetes.io/os=linux",
		args:   []string{"explain", "-f", "testdata/seed-124.yaml", "--now", nowFlag(seed124), "node-003"},
		want: []string{"ShouldRun:              false\n", "ShouldContinueRunning:  false\n",
			"Reason:                 NodeSelectorMismatch\n",
			"Failing:                1. nodeSelector kubernetes.io/os=linux: the node has kubernetes.io/os=windows\n",
			"                        2. required node affinity term 0 does not match:",
			"Fix:                    1. kubectl label node node-003 kubernetes.io/os=linux --overwrite"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runCLI(t, "", tt.args...)
			if got.code != exitOK || got.stderr != "" {
				t.Fatalf("exit %d, stderr %q; want 0 and nothing (%s)", got.code, got.stderr, tt.reason)
			}
			for _, w := range tt.want {
				if !strings.Contains(got.stdout, w) {
					t.Errorf("explain lacks %q (%s); got:\n%s", w, tt.reason, got.stdout)
				}
			}
		})
	}
}

// minimalDS is a DaemonSet the loader and converter accept. Its name must
// not read as a YAML 1.1 boolean ("y", "n").
const minimalDS = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: %s, namespace: default, uid: u-%s, generation: 1}
spec:
  selector: {matchLabels: {app: a}}
  template:
    metadata: {labels: {app: a}}
    spec: {containers: [{name: c, image: i}]}
`

func ds(name string) string { return strings.ReplaceAll(minimalDS, "%s", name) }

func TestErrors(t *testing.T) {
	seed01 := readCase(t, "seed-01")
	f01, now01 := clusterFile(seed01), nowFlag(seed01)
	tests := []struct {
		name, reason string
		stdin        string
		args         []string
		code         int
		stderr       string // a substring of the one-line message
	}{
		{"no arguments", "a command is required", "", nil, exitUsage, "a command is required"},
		{"unknown command", "", "", []string{"aply"}, exitUsage, `unknown command "aply"`},
		{"unknown flag", "", "", []string{"plan", "-f", f01, "--bogus"}, exitUsage, "unknown flag: --bogus"},
		{"flag without value", "", "", []string{"plan", "-f"}, exitUsage, "flag needs an argument: 'f' in -f"},
		{"missing -f", "", "", []string{"plan"}, exitUsage, "-f FILE is required"},
		{"bad -o", "", "", []string{"plan", "-f", f01, "-o", "xml"}, exitUsage, `-o "xml": want one of table, wide, json, yaml, name`},
		{"bad --now", "not RFC 3339", "", []string{"plan", "-f", f01, "--now", "yesterday"}, exitUsage, `--now "yesterday"`},
		{"bad --ds", "", "", []string{"plan", "-f", f01, "--ds", "a/b/c"}, exitUsage, `--ds "a/b/c"`},
		{"argument not a DaemonSet", "plan's argument is the DaemonSet, as kubectl's ds/NAME: a node name is not one", "", []string{"plan", "-f", f01, "node-001"}, exitError, `no DaemonSet in input: node-001; the input holds default/node-agent`},
		{"two arguments", "plan takes one DaemonSet", "", []string{"plan", "-f", f01, "a", "b"}, exitUsage, `want at most one DaemonSet argument`},
		{"explain without node", "", "", []string{"explain", "-f", f01}, exitUsage, "NODE is required"},
		{"explain three arguments", "", "", []string{"explain", "-f", f01, "a", "b", "c"}, exitUsage, "want [ds/NAME] NODE"},
		{"missing file", "", "", []string{"plan", "-f", "testdata/does-not-exist.json"}, exitError, "no such file or directory"},
		{"directory", "a directory is read file by file and merged; these files hold two versions of one DaemonSet", "", []string{"plan", "-f", "testdata"}, exitError, "the same object appears twice with different content"},
		{"malformed JSON", "", `{"apiVersion": "v1", "kind": `, []string{"plan", "-f", "-"}, exitError, "load: standard input: JSON value 1"},
		{"malformed YAML", "", "apiVersion: v1\nkind: [Node\n", []string{"plan", "-f", "-"}, exitError, "load: standard input: YAML document 1"},
		{"not an object", "", "42\n", []string{"plan", "-f", "-"}, exitError, "not an object"},
		{"empty input", "", "", []string{"plan", "-f", "-"}, exitError, "no DaemonSet in input"},
		{"no DaemonSet", "nodes alone", "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n", []string{"plan", "-f", "-"}, exitError, "no DaemonSet in input"},
		{"two DaemonSets", "the plan is for one", ds("ds-x") + "---\n" + ds("ds-y"), []string{"plan", "-f", "-"}, exitError,
			"more than one DaemonSet in input: default/ds-x, default/ds-y; pick one with --ds"},
		{"--ds names none", "the DaemonSets present are listed", ds("ds-x") + "---\n" + ds("ds-w"), []string{"plan", "-f", "-", "--ds", "default/ds-z"}, exitError,
			"no DaemonSet in input: default/ds-z; the input holds default/ds-w, default/ds-x"},
		{"stdin twice", "standard input can be read once", ds("ds-x"), []string{"plan", "-f", "-", "-f", "-"}, exitUsage, "standard input (-) given twice"},
		{"unknown node", "", "", []string{"explain", "-f", f01, "--now", now01, "node-999"}, exitError, `node "node-999" is not in the input (17 nodes)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runCLI(t, tt.stdin, tt.args...)
			if got.code != tt.code {
				t.Errorf("exit %d, want %d (%s); stderr:\n%s", got.code, tt.code, tt.reason, got.stderr)
			}
			if !strings.Contains(got.stderr, tt.stderr) {
				t.Errorf("stderr %q lacks %q (%s)", got.stderr, tt.stderr, tt.reason)
			}
			if got.stdout != "" {
				t.Errorf("stdout %q, want nothing on failure", got.stdout)
			}
			if tt.args != nil && strings.Count(got.stderr, "\n") != 1 {
				t.Errorf("stderr is not one line: %q", got.stderr)
			}
			if strings.Contains(got.stderr, "goroutine ") || strings.Contains(got.stderr, "panic") {
				t.Errorf("stderr holds a stack trace: %q", got.stderr)
			}
		})
	}
}

func TestPickDaemonSet(t *testing.T) {
	got := runCLI(t, ds("ds-x")+"---\n"+ds("ds-y"), "plan", "-f", "-", "--ds", "ds-y", "-o", "json", "--now", "2025-06-01T12:00:00Z")
	if got.code != exitOK {
		t.Fatalf("exit %d: %s", got.code, got.stderr)
	}
	var p conformance.Plan
	if err := json.Unmarshal([]byte(got.stdout), &p); err != nil {
		t.Fatal(err)
	}
	if want := (conformance.Ref{Namespace: "default", Name: "ds-y"}); p.DaemonSet != want {
		t.Errorf("--ds ds-y planned %+v, want %+v", p.DaemonSet, want)
	}
}

func TestStrict(t *testing.T) {
	c := readCase(t, "extra-invalid-27")
	// As the API server words it, bad value included.
	const finding = `spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: "10%": may not be set when maxUnavailable is non-zero` + "\n"
	tests := []struct {
		name, reason string
		args         []string
		code         int
		stderr       []string
	}{{
		name:   "without --strict",
		reason: "the controller trusts the API server and plans: the finding is a warning",
		args:   []string{"plan", "-f", clusterFile(c), "--now", nowFlag(c)},
		code:   exitOK,
		stderr: []string{"warning: " + finding},
	}, {
		name:   "--strict",
		reason: "the spec is refused, naming the field path",
		args:   []string{"plan", "--strict", "-f", clusterFile(c), "--now", nowFlag(c)},
		code:   exitError,
		stderr: []string{"DaemonSet default/node-agent (" + clusterFile(c) + ": JSON value 1, items[0]) is invalid (--strict): 1 field error(s)\n", "error: " + finding},
	}, {
		name:   "explain --strict",
		reason: "explain refuses the same spec",
		args:   []string{"explain", "--strict", "-f", clusterFile(c), "--now", nowFlag(c), "node-001"},
		code:   exitError,
		stderr: []string{"error: " + finding},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runCLI(t, "", tt.args...)
			if got.code != tt.code {
				t.Errorf("exit %d, want %d (%s)", got.code, tt.code, tt.reason)
			}
			for _, w := range tt.stderr {
				if !strings.Contains(got.stderr, w) {
					t.Errorf("stderr %q lacks %q (%s)", got.stderr, w, tt.reason)
				}
			}
			if tt.code != exitOK && got.stdout != "" {
				t.Errorf("stdout %q, want nothing when refused", got.stdout)
			}
		})
	}

	// In JSON the finding is also under "warnings".
	got := runCLI(t, "", "plan", "-f", clusterFile(c), "--now", nowFlag(c), "-o", "json")
	var p conformance.Plan
	if err := json.Unmarshal([]byte(got.stdout), &p); err != nil {
		t.Fatal(err)
	}
	want := []conformance.Warning{{Field: "spec.updateStrategy.rollingUpdate.maxSurge", Type: "Invalid",
		Detail:  "may not be set when maxUnavailable is non-zero",
		Message: strings.TrimSuffix(finding, "\n")}}
	if diff := cmp.Diff(want, p.Warnings); diff != "" {
		t.Errorf("warnings mismatch (-want +got):\n%s", diff)
	}
}

// TestSyncErrorStillPrints: a DaemonSet whose maxUnavailable is not a
// percentage makes upstream's rolling update, and so its sync, fail; the
// plan is still printed, with exit 0.
func TestSyncErrorStillPrints(t *testing.T) {
	in := ds("ds-x") + `  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: "abc%"}}
---
apiVersion: v1
kind: Node
metadata: {name: node-1}
---
apiVersion: v1
kind: Pod
metadata:
  name: ds-x-1
  namespace: default
  uid: p1
  labels: {app: a}
  ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: ds-x, uid: u-ds-x, controller: true}]
spec: {nodeName: node-1}
status: {phase: Running}
`
	got := runCLI(t, in, "plan", "-f", "-", "--now", "2025-06-01T12:00:00Z")
	if got.code != exitOK {
		t.Fatalf("exit %d, want 0: %s", got.code, got.stderr)
	}
	if !strings.Contains(got.stdout, "\nERRORS (1)\n") {
		t.Errorf("table lacks the ERRORS section:\n%s", got.stdout)
	}
	if !strings.Contains(got.stderr, `warning: spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "abc%"`) {
		t.Errorf("stderr lacks the maxUnavailable finding: %q", got.stderr)
	}
}

func TestDefaultNow(t *testing.T) {
	c := readCase(t, "seed-01")
	// runCLI's clock reads seed-01's now.txt instant.
	def := runCLI(t, "", "plan", "-f", clusterFile(c), "-o", "json")
	explicit := runCLI(t, "", "plan", "-f", clusterFile(c), "-o", "json", "--now", nowFlag(c))
	if def.code != exitOK {
		t.Fatalf("exit %d: %s", def.code, def.stderr)
	}
	if diff := cmp.Diff(explicit.stdout, def.stdout); diff != "" {
		t.Errorf("default --now mismatch (-explicit +default):\n%s", diff)
	}
}

func TestHelp(t *testing.T) {
	tests := []struct {
		name, reason string
		args         []string
		want         []string
	}{
		{"help", "the commands and exit codes", []string{"help"}, []string{"Available Commands:", "plan", "explain", "Exit status:"}},
		{"-h", "", []string{"-h"}, []string{"Available Commands:", "Exit status:"}},
		{"--help", "", []string{"--help"}, []string{"Available Commands:", "Exit status:"}},
		{"plan -h", "plan's own flags", []string{"plan", "-h"}, []string{"-o, --output string", "-f, --filename stringArray", "Default: the current time, in UTC", "wide   table, with each pod to create as the API server admits it"}},
		{"help plan", "", []string{"help", "plan"}, []string{"-o, --output string"}},
		{"explain --help", "explain's own text and flags", []string{"explain", "--help"}, []string{"EVERY failing reason", "-f, --filename stringArray"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runCLI(t, "", tt.args...)
			if got.code != exitOK || got.stderr != "" {
				t.Errorf("exit %d, stderr %q; want 0 and nothing", got.code, got.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(got.stdout, w) {
					t.Errorf("help lacks %q (%s):\n%s", w, tt.reason, got.stdout)
				}
			}
		})
	}
	if got := runCLI(t, "", "explain", "-h"); strings.Contains(got.stdout, "--output") {
		t.Error("explain -h lists plan's --output flag")
	}
}

// TestVersionFlags checks --kubernetes-version and --feature-gates: the
// version chosen is the one the JSON plan names, and what cannot be planned
// is refused before any planning.
func TestVersionFlags(t *testing.T) {
	seed01 := readCase(t, "seed-01")
	base := []string{"plan", "-f", clusterFile(seed01), "--now", nowFlag(seed01), "-o", "json"}
	tests := []struct {
		name, reason string
		args         []string
		wantCode     int
		wantVersion  string // in the JSON plan, when wantCode is exitOK
		wantStderr   string // a substring, when wantCode is not exitOK
	}{
		{"default", "the newest supported minor is the default", nil, exitOK, "1.37", ""},
		{"patch release", "a patch number is accepted and names its minor", []string{"--kubernetes-version", "v1.35.3"}, exitOK, "1.35", ""},
		{"unsupported", "a minor the planner does not reproduce is refused, naming the supported ones",
			[]string{"--kubernetes-version", "1.33"}, exitUsage, "", "1.34, 1.35, 1.36, 1.37"},
		{"gate on", "the Lt/Gt gate can be turned on from 1.35", []string{"--feature-gates", "TaintTolerationComparisonOperators=true"}, exitOK, "1.37", ""},
		{"gate before 1.35", "the gate does not exist in 1.34",
			[]string{"--kubernetes-version", "1.34", "--feature-gates", "TaintTolerationComparisonOperators=true"}, exitUsage, "", "exists from Kubernetes 1.35"},
		{"unknown gate", "a gate the planner does not know is refused", []string{"--feature-gates", "Foo=true"}, exitUsage, "", "unknown feature gate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runCLI(t, "", append(slices.Clone(base), tt.args...)...)
			if got.code != tt.wantCode {
				t.Fatalf("exit %d, want %d (%s); stderr %q", got.code, tt.wantCode, tt.reason, got.stderr)
			}
			if tt.wantCode != exitOK {
				if !strings.Contains(got.stderr, tt.wantStderr) {
					t.Errorf("stderr %q lacks %q (%s)", got.stderr, tt.wantStderr, tt.reason)
				}
				return
			}
			var doc struct {
				KubernetesVersion string `json:"kubernetesVersion"`
			}
			if err := json.Unmarshal([]byte(got.stdout), &doc); err != nil {
				t.Fatal(err)
			}
			if doc.KubernetesVersion != tt.wantVersion {
				t.Errorf("kubernetesVersion = %q, want %q (%s)", doc.KubernetesVersion, tt.wantVersion, tt.reason)
			}
		})
	}
}

// ownedPod is a Ready pod of ds("ds-x") on node-1.
const ownedPod = `apiVersion: v1
kind: Pod
metadata:
  name: ds-x-abcde
  namespace: default
  uid: pod-uid-1
  labels: {app: a, pod-template-generation: "1"}
  ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: ds-x, uid: u-ds-x, controller: true}]
spec: {nodeName: node-1, containers: [{name: c, image: i}]}
status:
  phase: Running
  conditions: [{type: Ready, status: "True", lastTransitionTime: "2025-06-01T11:00:00Z"}]
`

const node1 = "apiVersion: v1\nkind: Node\nmetadata: {name: node-1}\n"

// TestDuplicateObjects: a pod listed twice was deleted as a duplicate of
// itself, even under OnDelete; duplicate node names were a plan error with
// exit status 0 (issue 15, items 1 and 3). Identical copies are now one
// object, differing ones an input error naming both positions.
func TestDuplicateObjects(t *testing.T) {
	rolling := strings.Replace(ds("ds-x"), "generation: 1}", "generation: 1, annotations: {deprecated.daemonset.template.generation: \"1\"}}", 1)
	onDelete := strings.Replace(rolling, "spec:\n", "spec:\n  updateStrategy: {type: OnDelete}\n", 1)
	for _, tt := range []struct{ name, in string }{
		{"RollingUpdate", rolling + "---\n" + node1 + "---\n" + ownedPod + "---\n" + ownedPod},
		{"OnDelete", onDelete + "---\n" + node1 + "---\n" + ownedPod + "---\n" + ownedPod},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := runCLI(t, tt.in, "plan", "-f", "-", "-o", "json", "--now", "2025-06-01T12:00:00Z")
			if got.code != exitOK {
				t.Fatalf("exit %d: %s", got.code, got.stderr)
			}
			var p conformance.Plan
			if err := json.Unmarshal([]byte(got.stdout), &p); err != nil {
				t.Fatal(err)
			}
			if len(p.Delete) != 0 || len(p.Create) != 0 {
				t.Errorf("a pod listed twice: plan deletes %v and creates %v, want nothing", p.Delete, p.Create)
			}
		})
	}

	other := strings.Replace(node1, "{name: node-1}", "{name: node-1, labels: {zone: b}}", 1)
	got := runCLI(t, ds("ds-x")+"---\n"+node1+"---\n"+other, "plan", "-f", "-")
	want := "daemonplan: plan: load: standard input: YAML document 3 (v1 Node node-1): the same object appears twice with different content: differs from its copy at standard input: YAML document 2\n"
	if got.code != exitError || got.stderr != want || got.stdout != "" {
		t.Errorf("two different node-1: exit %d, stderr %q, stdout %q; want exit 1 and %q", got.code, got.stderr, got.stdout, want)
	}
}

// TestDaemonSetWithoutUID: a DaemonSet without metadata.uid took a pod of a
// ReplicaSet whose owner reference had no UID either for its own and
// deleted it (issue 15, item 2); later every command warned
// "metadata.uid: Required value" about a manifest as written, and --strict
// refused it (issue 27). Now a manifest is planned as the API server would
// store it on create, with a uid of its own: nothing foreign is taken, a
// note on stderr says so, and --strict has nothing to refuse.
func TestDaemonSetWithoutUID(t *testing.T) {
	noUID := strings.Replace(ds("ds-x"), "uid: u-ds-x, ", "", 1)
	foreign := strings.NewReplacer("kind: DaemonSet, name: ds-x, uid: u-ds-x", "kind: ReplicaSet, name: web, uid: \"\"").Replace(ownedPod)
	in := noUID + "---\n" + node1 + "---\n" + foreign
	got := runCLI(t, in, "plan", "-f", "-", "-o", "json", "--now", "2025-06-01T12:00:00Z")
	if got.code != exitOK {
		t.Fatalf("exit %d: %s", got.code, got.stderr)
	}
	var p conformance.Plan
	if err := json.Unmarshal([]byte(got.stdout), &p); err != nil {
		t.Fatal(err)
	}
	if len(p.Delete) != 0 || len(p.Adopt) != 0 {
		t.Errorf("the ReplicaSet's pod was taken: delete %v adopt %v", p.Delete, p.Adopt)
	}
	if len(p.Create) != 1 {
		t.Errorf("creates %v, want one pod on node-1", p.Create)
	}
	note := "daemonplan: plan: note: DaemonSet default/ds-x (standard input: YAML document 1) has no uid: " +
		"planned as the API server would store it on create, with its defaults and uid " + string(manifestUID("default", "ds-x"))
	if !strings.HasPrefix(got.stderr, note) || strings.Count(got.stderr, "\n") != 1 || strings.Contains(got.stderr, "warning") {
		t.Errorf("stderr %q, want the one line %q…", got.stderr, note)
	}

	got = runCLI(t, in, "plan", "--strict", "-f", "-", "--now", "2025-06-01T12:00:00Z")
	if got.code != exitOK || !strings.HasPrefix(got.stderr, note) {
		t.Errorf("--strict: exit %d, stderr %q; want exit 0 and the note", got.code, got.stderr)
	}
}

// TestInputProblems: an input the planner refuses (here a pod without a
// name, which the loader reads) names the position of each object (issue
// 15, item 3), with exit status 1.
func TestInputProblems(t *testing.T) {
	nameless := "apiVersion: v1\nkind: Pod\nmetadata: {namespace: default}\n"
	got := runCLI(t, ds("ds-x")+"---\n"+node1+"---\n"+nameless, "plan", "-f", "-", "--now", "2025-06-01T12:00:00Z")
	want := "daemonplan: plan: the input cannot be planned: 1 problem(s)\n" +
		"error: standard input: YAML document 3: pods[0].name: Required value: every object of a snapshot needs a name\n"
	if got.code != exitError || got.stderr != want || got.stdout != "" {
		t.Errorf("exit %d, stderr %q, stdout %q; want exit 1 and %q", got.code, got.stderr, got.stdout, want)
	}
}

// TestStdinReadOnce: every flag that reads a file takes "-" for standard
// input, which one command can read once. A second "-", on any of its
// flags, is a usage error; simulate and overhead used to read the emptied
// input and report it as holding no DaemonSet or no Node.
func TestStdinReadOnce(t *testing.T) {
	cluster, err := os.ReadFile("testdata/overhead-cluster.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
	}{
		{"plan -f twice", []string{"plan", "-f", "-", "-f", "-"}},
		{"diff --ds-file", []string{"diff", "-f", "-", "--ds", "kube-system/kube-proxy", "--ds-file", "-"}},
		{"diff --node-file", []string{"diff", "-f", "-", "--ds", "kube-system/kube-proxy", "--node-file", "-"}},
		{"simulate --ds-file", []string{"simulate", "-f", "-", "--ds", "kube-system/kube-proxy", "--ds-file", "-"}},
		{"overhead --node-file", []string{"overhead", "-f", "-", "--node-file", "-"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runCLI(t, string(cluster), tt.args...)
			if want := "standard input (-) given twice"; got.code != exitUsage || !strings.Contains(got.stderr, want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", got.code, got.stderr, exitUsage, want)
			}
		})
	}
}

// TestStrictComparisonOperators: an Lt toleration is what the API server
// refuses without the TaintTolerationComparisonOperators gate and accepts
// with it (with an integer value): --strict follows --feature-gates.
func TestStrictComparisonOperators(t *testing.T) {
	lt := func(value string) string {
		return strings.Replace(ds("ds-x"), "spec: {containers: [{name: c, image: i}]}",
			`spec: {containers: [{name: c, image: i}], tolerations: [{key: example.com/gpus, operator: Lt, value: "`+value+`", effect: NoSchedule}]}`, 1) +
			"---\n" + node1
	}
	gate := []string{"--feature-gates", "TaintTolerationComparisonOperators=true"}
	tests := []struct {
		name, reason string
		value        string
		gate         bool
		wantCode     int
		wantStderr   string
	}{
		{"no gate", "without the gate Lt is not a supported operator", "4", false, exitError,
			`error: spec.template.spec.tolerations[0].operator: Unsupported value: "Lt": supported values: "Equal", "Exists", "Lt", "Gt"`},
		{"gate", "with the gate an integer value is accepted", "4", true, exitOK, ""},
		{"gate, bad value", "with the gate the value must be an integer in canonical form", "04", true, exitError,
			`error: spec.template.spec.tolerations[0].value: Invalid value: "04": must be a valid decimal integer in canonical form`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{"plan", "--strict", "-f", "-", "--now", "2025-06-01T12:00:00Z"}
			if tt.gate {
				args = append(args, gate...)
			}
			got := runCLI(t, lt(tt.value), args...)
			if got.code != tt.wantCode || !strings.Contains(got.stderr, tt.wantStderr) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q (%s)", got.code, got.stderr, tt.wantCode, tt.wantStderr, tt.reason)
			}
		})
	}
}

// TestFilenameDirectory: -f DIR reads the .json, .yaml and .yml files of
// DIR, as kubectl does, and merges them like repeated -f; other files are
// left out, and a directory without such a file is an error.
func TestFilenameDirectory(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("ds.yaml", ds("ds-x"))
	write("node.yml", node1)
	write("pod.json", `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "ds-x-abcde", "namespace": "default", "uid": "pod-uid-1", "labels": {"app": "a"},
		"ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "ds-x", "uid": "u-ds-x", "controller": true}]},
		"spec": {"nodeName": "node-1"}, "status": {"phase": "Running"}}`)
	write("notes.txt", "not an object")
	got := runCLI(t, "", "plan", "-f", dir, "--now", "2025-06-01T12:00:00Z", "-o", "json")
	if got.code != exitOK {
		t.Fatalf("exit %d: %s", got.code, got.stderr)
	}
	var p conformance.Plan
	if err := json.Unmarshal([]byte(got.stdout), &p); err != nil {
		t.Fatal(err)
	}
	if len(p.Nodes) != 1 || len(p.Create) != 0 || p.Status.CurrentNumberScheduled != 1 {
		t.Errorf("plan of the directory: %d nodes, %d creates, %d scheduled; want the node and its pod read", len(p.Nodes), len(p.Create), p.Status.CurrentNumberScheduled)
	}
	empty := t.TempDir()
	if got := runCLI(t, "", "plan", "-f", empty); got.code != exitError || !strings.Contains(got.stderr, "no .json, .yaml or .yml file") {
		t.Errorf("empty directory: exit %d, stderr %q", got.code, got.stderr)
	}
}
