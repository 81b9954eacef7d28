package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan/kube/defaults"
	"github.com/daemonplan/daemonplan/kube/schema"
	"github.com/daemonplan/daemonplan/kube/upstream"
)

// pendingArgs are the arguments of a diff of testdata/diff-pending.yaml
// (five nodes: a rollout under way, cp-1 and worker-3 without their pod)
// with edits.
func pendingArgs(edits ...string) []string {
	return append([]string{"diff", "-f", "testdata/diff-pending.yaml", "--now", "2026-03-01T09:00:00Z"}, edits...)
}

// editSection is the table's first section: the nodes the edit changes.
func editSection(table string) string {
	before, _, _ := strings.Cut(table, "\n\n")
	return before
}

// TestDiffIssue39Reproducer: on five nodes with a rollout under way,
// diff --taint 'worker-3:maintenance:NoExecute' listed cp-1 as Gains and
// worker-1 and worker-2 as replaced by a pod of the new template, which
// the cluster does without the edit, and called worker-3, which no longer
// gets the pod it was about to get, Unchanged. The edit changes worker-3
// alone; --label edits alike.
func TestDiffIssue39Reproducer(t *testing.T) {
	for _, tt := range []struct {
		name, reason string
		edit         []string
		want         map[string]string // node → change, every node
	}{
		{"taint", "worker-3 no longer gets the pod it was about to get", []string{"--taint", "worker-3:maintenance:NoExecute"},
			map[string]string{"cp-1": "Unchanged", "worker-1": "Unchanged", "worker-2": "Unchanged", "worker-3": "Loses", "worker-4": "Unchanged"}},
		{"label", "a label no selector reads changes nothing", []string{"--label", "worker-1,worker-3:team=a"},
			map[string]string{"cp-1": "Unchanged", "worker-1": "Unchanged", "worker-2": "Unchanged", "worker-3": "Unchanged", "worker-4": "Unchanged"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			doc := runDiffJSON(t, pendingArgs(tt.edit...)...)
			got := map[string]string{}
			for _, n := range doc.Nodes {
				got[n.Name] = n.Change
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("diff -o json changes mismatch (-want +got) (%s):\n%s", tt.reason, diff)
			}
			r := runCLI(t, "", pendingArgs(tt.edit...)...)
			if r.code != exitOK {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			edits := editSection(r.stdout)
			for node, change := range tt.want {
				listed := strings.Contains(edits, " "+node+" ")
				if listed != (change != "Unchanged") {
					t.Errorf("table lists %s: %v, want %v (%s):\n%s", node, listed, change != "Unchanged", tt.reason, r.stdout)
				}
			}
		})
	}
}

// The state of a node's pod in genPendingCluster.
const (
	podOld     = iota // of agent:v1, to be replaced
	podCurrent        // of agent:v2 (labelled with its template generation)
	podGone           // none: the node is about to get one
)

// genPendingCluster is genCluster with work pending: the DaemonSet's
// template then moved to agent:v2 (generation and template generation 2),
// each node's pod as pods says (podOld, podCurrent or podGone). dsFile is
// the DaemonSet as kubectl get prints it.
func genPendingCluster(t fataler, g genSpec, now time.Time, pods []int) (cluster, dsFile []byte) {
	var list struct {
		APIVersion string            `json:"apiVersion"`
		Kind       string            `json:"kind"`
		Items      []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(genCluster(t, g, now), &list); err != nil {
		t.Fatal(err)
	}
	g.image = "agent:v2"
	// Defaulted as the API server stores it, so that restating it (the
	// file kubectl get prints) is no edit.
	ds, err := defaults.DaemonSet(g.daemonSet(), upstream.Latest)
	if err != nil {
		t.Fatal(err)
	}
	ds.Generation = 2
	ds.Annotations["deprecated.daemonset.template.generation"] = "2"
	n := int32(g.nodes)
	ds.Status = appsv1.DaemonSetStatus{CurrentNumberScheduled: n, DesiredNumberScheduled: n, NumberReady: n,
		NumberAvailable: n, ObservedGeneration: 2}
	b, err := json.Marshal(ds)
	if err != nil {
		t.Fatal(err)
	}
	items := []json.RawMessage{b}
	for _, it := range list.Items[1:] {
		var obj struct {
			Kind string `json:"kind"`
			Spec struct {
				NodeName string `json:"nodeName"`
			} `json:"spec"`
		}
		if err := json.Unmarshal(it, &obj); err != nil {
			t.Fatal(err)
		}
		if obj.Kind == "Pod" {
			var i int
			if _, err := fmt.Sscanf(obj.Spec.NodeName, "node-%d", &i); err != nil {
				t.Fatal(err)
			}
			switch pods[i] {
			case podGone:
				continue
			case podCurrent:
				var pod map[string]any
				if err := json.Unmarshal(it, &pod); err != nil {
					t.Fatal(err)
				}
				pod["metadata"].(map[string]any)["labels"].(map[string]any)["pod-template-generation"] = "2"
				if it, err = json.Marshal(pod); err != nil {
					t.Fatal(err)
				}
			}
		}
		items = append(items, it)
	}
	list.Items = items
	if cluster, err = json.Marshal(list); err != nil {
		t.Fatal(err)
	}
	return cluster, b
}

// genPendingCase draws a generated cluster with a rollout under way (some
// pods of the old template, some of the new) and nodes without their pod, writes it and its DaemonSet (as kubectl get
// prints it) to dir, and returns the two files and the node names.
func genPendingCase(t *rapid.T, dir string) (cluster, dsFile string, nodes []string) {
	n := rapid.IntRange(1, 6).Draw(t, "nodes")
	g := genSpec{nodes: n, image: "agent:v1", maxSurge: intstr.FromInt32(0),
		maxUnavailable: intstr.FromInt32(int32(rapid.IntRange(1, 3).Draw(t, "maxUnavailable")))}
	if rapid.Bool().Draw(t, "surge") {
		g.maxUnavailable, g.maxSurge = intstr.FromInt32(0), intstr.FromInt32(1)
	}
	pods := rapid.SliceOfN(rapid.IntRange(podOld, podGone), n, n).Draw(t, "pods")
	now, _ := time.Parse(time.RFC3339, genNow)
	c, ds := genPendingCluster(t, g, now, pods)
	cluster, dsFile = filepath.Join(dir, "cluster.json"), filepath.Join(dir, "ds.json")
	writeFileT(t, cluster, c)
	writeFileT(t, dsFile, ds)
	for i := range n {
		nodes = append(nodes, fmt.Sprintf("node-%06d", i))
	}
	return cluster, dsFile, nodes
}

// runDiffT runs diff on a generated case, as JSON and as a table.
func runDiffT(t *rapid.T, cluster string, edits ...string) (schema.Diff, string) {
	args := append([]string{"diff", "-f", cluster, "--now", genNow}, edits...)
	j := runCLIAny(append(args, "-o", "json")...)
	tab := runCLIAny(args...)
	if j.code != exitOK || tab.code != exitOK {
		t.Fatalf("diff %v: exit %d and %d: %s", edits, j.code, tab.code, j.stderr+tab.stderr)
	}
	var doc schema.Diff
	if err := json.Unmarshal([]byte(j.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	return doc, tab.stdout
}

// TestPropertyDiffNoOpEditMidRollout: on generated clusters mid-rollout
// (pods of the old template, nodes without their pod), an edit that
// changes nothing (a label no selector reads, a PreferNoSchedule taint,
// the DaemonSet restated) reports every node unchanged and lists none;
// the rollout with it is the one without it.
func TestPropertyDiffNoOpEditMidRollout(t *testing.T) {
	dir := t.TempDir()
	rapid.Check(t, func(t *rapid.T) {
		cluster, dsFile, nodes := genPendingCase(t, dir)
		node := rapid.SampledFrom(nodes).Draw(t, "node")
		edit := rapid.SampledFrom([][]string{
			{"--label", node + ":team=a"},
			{"--taint", node + ":soft:PreferNoSchedule"},
			{"--ds-file", dsFile},
		}).Draw(t, "edit")
		doc, table := runDiffT(t, cluster, edit...)
		if doc.Counts != (schema.DiffCounts{Unchanged: len(nodes)}) {
			t.Fatalf("diff %v: %+v, want all %d unchanged:\n%s", edit, doc.Counts, len(nodes), table)
		}
		if strings.Contains(editSection(table), "CHANGE") {
			t.Fatalf("diff %v lists nodes:\n%s", edit, table)
		}
		p := doc.Pending
		if doc.Steps != p.Steps || doc.Syncs != p.Syncs || doc.Duration != p.Duration || doc.Done != p.Done {
			t.Fatalf("diff %v: the rollout with the edit (%d steps, %d syncs, %s) is not the one without (%+v)", edit, doc.Steps, doc.Syncs, doc.Duration, p)
		}
	})
}

// TestPropertyDiffFlippedNodeListed: on generated clusters mid-rollout,
// for node edits (taints), spec edits (a new image) and both, every node
// whose decision the edit flips is listed in the table with its change,
// and its change in the document is not Unchanged.
func TestPropertyDiffFlippedNodeListed(t *testing.T) {
	dir := t.TempDir()
	rapid.Check(t, func(t *rapid.T) {
		cluster, _, nodes := genPendingCase(t, dir)
		kind := rapid.SampledFrom([]string{"node", "spec", "both"}).Draw(t, "editKind")
		var edits []string
		if kind != "spec" {
			for _, n := range nodes {
				if effect := rapid.SampledFrom([]string{"", "NoSchedule", "NoExecute"}).Draw(t, "taint"); effect != "" {
					edits = append(edits, "--taint", n+":maintenance:"+effect)
				}
			}
			if len(edits) == 0 {
				edits = append(edits, "--taint", nodes[0]+":maintenance:NoExecute")
			}
		}
		if kind != "node" {
			edits = append(edits, "--image", "agent=agent:v3")
		}
		doc, table := runDiffT(t, cluster, edits...)
		listed := editSection(table)
		for _, n := range doc.Nodes {
			if n.Before == nil || n.After == nil {
				continue
			}
			if n.Before.ShouldRun == n.After.ShouldRun && n.Before.ShouldContinueRunning == n.After.ShouldContinueRunning {
				continue
			}
			if n.Change == "Unchanged" {
				t.Fatalf("diff %v: %s's decision flips (%s → %s), reported Unchanged", edits, n.Name, n.Before.Reason, n.After.Reason)
			}
			if !strings.Contains(listed, n.Change) || !strings.Contains(listed, " "+n.Name+" ") {
				t.Fatalf("diff %v: %s's decision flips, the table does not list it:\n%s", edits, n.Name, table)
			}
		}
	})
}
