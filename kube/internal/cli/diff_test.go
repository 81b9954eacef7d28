package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/daemonplan/daemonplan/kube/schema"
)

// diffArgs are the arguments of a diff of seed-01 with edits.
func diffArgs(t *testing.T, edits ...string) []string {
	t.Helper()
	c := readCase(t, "seed-01")
	return append([]string{"diff", "-f", clusterFile(c), "--now", nowFlag(c)}, edits...)
}

// runDiffJSON runs diff -o json and decodes the document strictly: a key
// the schema does not know fails.
func runDiffJSON(t *testing.T, args ...string) schema.Diff {
	t.Helper()
	r := runCLI(t, "", append(args, "-o", "json")...)
	if r.code != exitOK {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
	return decodeDiff(t, r.stdout)
}

func decodeDiff(t *testing.T, out string) schema.Diff {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	var doc schema.Diff
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("diff -o json is not the schema.Diff document: %v\n%s", err, out)
	}
	return doc
}

func nodeOf(t *testing.T, doc schema.Diff, name string) schema.DiffNode {
	t.Helper()
	for _, n := range doc.Nodes {
		if n.Name == name {
			return n
		}
	}
	t.Fatalf("node %s not in the diff", name)
	return schema.DiffNode{}
}

// TestDiffGolden pins the table and the JSON document of a diff of seed-01:
// a new image (a manifest for kubectl apply) and node-004 moved to the gpu
// pool, which the required node affinity excludes. Regenerate with
// go test ./kube/internal/cli -run TestDiffGolden -update, and read the
// diff before committing it.
func TestDiffGolden(t *testing.T) {
	args := diffArgs(t, "--ds-file", "testdata/diff-node-agent.yaml", "--label", "node-004:pool=gpu")
	for _, tt := range []struct{ output, golden string }{
		{"table", "diff.table.golden"},
		{"json", "diff.json.golden"},
	} {
		t.Run(tt.output, func(t *testing.T) {
			r := runCLI(t, "", append(slices.Clone(args), "-o", tt.output)...)
			if r.code != exitOK || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q; want 0 and nothing", r.code, r.stderr)
			}
			golden := filepath.Join("testdata", tt.golden)
			if *update {
				if err := os.WriteFile(golden, []byte(r.stdout), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), r.stdout); diff != "" {
				t.Errorf("diff -o %s mismatch (-want +got):\n%s", tt.output, diff)
			}
			again := runCLI(t, "", append(slices.Clone(args), "-o", tt.output)...)
			if again.stdout != r.stdout {
				t.Errorf("diff -o %s differs between two runs", tt.output)
			}
		})
	}
}

// TestDiffJSONIsValid checks the document as kubectl's -o json is checked
// by its consumers: valid JSON, decodable into the schema without unknown
// keys, rendering back to the same bytes, every list present.
func TestDiffJSONIsValid(t *testing.T) {
	r := runCLI(t, "", append(diffArgs(t, "--remove-node", "node-016", "--node-file", "testdata/node-hypothetical.yaml"), "-o", "json")...)
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !json.Valid([]byte(r.stdout)) {
		t.Fatalf("not JSON:\n%s", r.stdout)
	}
	doc := decodeDiff(t, r.stdout)
	back, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(r.stdout, string(back)+"\n"); diff != "" {
		t.Errorf("the document does not round-trip through schema.Diff (-printed +schema):\n%s", diff)
	}
	var raw map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &raw); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"edits", "nodes"} {
		if _, ok := raw[key].([]any); !ok {
			t.Errorf("%q is not a list: %v", key, raw[key])
		}
	}
	if !slices.IsSortedFunc(doc.Nodes, func(a, b schema.DiffNode) int { return strings.Compare(a.Name, b.Name) }) {
		t.Error("nodes are not sorted by name")
	}
	for _, ct := range []schema.DiffCounts{doc.Counts, doc.Pending.Counts} {
		if sum := countsSum(ct); sum != len(doc.Nodes) {
			t.Errorf("counts %+v add up to %d, want %d nodes", ct, sum, len(doc.Nodes))
		}
	}
	want := []string{"--node-file testdata/node-hypothetical.yaml", "--remove-node node-016"}
	if diff := cmp.Diff(want, doc.Edits); diff != "" {
		t.Errorf("edits mismatch (-want +got):\n%s", diff)
	}
}

