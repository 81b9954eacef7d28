package daemonplan_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
	"github.com/daemonplan/daemonplan/revision"
)

var harmNow = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// harmInput is a DaemonSet running one ready pod on node-1.
func harmInput() daemonplan.Input {
	ds := &api.DaemonSet{Namespace: "ns", Name: "agent", UID: "ds-uid", Generation: 1,
		Annotations: map[string]string{api.AnnotationTemplateGeneration: "1"},
		Selector:    &api.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
		Template:    api.PodTemplate{Labels: map[string]string{"app": "agent"}},
		Status:      api.Status{ObservedGeneration: 1},
	}
	pod := api.Pod{Namespace: "ns", Name: "agent-x", UID: "pod-uid",
		Labels:     map[string]string{"app": "agent", api.LabelTemplateGeneration: "1"},
		Controller: &api.OwnerRef{Kind: "DaemonSet", Name: "agent", UID: "ds-uid"},
		NodeName:   "node-1", Phase: api.PodRunning, Ready: true, Created: harmNow.Add(-time.Hour)}
	return daemonplan.Input{DaemonSet: ds, Nodes: []api.Node{{Name: "node-1"}}, Pods: []api.Pod{pod}, Now: harmNow}
}

// fieldErr is the comparable part of a field.Error.
type fieldErr struct {
	Type     field.ErrorType
	Field    string
	BadValue any
	Detail   string
}

func flatten(l field.ErrorList) []fieldErr {
	var out []fieldErr
	for _, e := range l {
		out = append(out, fieldErr{Type: e.Type, Field: e.Field, BadValue: e.BadValue, Detail: e.Detail})
	}
	return out
}

// TestSyncRefusesDuplicates: the same pod listed twice was deleted as a
// duplicate of itself, even under OnDelete (issue 15, item 1), and a
// repeated node was a plan error without the input's index (item 3).
// Sync now refuses such input, naming both indexes, whatever the options.
func TestSyncRefusesDuplicates(t *testing.T) {
	tests := []struct {
		name, reason string
		mod          func(in *daemonplan.Input)
		want         []fieldErr
	}{{
		name:   "pod twice",
		reason: "the same pod twice is one pod: planning it twice deletes it",
		mod:    func(in *daemonplan.Input) { in.Pods = append(in.Pods, in.Pods[0]) },
		want: []fieldErr{
			{Type: field.TypeDuplicate, Field: "pods[1].name", BadValue: "agent-x", Detail: "also pods[0]"},
			{Type: field.TypeDuplicate, Field: "pods[1].uid", BadValue: "pod-uid", Detail: "also pods[0]"},
		},
	}, {
		name:   "pod twice under OnDelete",
		reason: "OnDelete deleted it too",
		mod: func(in *daemonplan.Input) {
			in.DaemonSet.UpdateStrategy.Type = api.OnDelete
			p := in.Pods[0]
			p.UID = ""
			in.Pods = append(in.Pods, p)
		},
		want: []fieldErr{{Type: field.TypeDuplicate, Field: "pods[1].name", BadValue: "agent-x", Detail: "also pods[0]"}},
	}, {
		name:   "one UID, two names",
		reason: "a pod listed under two names is still one pod",
		mod: func(in *daemonplan.Input) {
			p := in.Pods[0]
			p.Name = "agent-y"
			in.Pods = append(in.Pods, p)
		},
		want: []fieldErr{{Type: field.TypeDuplicate, Field: "pods[1].uid", BadValue: "pod-uid", Detail: "also pods[0]"}},
	}, {
		name:   "node twice",
		reason: "a repeated node name names the input's indexes",
		mod: func(in *daemonplan.Input) {
			in.Nodes = append(in.Nodes, api.Node{Name: "node-2"}, api.Node{Name: "node-1"})
		},
		want: []fieldErr{{Type: field.TypeDuplicate, Field: "nodes[2].name", BadValue: "node-1", Detail: "also nodes[0]"}},
	}, {
		name:   "revision twice",
		reason: "a repeated revision names the input's index, not one of an internal list",
		mod: func(in *daemonplan.Input) {
			r := revision.Revision{Namespace: "other", Name: "agent-1"}
			in.Revisions = []revision.Revision{{Namespace: "ns", Name: "agent-1"}, r, r}
		},
		want: []fieldErr{{Type: field.TypeDuplicate, Field: "revisions[2].name", BadValue: "agent-1", Detail: "also revisions[1]"}},
	}, {
		name:   "same name, other namespace",
		reason: "pods of two namespaces may share a name",
		mod: func(in *daemonplan.Input) {
			p := in.Pods[0]
			p.Namespace, p.UID = "other", "other-uid"
			in.Pods = append(in.Pods, p)
		},
	}, {
		name:   "invalid UTF-8 names",
		reason: "n\\xfe and n\\xff render alike: refuse them (issue 15, item 4)",
		mod: func(in *daemonplan.Input) {
			in.Nodes = append(in.Nodes, api.Node{Name: "n\xfe"})
			in.Pods[0].NodeName = "n\xff"
			in.Revisions = []revision.Revision{{Namespace: "ns", Name: "r\xfe"}}
		},
		want: []fieldErr{
			{Type: field.TypeInvalid, Field: "nodes[1].name", BadValue: "n\xfe", Detail: "must be valid UTF-8"},
			{Type: field.TypeInvalid, Field: "pods[0].nodeName", BadValue: "n\xff", Detail: "must be valid UTF-8"},
			{Type: field.TypeInvalid, Field: "revisions[0].name", BadValue: "r\xfe", Detail: "must be valid UTF-8"},
		},
	}, {
		name:   "nameless objects",
		reason: "a write must name what it writes",
		mod: func(in *daemonplan.Input) {
			in.Nodes = append(in.Nodes, api.Node{})
			in.Pods = append(in.Pods, api.Pod{Namespace: "ns"})
		},
		want: []fieldErr{
			{Type: field.TypeRequired, Field: "nodes[1].name", Detail: "every object of a snapshot needs a name"},
			{Type: field.TypeRequired, Field: "pods[1].name", Detail: "every object of a snapshot needs a name"},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := harmInput()
			tt.mod(&in)
			plan, err := daemonplan.Sync(in, daemonplan.Options{})
			if tt.want == nil {
				if err != nil {
					t.Fatalf("%s: Sync: %v", tt.reason, err)
				}
				if len(plan.Delete) != 0 {
					t.Errorf("%s: plan deletes %v", tt.reason, plan.Delete)
				}
				return
			}
			var list field.ErrorList
			if !errors.Is(err, daemonplan.ErrInvalidInput) || !errors.As(err, &list) {
				t.Fatalf("%s: Sync() error = %v, want ErrInvalidInput with a field.ErrorList; plan deletes %v", tt.reason, err, plan.Delete)
			}
			if d := cmp.Diff(tt.want, flatten(list)); d != "" {
				t.Errorf("%s: findings mismatch (-want +got):\n%s", tt.reason, d)
			}
			if d := cmp.Diff(flatten(list), flatten(daemonplan.CheckInput(in))); d != "" {
				t.Errorf("CheckInput disagrees with Sync (-sync +check):\n%s", d)
			}
			if plan.Name != "" || plan.Nodes != nil || plan.Delete != nil {
				t.Errorf("%s: refused input still planned: %+v", tt.reason, plan)
			}
		})
	}
}

