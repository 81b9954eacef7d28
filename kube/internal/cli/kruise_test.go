package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/kube/schema"
)

// TestPlanKruise plans an OpenKruise Advanced DaemonSet with a partition of
// 3 and an update selector pool=blue on six nodes (four blue): the partition
// lets the last three blue nodes by name update (node-3, node-2, node-1),
// and maxUnavailable 2 takes the first two of them by name. What daemonplan
// does not honour is printed as warnings.
func TestPlanKruise(t *testing.T) {
	file := filepath.Join("testdata", "kruise.yaml")
	got := runCLI(t, "", "plan", "-f", file, "--now", "2025-06-01T12:00:00Z")
	if got.code != exitOK {
		t.Fatalf("exit %d: %s", got.code, got.stderr)
	}
	wantStderr := strings.Join([]string{
		"warning: spec.updateStrategy.rollingUpdate.rollingUpdateType: Forbidden: InPlaceIfPossible is planned as Standard: pods are deleted and created, not updated in place",
		"warning: spec.lifecycle: Forbidden: lifecycle hooks are not honoured: pods are deleted and created without waiting for them",
		"warning: metadata.annotations[apps.kruise.io/image-predownload-parallelism]: Forbidden: image pre-download is not planned",
	}, "\n") + "\n"
	if diff := cmp.Diff(wantStderr, got.stderr); diff != "" {
		t.Errorf("stderr mismatch (-want +got):\n%s", diff)
	}
	golden := filepath.Join("testdata", "kruise.table.golden")
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
		t.Errorf("plan of the OpenKruise DaemonSet mismatch (-want +got):\n%s", diff)
	}

	// In JSON the extensions' decisions are under "progress".
	js := runCLI(t, "", "plan", "-f", file, "--now", "2025-06-01T12:00:00Z", "-o", "json")
	var doc struct {
		Progress *schema.Progress `json:"progress"`
	}
	if err := json.Unmarshal([]byte(js.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	wantProgress := &schema.Progress{Held: "NotHeld", Outdated: 6, Allowed: 3, Partition: 3}
	if diff := cmp.Diff(wantProgress, doc.Progress); diff != "" {
		t.Errorf("JSON progress mismatch (-want +got):\n%s", diff)
	}
	plain := runCLI(t, "", "plan", "-f", clusterFile(readCase(t, "seed-01")), "-o", "json")
	if strings.Contains(plain.stdout, `"progress"`) {
		t.Errorf("a plan without extensions has a progress key")
	}

	// An invalid partition is refused with its OpenKruise field path.
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	bad := runCLI(t, strings.Replace(string(b), "partition: 3", "partition: 150%", 1), "plan", "-f", "-")
	if bad.code != exitError || !strings.Contains(bad.stderr, "spec.updateStrategy.rollingUpdate.partition") {
		t.Errorf("invalid partition: exit %d, stderr %q; want 1 and the field path", bad.code, bad.stderr)
	}
}

// TestPlanKruiseNamespace: an OpenKruise DaemonSet is planned in the
// namespace an apps/v1 DaemonSet written alike is planned in, and the
// warning names it. With metadata null it was planned in namespace "" (its
// pods in kube-system or default were not its own: a second pod on every
// node) under a warning naming "default"; a numeric namespace silently
// became "default".
func TestPlanKruiseNamespace(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "kruise.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	kruise := string(b)
	tests := []struct {
		name, reason string
		edit         func(string) string
		want         string // the plan's namespace, or the field an error names
	}{
		{"metadata null", "the last metadata stands whole: no namespace, the default one",
			func(s string) string {
				return strings.Replace(s, "spec:\n  selector:", "metadata: null\nspec:\n  selector:", 1)
			}, "default"},
		{"namespace null", "no namespace: the default one",
			func(s string) string { return strings.Replace(s, "namespace: kube-system", "namespace: null", 1) }, "default"},
		{"numeric namespace", "a namespace is a string: an error naming the field",
			func(s string) string { return strings.Replace(s, "namespace: kube-system", "namespace: 5", 1) }, "error metadata.namespace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := func(in string) string {
				r := runCLI(t, in, "plan", "-f", "-", "--now", "2025-06-01T12:00:00Z", "-o", "json")
				if r.code != exitOK {
					if strings.Contains(r.stderr, "metadata.namespace: want string") {
						return "error metadata.namespace"
					}
					return "exit " + r.stderr
				}
				var doc schema.Plan
				if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(r.stderr, `read in namespace "`+doc.DaemonSet.Namespace+`"`) {
					t.Errorf("%s: planned in namespace %q, stderr %q does not name it", tt.reason, doc.DaemonSet.Namespace, r.stderr)
				}
				return doc.DaemonSet.Namespace
			}
			in := tt.edit(kruise)
			got := plan(in)
			if got != tt.want {
				t.Errorf("OpenKruise: %q, want %q (%s)", got, tt.want, tt.reason)
			}
			if apps := plan(strings.Replace(in, "apiVersion: apps.kruise.io/v1beta1", "apiVersion: apps/v1", 1)); apps != got {
				t.Errorf("apps/v1 %q, OpenKruise %q (%s)", apps, got, tt.reason)
			}
		})
	}
}