// TestDiffEdits checks each kind of edit on seed-01: the node it is about,
// its change and why.
func TestDiffEdits(t *testing.T) {
	onDelete := writeTemp(t, "ondelete.yaml", strings.Replace(readFile(t, "testdata/diff-node-agent.yaml"),
		"spec:\n  selector:", "spec:\n  updateStrategy: {type: OnDelete}\n  selector:", 1))
	tests := []struct {
		name, reason string
		edits        []string
		node         string
		want         schema.DiffNode // Name, Change, Added, Removed and Why are compared, and After.Reason when set
		steps        int             // -1: not checked
		counts       *schema.DiffCounts
		pending      *schema.DiffCounts // what seed-01 does without the edit
		noBudgets    bool               // OnDelete: no rolling-update budgets, in the JSON and the table
	}{{
		name:    "image",
		reason:  "a new image replaces every pod that may stay, maxUnavailable 2 at a time (steps: the budget's waves, plus the deletes of surplus and failed pods the snapshot holds: a budget's worth each); node-010 and node-013, which get a pod anyway, get one of the new template: Replaced",
		edits:   []string{"--ds-file", "testdata/diff-node-agent.yaml"},
		node:    "node-001",
		want:    schema.DiffNode{Change: "Replaced", After: &schema.Decision{Reason: "Eligible"}},
		steps:   7,
		counts:  &schema.DiffCounts{Unchanged: 4, Loses: 3, Replaced: 10},
		pending: &schema.DiffCounts{Unchanged: 15, Gains: 2},
	}, {
		name:      "OnDelete image",
		reason:    "with OnDelete a new image replaces nothing: the pods are outdated",
		edits:     []string{"--ds-file", onDelete},
		node:      "node-001",
		want:      schema.DiffNode{Change: "Outdated"},
		steps:     -1,
		noBudgets: true,
	}, {
		name:   "nodeSelector label removed",
		reason: "node-004 loses kubernetes.io/os, which the nodeSelector needs: its pod is deleted",
		edits:  []string{"--label", "node-004:kubernetes.io/os-"},
		node:   "node-004",
		want:   schema.DiffNode{Change: "Loses", Why: "NotEligible", After: &schema.Decision{Reason: "NodeSelectorMismatch"}},
		steps:  -1,
	}, {
		name:   "nodeSelector label changed",
		reason: "node-003 becomes a windows node",
		edits:  []string{"--label", "node-003,node-004:kubernetes.io/os=windows"},
		node:   "node-003",
		want:   schema.DiffNode{Change: "Loses", Why: "NotEligible", After: &schema.Decision{Reason: "NodeSelectorMismatch"}},
		steps:  -1,
	}, {
		name:   "NoExecute taint",
		reason: "an untolerated NoExecute taint evicts the pod",
		edits:  []string{"--taint", "node-003:maintenance=now:NoExecute"},
		node:   "node-003",
		want:   schema.DiffNode{Change: "Loses", Why: "UntoleratedTaint", After: &schema.Decision{Reason: "UntoleratedNoExecute"}},
		steps:  -1,
	}, {
		name:   "NoSchedule taint",
		reason: "an untolerated NoSchedule taint lets the pod stay, but the node no longer should run one: listed as DecisionChanged",
		edits:  []string{"--taint", "node-003:maintenance=now:NoSchedule"},
		node:   "node-003",
		want:   schema.DiffNode{Change: "DecisionChanged", After: &schema.Decision{Reason: "UntoleratedNoSchedule"}},
		steps:  -1,
	}, {
		name:   "taint removed",
		reason: "node-009 without its dedicated=batch taint should run the pod; it keeps the one it has: DecisionChanged",
		edits:  []string{"--taint", "node-009:dedicated-"},
		node:   "node-009",
		want:   schema.DiffNode{Change: "DecisionChanged", After: &schema.Decision{Reason: "Eligible"}},
		steps:  -1,
	}, {
		name:   "node added",
		reason: "a linux node of the general pool with the tolerated infra taint gains a pod",
		edits:  []string{"--node-file", "testdata/node-hypothetical.yaml"},
		node:   "new-general-1",
		want:   schema.DiffNode{Change: "Gains", Added: true, After: &schema.Decision{Reason: "Eligible"}},
		steps:  -1,
	}, {
		name:   "node replaced by --node-file",
		reason: "a node file node with an existing name replaces it: node-003 becomes a gpu node and loses its pod",
		edits:  []string{"--node-file", writeTemp(t, "node-003.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name: node-003, labels: {kubernetes.io/os: linux, pool: gpu}}\n")},
		node:   "node-003",
		want:   schema.DiffNode{Change: "Loses", Why: "NotEligible", After: &schema.Decision{Reason: "NodeAffinityMismatch"}},
		steps:  -1,
	}, {
		name:   "node removed, new image",
		reason: "the rolling update deletes the outdated pod bound to a removed node",
		edits:  []string{"--remove-node", "node-016", "--ds-file", "testdata/diff-node-agent.yaml"},
		node:   "node-016",
		want:   schema.DiffNode{Change: "Loses", Removed: true, Why: "Outdated"},
		steps:  -1,
	}, {
		name:   "node removed",
		reason: "a removed node loses its pod, which the DaemonSet does not delete",
		edits:  []string{"--remove-node", "node-016"},
		node:   "node-016",
		want:   schema.DiffNode{Change: "Loses", Removed: true},
		steps:  -1,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := runDiffJSON(t, diffArgs(t, tt.edits...)...)
			got := nodeOf(t, doc, tt.node)
			want := tt.want
			want.Name = tt.node
			cmpd := schema.DiffNode{Name: got.Name, Change: got.Change, Added: got.Added, Removed: got.Removed, Why: got.Why}
			if want.After != nil {
				if got.After == nil {
					t.Fatalf("%s has no decision after the edit (%s)", tt.node, tt.reason)
				}
				cmpd.After = &schema.Decision{Reason: got.After.Reason}
			}
			if diff := cmp.Diff(want, cmpd); diff != "" {
				t.Errorf("%s mismatch (-want +got) (%s):\n%s", tt.node, tt.reason, diff)
			}
			if tt.steps >= 0 && doc.Steps != tt.steps {
				t.Errorf("steps = %d, want %d (%s)", doc.Steps, tt.steps, tt.reason)
			}
			if tt.counts != nil {
				if diff := cmp.Diff(*tt.counts, doc.Counts); diff != "" {
					t.Errorf("counts mismatch (-want +got) (%s):\n%s", tt.reason, diff)
				}
			}
			if tt.pending != nil {
				if diff := cmp.Diff(*tt.pending, doc.Pending.Counts); diff != "" {
					t.Errorf("pending counts mismatch (-want +got) (%s):\n%s", tt.reason, diff)
				}
			}
			if !doc.Settled {
				t.Errorf("the rollout does not settle (%s)", tt.reason)
			}
			if tt.noBudgets {
				if b := doc.Budgets; b.MaxUnavailable != 0 || b.MaxSurge != 0 || b.Desired == 0 {
					t.Errorf("budgets %+v, want the desired count alone (%s)", b, tt.reason)
				}
				table := runCLI(t, "", diffArgs(t, tt.edits...)...)
				if !strings.Contains(table.stdout, "OnDelete: no rolling-update budgets") {
					t.Errorf("the table does not say OnDelete has no budgets (%s):\n%s", tt.reason, table.stdout)
				}
			}
		})
	}
}

