package cli

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/daemonplan/daemonplan/kube/internal/conformance"
	"github.com/daemonplan/daemonplan/kube/schema"
)

// docsDaemonSet is the fluentd-elasticsearch DaemonSet of the Kubernetes
// documentation, as written: no uid, no server defaults.
const docsDaemonSet = "../../testdata/fluentd-elasticsearch.yaml"

// docsHash is the revision hash kube-apiserver v1.37.2 and the upstream
// controller give that DaemonSet (kube/testbed TestDefaultsDocsDaemonSet);
// its template as written hashes to 5d5597fb45.
const docsHash = "687769bc66"

const twoNodes = "apiVersion: v1\nkind: Node\nmetadata: {name: node-1}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: node-2}\n"

// TestManifestAsWritten: the documentation's DaemonSet as written plans,
// explains, diffs and simulates with the revision hash the cluster will
// use, without a uid warning (issue 27: "metadata.uid: Required value" on
// every command, the hash of the manifest as written, and simulate and
// diff of an image change stopped with "the DaemonSet never claims the
// pods it creates").
func TestManifestAsWritten(t *testing.T) {
	nodes := writeTemp(t, "nodes.yaml", twoNodes)
	newImage := writeTemp(t, "new.yaml", "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: fluentd-elasticsearch, namespace: kube-system}\n"+
		"spec:\n  template:\n    spec:\n      containers:\n      - name: fluentd-elasticsearch\n        image: quay.io/fluentd_elasticsearch/fluentd:v5.0.2\n")
	note := "note: DaemonSet kube-system/fluentd-elasticsearch (" + docsDaemonSet + ": YAML document 1) has no uid: planned as the API server would store it on create, " +
		"with its defaults and uid " + string(manifestUID("kube-system", "fluentd-elasticsearch")) + " (revision hash " + docsHash + "; 5d5597fb45 as written) (-q hides notes)\n"
	for _, tt := range []struct {
		name, reason string
		args         []string
		stdout       []string // substrings
	}{
		{"plan", "the pods and the revision carry the stored hash", []string{"plan"},
			[]string{"node-1   " + docsHash, "fluentd-elasticsearch-" + docsHash + "   create   1"}},
		{"plan strict", "a manifest's missing uid is not a finding", []string{"plan", "--strict"}, []string{docsHash}},
		{"explain", "the predicted pod names the stored hash", []string{"explain", "node-1"}, []string{docsHash}},
		{"simulate", "the rollout from scratch converges", []string{"simulate"}, []string{"converged"}},
		{"simulate image change", "an image change from scratch: every node gets a pod of the new revision",
			[]string{"simulate", "--ds-file", newImage}, []string{"converged"}},
		{"diff image change", "every node gains a pod anyway (pending), of the new template with the edit (Replaced), and the rollout settles", []string{"diff", "--ds-file", newImage},
			[]string{"2 nodes, the edit: 0 unchanged, 0 gain a pod, 0 lose theirs, 2 replaced", "without the edit: 0 unchanged, 2 gain a pod", "settles"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append(append([]string{}, tt.args[0], "-f", docsDaemonSet, "-f", nodes, "--now", "2025-06-01T12:00:00Z"), tt.args[1:]...)
			got := runCLI(t, "", args...)
			if got.code != exitOK {
				t.Fatalf("exit %d; stderr %q (%s)", got.code, got.stderr, tt.reason)
			}
			if want := "daemonplan: " + tt.args[0] + ": " + note; got.stderr != want {
				t.Errorf("stderr %q, want %q (%s)", got.stderr, want, tt.reason)
			}
			for _, w := range tt.stdout {
				if !strings.Contains(got.stdout, w) {
					t.Errorf("stdout lacks %q (%s):\n%s", w, tt.reason, got.stdout)
				}
			}
			if strings.Contains(got.stdout, "5d5597fb45") {
				t.Errorf("stdout names the hash of the manifest as written (%s):\n%s", tt.reason, got.stdout)
			}
		})
	}

	// simulate -o json: the image change creates pods of one revision only,
	// the new image's, and never stalls unclaimed.
	got := runCLI(t, "", "simulate", "-f", docsDaemonSet, "-f", nodes, "--now", "2025-06-01T12:00:00Z", "--ds-file", newImage, "-o", "json")
	var sim schema.Simulation
	if err := json.Unmarshal([]byte(got.stdout), &sim); err != nil {
		t.Fatalf("simulate -o json: %v; stderr %q", err, got.stderr)
	}
	if sim.Outcome != "Converged" || len(sim.Revisions) != 1 {
		t.Errorf("simulate of the image change: outcome %s, revisions %+v; want Converged with one revision", sim.Outcome, sim.Revisions)
	}
}

