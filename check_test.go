package daemonplan_test

import (
	"testing"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/revision"
)

// TestCheckPlanDuplicateRevisionDeletes: Revisions.DeleteDuplicates is a
// delete like Revisions.Delete, and CheckPlan holds it to the same rules:
// only revisions the DaemonSet controls, and none for a DaemonSet being
// deleted. Each row breaks a plan Sync made and passes CheckPlan.
func TestCheckPlanDuplicateRevisionDeletes(t *testing.T) {
	foreign := revision.Revision{Namespace: "ns", Name: "other-1", Revision: 1,
		Controller: &api.OwnerRef{Kind: "DaemonSet", Name: "other", UID: "other-uid"}}
	own := revision.Revision{Namespace: "ns", Name: "agent-old", Revision: 1, Data: []byte(`{"old":true}`),
		Labels:     map[string]string{"app": "agent", api.LabelRevisionHash: "old"},
		Controller: &api.OwnerRef{Kind: "DaemonSet", Name: "agent", UID: "ds-uid"}}
	tests := []struct {
		name, reason string
		deleting     bool
		dup          string
	}{
		{"foreign revision", "another controller's revision is never the DaemonSet's to delete", false, "other-1"},
		{"DaemonSet being deleted", "a DaemonSet being deleted writes nothing but its status", true, "agent-old"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := harmInput()
			in.DaemonSet.Deleting = tt.deleting
			in.Revisions = []revision.Revision{own, foreign}
			p, err := daemonplan.Sync(in, daemonplan.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := daemonplan.CheckPlan(in, p); err != nil {
				t.Fatalf("Sync's own plan fails CheckPlan: %v", err)
			}
			p.Revisions.DeleteDuplicates = []string{tt.dup}
			if err := daemonplan.CheckPlan(in, p); err == nil {
				t.Errorf("CheckPlan accepts Revisions.DeleteDuplicates %v (%s)", p.Revisions.DeleteDuplicates, tt.reason)
			}
		})
	}
}