// TestDiffDaemonSetForms: the same new image given as 'kubectl get ds -o
// yaml' prints it (the cluster's DaemonSet, edited) and as a manifest for
// kubectl apply gives the same diff; a manifest that restates the live
// spec changes nothing, since the fields it leaves out keep their
// (defaulted) live values.
func TestDiffDaemonSetForms(t *testing.T) {
	c := readCase(t, "seed-01")
	var list struct {
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal(c.Cluster, &list); err != nil {
		t.Fatal(err)
	}
	var live []byte
	for _, it := range list.Items {
		if it["kind"] == "DaemonSet" {
			b, err := yaml.Marshal(it)
			if err != nil {
				t.Fatal(err)
			}
			live = b
		}
	}
	if !bytes.Contains(live, []byte("agent:v1.1")) {
		t.Fatalf("seed-01's DaemonSet has no agent:v1.1 image:\n%s", live)
	}
	got := writeTemp(t, "get.yaml", strings.Replace(string(live), "agent:v1.1", "agent:v1.2", 1))
	fromGet := runDiffJSON(t, diffArgs(t, "--ds-file", got)...)
	fromManifest := runDiffJSON(t, diffArgs(t, "--ds-file", "testdata/diff-node-agent.yaml")...)
	fromGet.Edits, fromManifest.Edits = nil, nil
	if diff := cmp.Diff(fromManifest, fromGet); diff != "" {
		t.Errorf("kubectl get form and manifest disagree (-manifest +get):\n%s", diff)
	}

	same := writeTemp(t, "same.yaml", strings.Replace(readFile(t, "testdata/diff-node-agent.yaml"), "agent:v1.2", "agent:v1.1", 1))
	restated := runDiffJSON(t, diffArgs(t, "--ds-file", same)...)
	unchanged := runDiffJSON(t, diffArgs(t, "--ds-file", writeTemp(t, "live.yaml", string(live)))...)
	for _, doc := range []schema.Diff{restated, unchanged} {
		if doc.Counts.Replaced != 0 {
			t.Errorf("an unchanged spec replaces %d pods", doc.Counts.Replaced)
		}
	}
	restated.Edits, unchanged.Edits = nil, nil
	if diff := cmp.Diff(unchanged, restated); diff != "" {
		t.Errorf("a restated manifest is not the live spec (-live +manifest):\n%s", diff)
	}
}

// TestDiffApplyRemovesLastApplied: with the last-applied-configuration
// annotation, a field the previous manifest stated and the new one leaves
// out is removed, as kubectl apply removes it: here the nodeSelector, so
// that windows nodes gain a pod.
func TestDiffApplyRemovesLastApplied(t *testing.T) {
	prev := `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"ds-x","namespace":"default"},` +
		`"spec":{"selector":{"matchLabels":{"app":"a"}},"template":{"metadata":{"labels":{"app":"a"}},` +
		`"spec":{"nodeSelector":{"kubernetes.io/os":"linux"},"containers":[{"name":"c","image":"i"}]}}}}`
	live := strings.Replace(ds("ds-x"), "generation: 1}", "generation: 1, annotations: {kubectl.kubernetes.io/last-applied-configuration: '"+prev+"'}}", 1)
	live = strings.Replace(live, "spec: {containers:", "spec: {nodeSelector: {kubernetes.io/os: linux}, containers:", 1)
	in := live + "---\napiVersion: v1\nkind: Node\nmetadata: {name: win, labels: {kubernetes.io/os: windows}}\n"
	cluster := writeTemp(t, "cluster.yaml", in)
	manifest := writeTemp(t, "ds.yaml", "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: ds-x}\nspec:\n"+
		"  selector: {matchLabels: {app: a}}\n  template:\n    metadata: {labels: {app: a}}\n    spec: {containers: [{name: c, image: i}]}\n")
	doc := runDiffJSON(t, "diff", "-f", cluster, "--now", "2025-06-01T12:00:00Z", "--ds-file", manifest)
	if n := nodeOf(t, doc, "win"); n.Change != "Gains" {
		t.Errorf("win: %s, want Gains: the nodeSelector the last manifest stated is removed", n.Change)
	}
	// Without the annotation the live nodeSelector stays.
	noLast := writeTemp(t, "cluster2.yaml", strings.Replace(in, "kubectl.kubernetes.io/last-applied-configuration", "other", 1))
	doc = runDiffJSON(t, "diff", "-f", noLast, "--now", "2025-06-01T12:00:00Z", "--ds-file", manifest)
	if n := nodeOf(t, doc, "win"); n.Change != "Unchanged" {
		t.Errorf("win: %s, want Unchanged: without last-applied the nodeSelector stays", n.Change)
	}
}

func TestDiffErrors(t *testing.T) {
	c := readCase(t, "seed-01")
	f01 := clusterFile(c)
	base := []string{"diff", "-f", f01, "--now", nowFlag(c)}
	other := writeTemp(t, "other.yaml", strings.Replace(readFile(t, "testdata/diff-node-agent.yaml"), "name: node-agent", "name: other-agent", 1))
	otherNS := writeTemp(t, "other-ns.yaml", strings.Replace(readFile(t, "testdata/diff-node-agent.yaml"), "name: node-agent", "name: node-agent\n  namespace: kube-system", 1))
	two := writeTemp(t, "two.yaml", ds("ds-x")+"---\n"+ds("ds-y"))
	tests := []struct {
		name, reason string
		args         []string
		code         int
		stderr       string
	}{
		{"nothing to compare", "a diff needs an edit", nil, exitUsage, "nothing to compare"},
		{"no -f", "-f is required", []string{"diff", "--label", "n:a=b"}, exitUsage, "-f FILE is required"},
		{"bad -o", "table or json", []string{"-o", "yaml", "--remove-node", "node-001"}, exitUsage, `-o "yaml": want one of table, json`},
		{"argument", "diff's argument is the DaemonSet: a node is not one", []string{"node-001", "--remove-node", "node-001"}, exitError, `no DaemonSet in input: node-001`},
		{"two arguments", "diff takes one DaemonSet", []string{"a", "b", "--remove-node", "node-001"}, exitUsage, `want at most one DaemonSet argument`},
		{"ready-after zero", "pods must take some time", []string{"--ready-after", "0s", "--remove-node", "node-001"}, exitUsage, "--ready-after 0s"},
		{"ready-after unparsable", "a Go duration", []string{"--ready-after", "soon"}, exitUsage, `invalid argument "soon"`},
		{"terminating negative", "a grace period is 0 or more", []string{"--terminating", "-1s", "--remove-node", "node-001"}, exitUsage, "--terminating -1s"},
		{"label without node", "NODE: comes first", []string{"--label", "zone=b"}, exitUsage, `"zone=b": want NODE[,NODE...]:EDIT`},
		{"label empty node", "a comma list without holes", []string{"--label", "node-1,,node-2:zone=b"}, exitUsage, "empty node name"},
		{"label without =", "KEY=VALUE or KEY-", []string{"--label", "node-001:zone"}, exitUsage, "want NODE:KEY=VALUE or NODE:KEY-"},
		{"label bad key", "a qualified name", []string{"--label", "node-001:-zone=b"}, exitUsage, `label key "-zone"`},
		{"label bad value", "a label value", []string{"--label", "node-001:zone=b c"}, exitUsage, `label value "b c"`},
		{"taint without effect", "kubectl taint needs an effect to add", []string{"--taint", "node-001:dedicated=gpu"}, exitUsage, "want NODE:KEY[=VALUE]:EFFECT"},
		{"taint bad effect", "three effects", []string{"--taint", "node-001:dedicated=gpu:NoWay"}, exitUsage, `taint effect "NoWay"`},
		{"taint remove by value", "KEY=VALUE- is not kubectl's", []string{"--taint", "node-001:dedicated=gpu-"}, exitUsage, "needs an effect"},
		{"taint bad key", "a qualified name", []string{"--taint", "node-001:a/b/c:NoSchedule"}, exitUsage, `taint key "a/b/c"`},
		{"remove-node empty", "a comma list without holes", []string{"--remove-node", "node-001,"}, exitUsage, "empty node name"},
		{"stdin twice", "standard input can be read once", []string{"--ds-file", "-", "-f", "-"}, exitUsage, "given twice"},
		{"unknown label node", "an edit names a node of the input", []string{"--label", "node-404:zone=b"}, exitError, `--label "node-404:zone=b": node "node-404" is not in the input (17 nodes)`},
		{"unknown taint node", "", []string{"--taint", "node-001,nope:a:NoSchedule"}, exitError, `node "nope" is not in the input`},
		{"unknown removed node", "", []string{"--remove-node", "node-404"}, exitError, `--remove-node "node-404": node "node-404" is not in the input`},
		{"edit of a removed node", "removal comes before labels", []string{"--remove-node", "node-001", "--label", "node-001:a=b"}, exitError, `node "node-001" is removed by --remove-node`},
		{"missing taint", "kubectl taint refuses to remove what is not there", []string{"--taint", "node-001:nope-"}, exitError, `node "node-001" has no taint nope`},
		{"other DaemonSet", "names both", []string{"--ds-file", other}, exitError, "holds DaemonSet default/other-agent, the cluster's is default/node-agent"},
		{"other namespace", "names both", []string{"--ds-file", otherNS}, exitError, "holds DaemonSet kube-system/node-agent, the cluster's is default/node-agent"},
		{"two DaemonSets", "one new spec", []string{"--ds-file", two}, exitError, "want exactly one DaemonSet, found 2"},
		{"no node in node file", "", []string{"--node-file", "testdata/diff-node-agent.yaml"}, exitError, "--node-file testdata/diff-node-agent.yaml: no Node in it"},
		{"missing ds file", "", []string{"--ds-file", "testdata/nope.yaml"}, exitError, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append(slices.Clone(base), tt.args...)
			if len(tt.args) > 0 && tt.args[0] == "diff" {
				args = tt.args
			}
			r := runCLI(t, "", args...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.stderr) {
				t.Errorf("exit %d, stderr %q; want %d and %q (%s)", r.code, r.stderr, tt.code, tt.stderr, tt.reason)
			}
			if r.stdout != "" {
				t.Errorf("stdout %q, want nothing on failure", r.stdout)
			}
			if strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("stderr is not one line: %q", r.stderr)
			}
		})
	}
}