// TestManifestOfTheCluster: a manifest without a uid beside pods its
// namespace and name own is the cluster's DaemonSet: it takes their
// owner's uid, claims them, and only what changed is planned.
func TestManifestOfTheCluster(t *testing.T) {
	noUID := strings.Replace(ds("ds-x"), "uid: u-ds-x, ", "", 1)
	for _, tt := range []struct {
		name, reason string
		in           string
		note         string
		creates      int
	}{
		{"owned pod", "the pod names ds-x, uid u-ds-x, as its controller, and carries the hash of the stored template: it is kept",
			noUID + "---\n" + node1 + "---\n" + strings.Replace(ownedPod, "labels: {app: a,", "labels: {app: a, controller-revision-hash: 5bd796bd9,", 1),
			"has no uid: taken as the cluster's, uid u-ds-x, that its pods and revisions name, with the API server's defaults", 0},
		{"other owner", "a pod of a DaemonSet of another name is no evidence: a create",
			noUID + "---\n" + node1 + "---\n" + strings.ReplaceAll(ownedPod, "name: ds-x, uid: u-ds-x", "name: ds-y, uid: u-ds-y"),
			"has no uid: planned as the API server would store it on create", 1},
		{"two owners", "pods naming ds-x with two uids: which one is the cluster's is unknown, a create",
			noUID + "---\n" + node1 + "---\n" + ownedPod + "---\n" +
				strings.NewReplacer("ds-x-abcde", "ds-x-fghij", "uid: u-ds-x", "uid: u-ds-x-old", "pod-uid-1", "pod-uid-2").Replace(ownedPod),
			"has no uid: planned as the API server would store it on create", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := runCLI(t, tt.in, "plan", "-f", "-", "-o", "json", "--now", "2025-06-01T12:00:00Z")
			if got.code != exitOK {
				t.Fatalf("exit %d; stderr %q", got.code, got.stderr)
			}
			if !strings.Contains(got.stderr, tt.note) {
				t.Errorf("stderr %q lacks %q (%s)", got.stderr, tt.note, tt.reason)
			}
			var p conformance.Plan
			if err := json.Unmarshal([]byte(got.stdout), &p); err != nil {
				t.Fatal(err)
			}
			if len(p.Create) != tt.creates || len(p.Delete) != 0 {
				t.Errorf("creates %v and deletes %v, want %d creates and no delete (%s)", p.Create, p.Delete, tt.creates, tt.reason)
			}
		})
	}
}

// TestManifestUID: the uid given to a manifest is a UUID, the same for
// the same namespace and name, different otherwise.
func TestManifestUID(t *testing.T) {
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	a, b := manifestUID("default", "ds-x"), manifestUID("default", "ds-x")
	if a != b || !uuid.MatchString(string(a)) {
		t.Errorf("manifestUID: %q and %q, want the same version-5 UUID", a, b)
	}
	for _, other := range [][2]string{{"default", "ds-y"}, {"kube-system", "ds-x"}, {"defaultd", "s-x"}} {
		if manifestUID(other[0], other[1]) == a {
			t.Errorf("manifestUID%v equals manifestUID(default, ds-x)", other)
		}
	}
}
