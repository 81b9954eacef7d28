package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/daemonplan/daemonplan/kube/schema"
)

// TestRolloutStatusJSON: `rollout status -o json` says what the table
// says, with every node, and exits as the table does: 0 when the current
// revision is rolled out already, 3 paused by a gate; an unknown -o is a
// usage error.
func TestRolloutStatusJSON(t *testing.T) {
	rc := newRolloutCluster(t, "OnDelete", 3)
	if r := rc.run("daemonplan", "rollout", "start", "ds/agent", "--canary", "1", "--ready-deadline", "5s"); r.code != 0 {
		t.Fatalf("start: exit %d: %s", r.code, r.stderr)
	}
	status := func(want int) schema.RolloutReport {
		t.Helper()
		r := rc.run("daemonplan", "rollout", "status", "ds/agent", "-o", "json")
		if r.code != want {
			t.Fatalf("status -o json: exit %d, want %d: %s", r.code, want, r.stderr)
		}
		var doc schema.RolloutReport
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Fatalf("status -o json: %v:\n%s", err, r.stdout)
		}
		return doc
	}
	doc := status(exitOK)
	if doc.DaemonSet != (schema.Ref{Namespace: "default", Name: "agent"}) || doc.Phase != "Done" || len(doc.Nodes) != 3 ||
		doc.Paused != nil || doc.Budget != 1 || !strings.Contains(string(doc.Policy), `"canary"`) {
		t.Errorf("before the change: %+v", doc)
	}
	rc.setImage("agent:bad")
	if r := rc.run("daemonplan", "rollout", "resume", "ds/agent", "--watch", "--interval", "1s"); r.code != exitGate {
		t.Fatalf("resume --watch: exit %d, want %d: %s%s", r.code, exitGate, r.stdout, r.stderr)
	}
	doc = status(exitGate)
	if doc.Paused == nil || doc.Paused.By != "Gate" || !strings.Contains(doc.Paused.Reason, "not Ready") {
		t.Errorf("paused by the gate: %+v", doc.Paused)
	}
	states := map[string]int{}
	for _, n := range doc.Nodes {
		states[n.State]++
	}
	if states["Updating"] != 1 || states["Outdated"] != 2 || doc.InUse != 1 {
		t.Errorf("node states %v, %d in use; want 1 Updating, 2 Outdated, 1 in use", states, doc.InUse)
	}
	if r := rc.run("daemonplan", "rollout", "status", "ds/agent", "-o", "yaml"); r.code != exitUsage || !strings.Contains(r.stderr, `-o "yaml": want one of table, json`) {
		t.Errorf("status -o yaml: exit %d: %s", r.code, r.stderr)
	}
}