// TestDiffStrict: a new spec that changes the immutable selector is a
// warning, and refused with --strict.
func TestDiffStrict(t *testing.T) {
	sel := writeTemp(t, "sel.yaml", strings.ReplaceAll(readFile(t, "testdata/diff-node-agent.yaml"), "{app: node-agent", "{app: node-agent2"))
	args := diffArgs(t, "--ds-file", sel)
	r := runCLI(t, "", args...)
	if r.code != exitOK || !strings.Contains(r.stderr, "warning: spec.selector: Invalid") {
		t.Errorf("without --strict: exit %d, stderr %q; want 0 and a spec.selector warning", r.code, r.stderr)
	}
	r = runCLI(t, "", append(args, "--strict")...)
	if r.code != exitError || r.stdout != "" || !strings.Contains(r.stderr, "(--strict)") || !strings.Contains(r.stderr, "error: spec.selector: Invalid") {
		t.Errorf("--strict: exit %d, stdout %q, stderr %q; want 1 and the selector error", r.code, r.stdout, r.stderr)
	}
}

// TestDiffKeepsStatus: the new spec's status is the cluster's, as the API
// server keeps it on an update: a DaemonSet file with an older status, or
// a manifest without one, does not "decrement" status.collisionCount,
// which --strict would refuse.
func TestDiffKeepsStatus(t *testing.T) {
	cluster := writeTemp(t, "cluster.yaml", ds("ds-x")+"status: {collisionCount: 1}\n---\n"+node1)
	for name, file := range map[string]string{
		"get":      strings.Replace(ds("ds-x"), "image: i", "image: j", 1),
		"manifest": strings.Replace(strings.Replace(ds("ds-x"), "uid: u-ds-x, ", "", 1), "image: i", "image: j", 1),
	} {
		r := runCLI(t, "", "diff", "-f", cluster, "--now", "2025-06-01T12:00:00Z", "--ds-file", writeTemp(t, "ds.yaml", file), "--strict")
		if r.code != exitOK || r.stderr != "" {
			t.Errorf("%s: exit %d, stderr %q; want 0 and nothing", name, r.code, r.stderr)
		}
	}
}

