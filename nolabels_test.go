package daemonplan_test

import (
	"errors"
	"testing"
	"time"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/revision"
)

// TestSyncPodsWithoutLabels: upstream creates pods from the template plus
// the controller-revision-hash and pod-template-generation labels, and
// fails a create only when the pod would have no label at all. That takes
// a template without labels (which a DoesNotExist selector validly
// selects), no template-generation annotation, and an empty current hash:
// the current revision is one another owner holds, without a hash label
// (docs/history.md, H9.2 and H12). Then manage's creates and the rolling
// update's surge creates both fail, and deletes still stand.
func TestSyncPodsWithoutLabels(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	newDS := func() *api.DaemonSet {
		return &api.DaemonSet{
			Namespace: "default", Name: "agent", UID: "ds-uid", Generation: 1,
			Selector: &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "team", Operator: api.SelectorOpDoesNotExist}}},
			UpdateStrategy: api.UpdateStrategy{Type: api.RollingUpdate, RollingUpdate: &api.RollingUpdateParams{
				MaxUnavailable: api.Int(0), MaxSurge: api.Int(1),
			}},
		}
	}
	owned := &api.OwnerRef{Kind: "DaemonSet", Name: "agent", UID: "ds-uid"}
	oldPod := func(name, node string) api.Pod {
		return api.Pod{Namespace: "default", Name: name, NodeName: node, Controller: owned,
			Labels: map[string]string{api.LabelRevisionHash: "old"}, Phase: api.PodRunning, Ready: true,
			Created: now.Add(-time.Hour), ReadySince: now.Add(-time.Hour)}
	}
	// foreign is the current template's revision under another owner,
	// without a hash label: the sync's hash is then empty.
	foreign := func(ds *api.DaemonSet) []revision.Revision {
		return []revision.Revision{{
			Namespace: "default", Name: "agent-" + revision.DefaultHash(ds, nil),
			Controller: &api.OwnerRef{Kind: "DaemonSet", Name: "other", UID: "other-uid"},
			Revision:   1, Data: revision.TemplateData(ds),
		}}
	}
	tests := []struct {
		name, reason string
		gen          bool
		foreign      bool
		pods         []api.Pod
		wantErr      bool
		wantCreates  int
		wantSkipped  int
		wantDeletes  int
	}{
		{"manage, hash", "the revision hash labels the pods", false, false, nil, false, 2, 0, 0},
		{"manage, generation", "the template generation labels the pods", true, true, nil, false, 2, 0, 0},
		{"manage, nothing", "no label at all: manage's creates fail", false, true, nil, true, 0, 2, 0},
		{"manage, nothing, deletes stand", "the duplicate pod is still deleted", false, true,
			[]api.Pod{oldPod("a-1", "node-a"), oldPod("a-2", "node-a")}, true, 0, 1, 1},
		{"surge, nothing", "no label at all: the rolling update's surge create fails", false, true,
			[]api.Pod{oldPod("a-1", "node-a"), oldPod("b-1", "node-b")}, true, 0, 1, 0},
		{"surge, hash", "with the hash the surge pod is created", false, false,
			[]api.Pod{oldPod("a-1", "node-a"), oldPod("b-1", "node-b")}, false, 1, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := newDS()
			if tt.gen {
				ds.Annotations = map[string]string{api.AnnotationTemplateGeneration: "1"}
			}
			in := daemonplan.Input{DaemonSet: ds, Nodes: []api.Node{{Name: "node-a"}, {Name: "node-b"}}, Pods: tt.pods, Now: now}
			if tt.foreign {
				in.Revisions = foreign(ds)
			}
			p, err := daemonplan.Sync(in, daemonplan.Options{})
			if err != nil {
				t.Fatal(err)
			}
			gotErr := false
			for _, err := range p.Errors {
				if errors.Is(err, placement.ErrNoLabels) {
					gotErr = true
				} else {
					t.Errorf("unexpected error %v", err)
				}
			}
			if gotErr != tt.wantErr || len(p.Create) != tt.wantCreates || p.SkippedCreates != tt.wantSkipped || len(p.Delete) != tt.wantDeletes {
				t.Errorf("%s: no-labels error %v, %d creates, %d skipped, %d deletes (hash %q); want %v, %d, %d, %d",
					tt.reason, gotErr, len(p.Create), p.SkippedCreates, len(p.Delete), p.Hash, tt.wantErr, tt.wantCreates, tt.wantSkipped, tt.wantDeletes)
			}
			if tt.wantErr && len(p.Revisions.Delete) > 0 {
				t.Errorf("%s: a failed sync cleans up no history, got %v", tt.reason, p.Revisions.Delete)
			}
		})
	}
}
