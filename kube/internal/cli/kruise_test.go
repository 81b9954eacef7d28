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