// TestDiffCommonFlags: --kubernetes-version is the one the document names
// (the revision hash differs between minors, the diff does not), and --ds
// picks the DaemonSet as for plan.
func TestDiffCommonFlags(t *testing.T) {
	edit := []string{"--ds-file", "testdata/diff-node-agent.yaml"}
	latest := runDiffJSON(t, diffArgs(t, edit...)...)
	v134 := runDiffJSON(t, diffArgs(t, append(edit, "--kubernetes-version", "1.34", "--ds", "default/node-agent")...)...)
	if v134.KubernetesVersion != "1.34" || latest.KubernetesVersion != "1.37" {
		t.Errorf("kubernetesVersion %q and %q, want 1.34 and 1.37", v134.KubernetesVersion, latest.KubernetesVersion)
	}
	if diff := cmp.Diff(latest.Counts, v134.Counts); diff != "" {
		t.Errorf("counts differ between minors (-1.37 +1.34):\n%s", diff)
	}
	r := runCLI(t, "", diffArgs(t, append(edit, "--ds", "default/other")...)...)
	if r.code != exitError || !strings.Contains(r.stderr, "no DaemonSet in input: default/other") {
		t.Errorf("--ds default/other: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestDiffHelp(t *testing.T) {
	r := runCLI(t, "", "diff", "--help")
	for _, w := range []string{"daemonplan diff -f cluster.yaml --ds-file node-agent.yaml", "--label NODE[,NODE...]:KEY=VALUE|KEY-",
		"--taint 'node-1:dedicated:NoSchedule-'", "--ready-after duration", "--terminating duration", "--kubernetes-version", "--strict"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("diff --help lacks %q:\n%s", w, r.stdout)
		}
	}
	if r := runCLI(t, "", "--help"); !strings.Contains(r.stdout, "diff ") || !strings.Contains(r.stdout, "daemonplan diff -f cluster.yaml") {
		t.Errorf("the root's help lacks diff:\n%s", r.stdout)
	}
}

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkDiff is FuzzCLI's oracle for diff: in, which plan accepts, with a
// label set on node (one of n nodes).
func checkDiff(t *testing.T, in string, args []string, node string, n int) {
	t.Helper()
	r := runCLI(t, in, append([]string{"diff", "-o", "json", "--label", node + ":fuzz.example/x=y"}, args...)...)
	if r.code != exitOK {
		t.Fatalf("diff exits %d where plan succeeds: %s", r.code, r.stderr)
	}
	doc := decodeDiff(t, r.stdout)
	if len(doc.Nodes) != n {
		t.Fatalf("diff has %d nodes, plan %d", len(doc.Nodes), n)
	}
	for _, ct := range []schema.DiffCounts{doc.Counts, doc.Pending.Counts} {
		if countsSum(ct) != n {
			t.Fatalf("counts %+v do not add up to %d nodes", ct, n)
		}
	}
	if !slices.IsSortedFunc(doc.Nodes, func(a, b schema.DiffNode) int { return strings.Compare(a.Name, b.Name) }) {
		t.Fatal("nodes are not sorted")
	}
}

// TestIgnoredDuringExecution: a node that loses the nodeSelector's label
// loses its pod, as upstream deletes it; with --ignored-during-execution
// (daemonplan's opt-in) the pod stays, and a node added without the label
// still gets none.
func TestIgnoredDuringExecution(t *testing.T) {
	c := readCase137(t, "seed-124")
	newNode := writeTemp(t, "node.yaml", "apiVersion: v1\nkind: Node\nmetadata:\n  name: node-new\n  labels:\n    topology.kubernetes.io/zone: a\n")
	args := []string{"diff", "-f", clusterFile(c), "--now", nowFlag(c), "--label", "node-000:kubernetes.io/os-", "--node-file", newNode}
	for _, tt := range []struct {
		name, reason string
		flags        []string
		want         []string
	}{
		{"upstream", "upstream deletes the pod of a node that stops matching", nil,
			[]string{"Loses    node-000   NotEligible: node does not match nodeSelector key kubernetes.io/os", "1 lose theirs"}},
		{"opt-in", "the option keeps it (node-000 no longer should run a pod: its decision changes); the new node without the label still gets no pod", []string{"--ignored-during-execution"},
			[]string{"DecisionChanged   node-000   node does not match nodeSelector key kubernetes.io/os: no new pod, existing pods stay (ignored during execution) (was: node should run the daemon pod)",
				"10 nodes, the edit: 9 unchanged, 0 gain a pod, 0 lose theirs, 0 replaced, 0 outdated, 1 with another decision"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := runCLI(t, "", append(slices.Clone(args), tt.flags...)...)
			if got.code != exitOK {
				t.Fatalf("exit %d; stderr %q", got.code, got.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(got.stdout, w) {
					t.Errorf("stdout lacks %q (%s):\n%s", w, tt.reason, got.stdout)
				}
			}
		})
	}
}

// TestDsFileDefaulted: a manifest that adds a container without the
// fields the API server fills in used to get a note that the new
// revision's hash would not be the cluster's (issue 27 made it defaulted):
// now it diffs and simulates exactly as the same manifest with those
// fields written out (the new revision's hash included), without a note.
func TestDsFileDefaulted(t *testing.T) {
	c := readCase137(t, "seed-124")
	manifest := func(containers string) string {
		return writeTemp(t, "ds.yaml", "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: node-agent\nspec:\n  template:\n    spec:\n      containers:\n"+containers)
	}
	agent := "      - name: agent\n        image: registry.example.com/agent:v1.2\n"
	bare := manifest(agent + "      - name: sidecar\n        image: busybox:1.37\n")
	written := manifest(agent + "      - name: sidecar\n        image: busybox:1.37\n        imagePullPolicy: IfNotPresent\n" +
		"        terminationMessagePath: /dev/termination-log\n        terminationMessagePolicy: File\n")
	for _, cmd := range [][]string{{"diff", "table"}, {"diff", "json"}, {"simulate", "json"}} {
		o := cmd[0] + " -o " + cmd[1]
		got := runCLI(t, "", cmd[0], "-f", clusterFile(c), "--now", nowFlag(c), "--ds-file", bare, "-o", cmd[1])
		want := runCLI(t, "", cmd[0], "-f", clusterFile(c), "--now", nowFlag(c), "--ds-file", written, "-o", cmd[1])
		if got.code != exitOK || want.code != exitOK {
			t.Fatalf("%s: exit %d and %d; stderr %q and %q", o, got.code, want.code, got.stderr, want.stderr)
		}
		// The edits name the file.
		got.stdout, want.stdout = strings.ReplaceAll(got.stdout, bare, "NEW"), strings.ReplaceAll(want.stdout, written, "NEW")
		if got.stderr != "" || got.stdout != want.stdout {
			t.Errorf("%s: the sidecar without its defaults diffs otherwise than with them written out: stderr %q\n%s\nwant\n%s", o, got.stderr, got.stdout, want.stdout)
		}
	}
}

// countsSum is the number of nodes counts count.
func countsSum(ct schema.DiffCounts) int {
	return ct.Unchanged + ct.Gains + ct.Loses + ct.Replaced + ct.Outdated + ct.NotYetReplaced + ct.Keeps + ct.DecisionChanged
}
