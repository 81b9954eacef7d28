package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var nodePoolArgs = []string{"overhead", "-f", "testdata/nodepool/daemonsets.yaml",
	"--nodepool", "testdata/nodepool/nodepool.yaml", "--instance-types", "testdata/nodepool/instance-types.yaml"}

// TestOverheadNodePoolTable is the worked example of docs/overhead.md
// (regenerate with -update and copy it there).
func TestOverheadNodePoolTable(t *testing.T) {
	r := runCLI(t, "", nodePoolArgs...)
	if r.code != exitOK {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
	golden := filepath.Join("testdata", "overhead-nodepool.table.golden")
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
		t.Errorf("overhead --nodepool table mismatch (-want +got):\n%s", diff)
	}
}

func TestOverheadNodePoolJSON(t *testing.T) {
	r := runCLI(t, "", append(nodePoolArgs, "-o", "json")...)
	if r.code != exitOK {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
	var doc templateDoc
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("not the template document: %v\n%s", err, r.stdout)
	}
	if len(doc.NodePools) != 1 || doc.NodePools[0].Name != "general" {
		t.Fatalf("node pools %+v", doc.NodePools)
	}
	p := doc.NodePools[0]
	got := map[string]templateEntry{}
	for _, e := range p.DaemonSets {
		got[e.Namespace+"/"+e.Name] = e
	}
	for name, want := range map[string]struct {
		lands, why string
		where      [][]string
		startup    string
	}{
		"kube-system/kube-proxy":           {lands: "Every"},
		"monitoring/node-exporter":         {lands: "Every", startup: "node.cilium.io/agent-not-ready=true:NoExecute"},
		"storage/zone-cache":               {lands: "Depends", where: [][]string{{"topology.kubernetes.io/zone In [us-east-1a]"}}, startup: "node.cilium.io/agent-not-ready=true:NoExecute"},
		"kube-system/nvidia-device-plugin": {lands: "Depends", where: [][]string{{"karpenter.k8s.aws/instance-gpu-count Gt 0"}}, startup: "node.cilium.io/agent-not-ready=true:NoExecute"},
		"kube-system/windows-agent":        {lands: "None", why: "no node matches nodeSelector key kubernetes.io/os"},
		"default/pinned":                   {lands: "None", why: "template spec.nodeName names another node"},
	} {
		e := got[name]
		if e.Lands != want.lands || e.Why != want.why || !cmp.Equal(e.Where, want.where) || e.StartupTaint != want.startup {
			t.Errorf("%s: %+v, want %+v", name, e, want)
		}
	}
	if p.Overhead.Pods != 5 || p.Overhead.Every["cpu"] != "550m" || p.Overhead.AtMost["cpu"] != "1100m" {
		t.Errorf("overhead %+v", p.Overhead)
	}
	types := map[string]templateInstance{}
	for _, it := range p.InstanceTypes {
		types[it.Name] = it
	}
	if it := types["g5.xlarge"]; it.Fits == nil || !*it.Fits || it.Overhead.Pods != 5 || it.Left["cpu"] != "2820m" {
		t.Errorf("g5.xlarge: %+v", it)
	}
	if it := types["m7g.medium"]; it.Fits == nil || *it.Fits || !cmp.Equal(it.Insufficient, []string{"cpu"}) {
		t.Errorf("m7g.medium: %+v", it)
	}
	if it := types["c7i.large"]; it.NoNode != "karpenter.k8s.aws/instance-family" {
		t.Errorf("c7i.large: %+v", it)
	}
}

func TestOverheadNodePoolErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const head = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\n"
	ds := "testdata/nodepool/daemonsets.yaml"
	tests := []struct {
		name, reason string
		args         []string
		code         int
		stderr       string
	}{
		{"TypesWithoutPool", "instance types narrow a NodePool", []string{"overhead", "-f", ds, "--instance-types", "testdata/nodepool/instance-types.yaml"}, exitUsage, "--instance-types needs --nodepool"},
		{"PoolAndNode", "two questions at once", []string{"overhead", "-f", ds, "--nodepool", "testdata/nodepool/nodepool.yaml", "--node-file", "testdata/node-hypothetical.yaml"}, exitUsage, "give one"},
		{"UnknownField", "strict decoding names the field", []string{"overhead", "-f", ds, "--nodepool", write("u.yaml", head+"spec:\n  template:\n    spec:\n      requirments: []\n")}, exitError, `u.yaml: YAML document 1: unknown field "spec.template.spec.requirments"`},
		{"BadOperator", "the path of a bad requirement", []string{"overhead", "-f", ds, "--nodepool", write("o.yaml", head+"spec:\n  template:\n    spec:\n      requirements: [{key: a, operator: Gte, values: [\"1\"]}]\n")}, exitError, "spec.template.spec.requirements[0].operator"},
		{"BadTaint", "the path of a bad taint", []string{"overhead", "-f", ds, "--nodepool", write("t.yaml", head+"spec:\n  template:\n    spec:\n      requirements: []\n      startupTaints: [{key: a, effect: Sometimes}]\n")}, exitError, "spec.template.spec.startupTaints[0].effect"},
		{"OldVersion", "v1beta1 is not read", []string{"overhead", "-f", ds, "--nodepool", write("v.yaml", "apiVersion: karpenter.sh/v1beta1\nkind: NodePool\nmetadata: {name: p}\n")}, exitError, `apiVersion "karpenter.sh/v1beta1"`},
		{"OtherKind", "only NodePools", []string{"overhead", "-f", ds, "--nodepool", ds}, exitError, `items[0]: kind "DaemonSet": want NodePool`},
		{"DuplicateType", "instance type names are unique", []string{"overhead", "-f", ds, "--nodepool", "testdata/nodepool/nodepool.yaml", "--instance-types", write("d.yaml", "instanceTypes:\n- name: a\n- name: a\n")}, exitError, "instanceTypes[1].name: Duplicate value"},
		{"BadTypeRequirement", "the path of an instance type's requirement", []string{"overhead", "-f", ds, "--nodepool", "testdata/nodepool/nodepool.yaml", "--instance-types", write("r.yaml", "instanceTypes:\n- name: a\n  requirements: [{key: k, operator: Exists, values: [x]}]\n")}, exitError, "instanceTypes[0].requirements[0].values"},
		{"BadQuantity", "a quantity that does not parse", []string{"overhead", "-f", ds, "--nodepool", "testdata/nodepool/nodepool.yaml", "--instance-types", write("q.yaml", "instanceTypes:\n- name: a\n  capacity: {cpu: lots}\n")}, exitError, "q.yaml"},
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

// TestOverheadSeveralNodeFiles: --node-file repeats, one answer per node.
func TestOverheadSeveralNodeFiles(t *testing.T) {
	r := runCLI(t, "", "overhead", "-f", "testdata/overhead-cluster.yaml", "--node-file", "testdata/node-hypothetical.yaml", "--node-file", "testdata/node-hypothetical.yaml", "-o", "json")
	if r.code != exitOK {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
	var doc overheadDoc
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Nodes) != 2 {
		t.Fatalf("want two nodes: %v\n%s", err, r.stdout)
	}
}

// affinityDaemonSet is a DaemonSet document whose required node affinity
// has the given terms, each a list of "key operator value" expressions.
func affinityDaemonSet(name string, terms [][]string) string {
	var b strings.Builder
	b.WriteString("apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: " + name + ", namespace: default, uid: " + name + "}\n" +
		"spec:\n  selector: {matchLabels: {app: a}}\n  template:\n    metadata: {labels: {app: a}}\n    spec:\n" +
		"      containers: [{name: c, image: i}]\n      affinity:\n        nodeAffinity:\n" +
		"          requiredDuringSchedulingIgnoredDuringExecution:\n            nodeSelectorTerms:\n")
	for _, term := range terms {
		b.WriteString("            - matchExpressions:\n")
		for _, e := range term {
			f := strings.Fields(e)
			b.WriteString("              - {key: " + f[0] + ", operator: " + f[1] + ", values: [" + f[2] + "]}\n")
		}
	}
	return b.String()
}

// TestOverheadNodePoolBoundedWork: issue 38's first finding at the CLI. A
// DaemonSet of 24 OR terms "kI In [a]" and one "every key NotIn [a]" (a 3
// KB file) is Every on a NodePool that leaves the keys open: 5 s at 14
// keys and days at 24 before. One whose terms the query cannot decide
// within overhead.MaxTemplateSteps is an error that names it and the
// limit, never a partial table.
func TestOverheadNodePoolBoundedWork(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pool := write("pool.yaml", "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\nspec:\n  template:\n    spec:\n      requirements: []\n")

	var terms [][]string
	var all []string
	for i := range 24 {
		k := "k" + string(rune('a'+i))
		terms = append(terms, []string{k + " In a"})
		all = append(all, k+" NotIn a")
	}
	r := runCLI(t, "", "overhead", "-f", write("all.yaml", affinityDaemonSet("cover-all", append(terms, all))), "--nodepool", pool, "-o", "json")
	var doc templateDoc
	if r.code != exitOK || json.Unmarshal([]byte(r.stdout), &doc) != nil {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
	if got := doc.NodePools[0].DaemonSets[0].Lands; got != "Every" {
		t.Errorf("cover-all lands %s, want Every", got)
	}

	// The y keys sort before the z keys: the z's are split first, and each
	// of their 2^20 choices leaves other terms in play (overhead's
	// TestCoverRefusal).
	terms, all = nil, nil
	for i := range 20 {
		x, y := "z"+string(rune('a'+i)), "y"+string(rune('a'+i))
		terms = append(terms, []string{x + " In a", y + " In a"}, []string{x + " NotIn a", y + " In a"})
		all = append(all, y+" NotIn a")
	}
	r = runCLI(t, "", "overhead", "-f", write("hard.yaml", affinityDaemonSet("hard", append(terms, all))), "--nodepool", pool)
	if r.code != exitError || !strings.Contains(r.stderr, "default/hard") || !strings.Contains(r.stderr, "overhead.MaxTemplateSteps") || r.stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want an error naming default/hard and the limit", r.code, r.stdout, r.stderr)
	}
}