// TestEmptyUIDOwnsNothing: a DaemonSet without a UID claimed a pod whose
// controller (a ReplicaSet) had no UID either, and deleted it; --strict did
// not catch it (issue 15, item 2). Ownership never matches an empty UID, a
// DaemonSet without one adopts nothing, and it is a finding at
// metadata.uid: a warning, or the error under Strict.
func TestEmptyUIDOwnsNothing(t *testing.T) {
	in := harmInput()
	in.DaemonSet.UID = ""
	foreign := &api.OwnerRef{Kind: "ReplicaSet", Name: "web", UID: ""}
	in.Pods[0].Controller = foreign
	in.Pods = append(in.Pods, api.Pod{Namespace: "ns", Name: "orphan", UID: "orphan-uid",
		Labels: map[string]string{"app": "agent"}, NodeName: "node-1", Phase: api.PodRunning, Ready: true})
	in.Nodes = append(in.Nodes, api.Node{Name: "node-2"})
	in.Revisions = []revision.Revision{{Namespace: "ns", Name: "agent-old", Controller: foreign,
		Labels: map[string]string{"app": "agent"}, Revision: 1, Data: []byte(`{"old":1}`)},
		{Namespace: "ns", Name: "agent-orphan", Labels: map[string]string{"app": "agent"}, Revision: 2, Data: []byte(`{"old":2}`)}}
	zero := int32(0)
	in.DaemonSet.RevisionHistoryLimit = &zero

	plan, err := daemonplan.Sync(in, daemonplan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Delete) != 0 || len(plan.Adopt) != 0 || len(plan.Release) != 0 || len(plan.Relabel) != 0 {
		t.Errorf("a DaemonSet without UID touched pods: delete %v adopt %v release %v relabel %v",
			plan.Delete, plan.Adopt, plan.Release, plan.Relabel)
	}
	rv := plan.Revisions
	if len(rv.Delete)+len(rv.Adopt)+len(rv.Release)+len(rv.Update) != 0 {
		t.Errorf("a DaemonSet without UID touched revisions: %+v", rv)
	}
	want := []fieldErr{{Type: field.TypeRequired, Field: "metadata.uid",
		Detail: "a DaemonSet without a UID owns no pod or revision and adopts none"}}
	if d := cmp.Diff(want, flatten(plan.Warnings)); d != "" {
		t.Errorf("warnings mismatch (-want +got):\n%s", d)
	}

	_, err = daemonplan.Sync(in, daemonplan.Options{Strict: true})
	var list field.ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("Strict: Sync() error = %v, want the metadata.uid finding", err)
	}
	if d := cmp.Diff(want, flatten(list)); d != "" {
		t.Errorf("Strict: findings mismatch (-want +got):\n%s", d)
	}

	// With a UID, an owner reference without one is still another's.
	in.DaemonSet.UID = "ds-uid"
	plan, err = daemonplan.Sync(in, daemonplan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Delete) != 0 || len(plan.Release) != 0 {
		t.Errorf("an owner reference without UID was taken for the DaemonSet's: delete %v release %v", plan.Delete, plan.Release)
	}
	if d := cmp.Diff([]string{"orphan"}, plan.Adopt); d != "" {
		t.Errorf("with a UID, orphans are adopted as upstream (-want +got):\n%s", d)
	}
}
