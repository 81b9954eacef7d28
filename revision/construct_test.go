package revision

import (
	"errors"
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
)

// created is the revision Construct creates for testDS(data).
func created(number int64, data string) Revision {
	return createdAs(data, number, data)
}

// createdAs is the revision Construct creates for testDS(data) under hash.
func createdAs(hash string, number int64, data string) Revision {
	return rev("agent-"+hash, number, data, func(r *Revision) {
		r.Annotations = map[string]string{api.AnnotationChangeCause: "edit " + data}
	})
}

func relabelled(r Revision) Revision {
	r = r.DeepCopy()
	r.Labels[api.LabelRevisionHash] = r.Name
	return r
}

func adopted(r Revision) Revision {
	r = r.DeepCopy()
	r.Controller = dsRef()
	return r
}

func TestConstruct(t *testing.T) {
	tests := []struct {
		name      string
		reason    string
		ds        *api.DaemonSet
		revisions []Revision
		pods      []api.Pod
		want      History
		wantErr   error
	}{{
		name:   "FirstRevision",
		reason: "with no revision, the current one is created as number 1, named after the hash, labelled with it, carrying the DaemonSet's annotations",
		ds:     testDS("v1"),
		want: History{
			Current: created(1, "v1"),
			Hash:    "v1",
			Create:  []Revision{created(1, "v1")},
		},
	}, {
		name:      "UnchangedTemplate",
		reason:    "a claimed revision with equal data is current; nothing is written",
		ds:        testDS("v1"),
		revisions: []Revision{rev("agent-v1", 1, "v1")},
		want:      History{Current: rev("agent-v1", 1, "v1"), Hash: "v1"},
	}, {
		name:      "ChangedTemplate",
		reason:    "a new template makes a new revision numbered above the old ones",
		ds:        testDS("v3"),
		revisions: []Revision{rev("agent-v2", 2, "v2"), rev("agent-v1", 1, "v1")},
		want: History{
			Current: created(3, "v3"),
			Old:     []Revision{rev("agent-v1", 1, "v1"), rev("agent-v2", 2, "v2")},
			Hash:    "v3",
			Create:  []Revision{created(3, "v3")},
		},
	}, {
		name:      "RollbackRenumbers",
		reason:    "going back to an old template makes its revision current and renumbers it to max(old)+1 (upstream: dedupCurHistories in constructHistory)",
		ds:        testDS("v1"),
		revisions: []Revision{rev("agent-v1", 1, "v1"), rev("agent-v2", 2, "v2"), rev("agent-v3", 3, "v3")},
		want: History{
			Current: rev("agent-v1", 4, "v1"),
			Old:     []Revision{rev("agent-v2", 2, "v2"), rev("agent-v3", 3, "v3")},
			Hash:    "v1",
			Update:  []Revision{rev("agent-v1", 4, "v1")},
		},
	}, {
		name:      "HashIsTheLabelNotTheName",
		reason:    "new pods get the current revision's hash label, whatever the revision is called",
		ds:        testDS("v1"),
		revisions: []Revision{rev("agent-v1", 1, "v1", hashLabel("older-hash"))},
		want:      History{Current: rev("agent-v1", 1, "v1", hashLabel("older-hash")), Hash: "older-hash"},
	}, {
		name:   "DuplicatesKeepHighest",
		reason: "several current revisions: keep the highest number, delete the others, relabel every pod whose hash differs from the keeper's",
		ds:     testDS("v1"),
		revisions: []Revision{
			rev("agent-a", 5, "v1"), rev("agent-b", 2, "v1"), rev("agent-old", 1, "v0"),
		},
		pods: []api.Pod{pod("p3", ""), pod("p1", "b"), pod("p2", "a"), pod("p0", "old")},
		want: History{
			Current:          rev("agent-a", 5, "v1"),
			Old:              []Revision{rev("agent-old", 1, "v0")},
			Hash:             "a",
			DeleteDuplicates: []string{"agent-b"},
			RelabelPods:      []PodRelabel{{"p0", "a"}, {"p1", "a"}, {"p3", "a"}},
		},
	}, {
		name:   "DuplicatesTieKeepsLastName",
		reason: "on equal numbers the revision whose name sorts last is kept, then renumbered above the old ones",
		ds:     testDS("v1"),
		revisions: []Revision{
			rev("agent-z", 1, "v1"), rev("agent-old", 3, "v0"), rev("agent-m", 1, "v1"),
		},
		pods: []api.Pod{pod("p1", "z"), pod("p2", "m")},
		want: History{
			Current:          rev("agent-z", 4, "v1"),
			Old:              []Revision{rev("agent-old", 3, "v0")},
			Hash:             "z",
			Update:           []Revision{rev("agent-z", 4, "v1")},
			DeleteDuplicates: []string{"agent-m"},
			RelabelPods:      []PodRelabel{{"p2", "z"}},
		},
	}, {
		name:      "LegacyCurrent",
		reason:    "a claimed revision without hash label gets its name as label; that name is then the hash of new pods",
		ds:        testDS("v2"),
		revisions: []Revision{rev("agent-legacy", 2, "v2", legacy), rev("agent-v1", 1, "v1")},
		want: History{
			Current: rev("agent-legacy", 2, "v2", hashLabel("agent-legacy")),
			Old:     []Revision{rev("agent-v1", 1, "v1")},
			Hash:    "agent-legacy",
			Update:  []Revision{rev("agent-legacy", 2, "v2", hashLabel("agent-legacy"))},
		},
	}, {
		name:      "LegacyOldAndRenumbered",
		reason:    "an old legacy revision is labelled too; a current one both labelled and renumbered is one update",
		ds:        testDS("v1"),
		revisions: []Revision{rev("agent-x", 1, "v1", legacy), rev("agent-y", 2, "v2", legacy)},
		want: History{
			Current: rev("agent-x", 3, "v1", hashLabel("agent-x")),
			Old:     []Revision{rev("agent-y", 2, "v2", hashLabel("agent-y"))},
			Hash:    "agent-x",
			Update: []Revision{
				rev("agent-x", 3, "v1", hashLabel("agent-x")),
				rev("agent-y", 2, "v2", hashLabel("agent-y")),
			},
		},
	}, {
		name:   "LegacyDuplicateLabelledThenDeleted",
		reason: "a legacy duplicate is labelled and deleted in the same sync (conformance extra-dupcr-42)",
		ds:     testDS("v1"),
		revisions: []Revision{
			rev("agent-dup", 5, "v1", hashLabel("dup")), rev("agent-leg", 1, "v1", legacy), rev("agent-v4", 4, "v1"),
		},
		pods: []api.Pod{pod("p1", "v4"), pod("p2", "dup")},
		want: History{
			Current:          rev("agent-dup", 5, "v1", hashLabel("dup")),
			Hash:             "dup",
			Update:           []Revision{rev("agent-leg", 1, "v1", hashLabel("agent-leg"))},
			DeleteDuplicates: []string{"agent-leg", "agent-v4"},
			RelabelPods:      []PodRelabel{{"p1", "dup"}},
		},
	}, {
		name:      "CollisionWithForeignRevision",
		reason:    "the name is taken by a revision with other data: no create, collision count (nil→0)+1, AlreadyExists error",
		ds:        testDS("v2"),
		revisions: []Revision{rev("agent-v2", 7, "other", ownedBy("uid-other")), rev("agent-v1", 1, "v1")},
		want: History{
			Old:            []Revision{rev("agent-v1", 1, "v1")},
			CollisionCount: int32p(1),
		},
		wantErr: &AlreadyExistsError{Name: "agent-v2"},
	}, {
		name:   "CollisionWithClaimedRevision",
		reason: "the name is taken by one of our own old revisions with other data (conformance extra-collision-47); the count goes from 2 to 3 and the hash is computed with 2",
		ds: testDS("v2", func(ds *api.DaemonSet) {
			ds.Status.CollisionCount = int32p(2)
		}),
		revisions: []Revision{rev("agent-v2-c2", 1, "v1", hashLabel("v1"))},
		want: History{
			Old:            []Revision{rev("agent-v2-c2", 1, "v1", hashLabel("v1"))},
			CollisionCount: int32p(3),
		},
		wantErr: &AlreadyExistsError{Name: "agent-v2-c2"},
	}, {
		name:   "CollisionKeepsEarlierWrites",
		reason: "adoptions, releases and legacy labels happen before the collision and stay in the plan",
		ds:     testDS("v2"),
		revisions: []Revision{
			rev("agent-v2", 1, "x", ownedBy("uid-other")),
			rev("agent-orphan", 2, "v0", orphan, legacy),
			rev("agent-gone", 3, "v9", withLabels("app", "else")),
		},
		want: History{
			Old:            []Revision{adopted(rev("agent-orphan", 2, "v0", hashLabel("agent-orphan")))},
			Update:         []Revision{adopted(rev("agent-orphan", 2, "v0", hashLabel("agent-orphan")))},
			Adopt:          []string{"agent-orphan"},
			Release:        []string{"agent-gone"},
			CollisionCount: int32p(1),
		},
		wantErr: &AlreadyExistsError{Name: "agent-v2"},
	}, {
		name:      "NameTakenWithSameDataIsReused",
		reason:    "the name is taken by a revision we do not claim but with equal data: it is used as is, not created, not renumbered",
		ds:        testDS("v2"),
		revisions: []Revision{rev("agent-v2", 1, "v2", ownedBy("uid-other"), hashLabel("theirs")), rev("agent-v1", 5, "v1")},
		want: History{
			Current: rev("agent-v2", 1, "v2", ownedBy("uid-other"), hashLabel("theirs")),
			Old:     []Revision{rev("agent-v1", 5, "v1")},
			Hash:    "theirs",
		},
	}, {
		name:      "NameTakenByReleasedRevisionIsReused",
		reason:    "our revision that the selector no longer selects is released, and still reused when its data matches",
		ds:        testDS("v2"),
		revisions: []Revision{rev("agent-v2", 1, "v2", withLabels("app", "else", api.LabelRevisionHash, "v2"))},
		want: History{
			Current: rev("agent-v2", 1, "v2", withLabels("app", "else", api.LabelRevisionHash, "v2"), orphan),
			Hash:    "v2",
			Release: []string{"agent-v2"},
		},
	}, {
		name:   "ClaimRules",
		reason: "orphans selected are adopted unless being deleted; unselected owned ones released; other owners and namespaces ignored",
		ds:     testDS("v1"),
		revisions: []Revision{
			rev("agent-v1", 1, "v1"),
			rev("agent-adopt", 2, "v0", orphan),
			rev("agent-orphan-deleting", 3, "v0", orphan, deleting),
			rev("agent-orphan-unselected", 4, "v0", orphan, withLabels("app", "else")),
			rev("agent-release", 5, "v0", withLabels("app", "else")),
			rev("agent-foreign", 6, "v0", ownedBy("uid-other")),
			rev("agent-elsewhere", 7, "v0", inNamespace("other")),
			rev("agent-owned-deleting", 8, "v0", deleting),
		},
		want: History{
			Current: rev("agent-v1", 9, "v1"),
			Old:     []Revision{adopted(rev("agent-adopt", 2, "v0", orphan)), rev("agent-owned-deleting", 8, "v0", deleting)},
			Hash:    "v1",
			Update:  []Revision{rev("agent-v1", 9, "v1")},
			Adopt:   []string{"agent-adopt"},
			Release: []string{"agent-release"},
		},
	}, {
		name:   "DaemonSetDeleting",
		reason: "a DaemonSet being deleted neither adopts nor releases",
		ds:     testDS("v1", func(ds *api.DaemonSet) { ds.Deleting = true }),
		revisions: []Revision{
			rev("agent-v1", 1, "v1"),
			rev("agent-adopt", 2, "v0", orphan),
			rev("agent-release", 3, "v0", withLabels("app", "else")),
		},
		want: History{
			Current: rev("agent-v1", 1, "v1"),
			Hash:    "v1",
		},
	}, {
		name:      "AdoptedOrphanIsCurrent",
		reason:    "an adopted orphan holding the template is the current revision",
		ds:        testDS("v1"),
		revisions: []Revision{rev("agent-v1", 1, "v1", orphan)},
		want: History{
			Current: adopted(rev("agent-v1", 1, "v1", orphan)),
			Hash:    "v1",
			Adopt:   []string{"agent-v1"},
		},
	}, {
		name:      "CollisionCountCopied",
		reason:    "without a collision the input count is carried through",
		ds:        testDS("v1", func(ds *api.DaemonSet) { ds.Status.CollisionCount = int32p(4) }),
		revisions: []Revision{rev("agent-v1", 1, "v1")},
		want:      History{Current: rev("agent-v1", 1, "v1"), Hash: "v1", CollisionCount: int32p(4)},
	}, {
		name:   "CreateUsesCollisionCount",
		reason: "the hash of a new revision includes the collision count",
		ds:     testDS("v1", func(ds *api.DaemonSet) { ds.Status.CollisionCount = int32p(1) }),
		want: History{
			Current:        createdAs("v1-c1", 1, "v1"),
			Hash:           "v1-c1",
			Create:         []Revision{createdAs("v1-c1", 1, "v1")},
			CollisionCount: int32p(1),
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			revisions := cloneAll(tt.revisions)
			pods := clonePods(tt.pods)
			got, err := Construct(tt.ds, revisions, podPtrs(pods), testOpts)
			if tt.wantErr != nil {
				var ae *AlreadyExistsError
				if !errors.As(err, &ae) {
					t.Fatalf("Construct() error = %v, want %v (%s)", err, tt.wantErr, tt.reason)
				}
				if diff := cmp.Diff(tt.wantErr, ae); diff != "" {
					t.Errorf("Construct() error mismatch (-want +got):\n%s", diff)
				}
			} else if err != nil {
				t.Fatalf("Construct() error = %v (%s)", err, tt.reason)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Construct() mismatch (-want +got):\n%s\nreason: %s", diff, tt.reason)
			}
			if diff := cmp.Diff(tt.revisions, revisions); diff != "" {
				t.Errorf("Construct() changed its revisions (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(tt.pods, pods); diff != "" {
				t.Errorf("Construct() changed its pods (-before +after):\n%s", diff)
			}
		})
	}
}

// TestControlledHistories mirrors upstream's test of the same name (update_test.go): an orphan revision of the DaemonSet's namespace is adopted, one of
// another namespace is ignored.
func TestControlledHistories(t *testing.T) {
	ds := testDS("v1")
	revisions := []Revision{
		rev("agent-v1", 1, "v1", orphan),
		rev("agent-v1", 1, "v1", orphan, inNamespace("other")),
	}
	got, err := Construct(ds, revisions, nil, testOpts)
	mustNoError(t, err)
	want := History{
		Current: adopted(rev("agent-v1", 1, "v1")),
		Hash:    "v1",
		Adopt:   []string{"agent-v1"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Construct() mismatch (-want +got):\n%s", diff)
	}
}

func TestConstructErrors(t *testing.T) {
	t.Run("DuplicateName", func(t *testing.T) {
		revisions := []Revision{rev("agent-a", 1, "v1"), rev("agent-b", 2, "v2"), rev("agent-a", 3, "v3")}
		_, err := Construct(testDS("v1"), revisions, nil, testOpts)
		var list field.ErrorList
		if !errors.As(err, &list) {
			t.Fatalf("Construct() error = %v, want a field.ErrorList", err)
		}
		want := field.ErrorList{{Type: field.TypeDuplicate, Field: "revisions[2].name", BadValue: "agent-a"}}
		if diff := cmp.Diff(want, list); diff != "" {
			t.Errorf("Construct() error mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("SameNameOtherNamespace", func(t *testing.T) {
		revisions := []Revision{rev("agent-v1", 1, "v1"), rev("agent-v1", 1, "v1", inNamespace("x"))}
		_, err := Construct(testDS("v1"), revisions, nil, testOpts)
		mustNoError(t, err) // names only need to be unique within a namespace
	})
	t.Run("InvalidSelector", func(t *testing.T) {
		ds := testDS("v1", func(ds *api.DaemonSet) {
			ds.Selector = &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "a", Operator: "Gt", Values: []string{"1"}}}}
		})
		h, err := Construct(ds, []Revision{rev("agent-v1", 1, "v1")}, nil, testOpts)
		var list field.ErrorList
		if !errors.As(err, &list) || h.Create != nil {
			t.Fatalf("Construct() = %+v, %v; want a field.ErrorList and no create", h, err)
		}
		if len(list) != 1 || list[0].Type != field.TypeInvalid || list[0].Field != "spec.selector.matchExpressions[0].operator" {
			t.Errorf("Construct() error = %#v, want Invalid at spec.selector.matchExpressions[0].operator", list)
		}
	})
	t.Run("NilDaemonSetPanics", func(t *testing.T) {
		defer func() {
			if r := recover(); r != "revision.Construct: nil DaemonSet" {
				t.Errorf("recover() = %v", r)
			}
		}()
		_, _ = Construct(nil, nil, nil, Options{})
	})
}

// TestConstructOrderIndependent checks that shuffling revisions and pods
// changes nothing.
func TestConstructOrderIndependent(t *testing.T) {
	ds := testDS("v1")
	revisions := []Revision{
		rev("agent-a", 3, "v1"), rev("agent-b", 3, "v1"), rev("agent-c", 1, "v1", legacy),
		rev("agent-d", 2, "v0"), rev("agent-e", 4, "v2", orphan), rev("agent-f", 1, "v9", withLabels("app", "x")),
	}
	pods := []api.Pod{pod("p1", "a"), pod("p2", "b"), pod("p3", "")}
	want, err := Construct(ds, revisions, podPtrs(pods), testOpts)
	mustNoError(t, err)
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 50; i++ {
		rs, ps := cloneAll(revisions), clonePods(pods)
		rng.Shuffle(len(rs), func(i, j int) { rs[i], rs[j] = rs[j], rs[i] })
		rng.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
		got, err := Construct(ds, rs, podPtrs(ps), testOpts)
		mustNoError(t, err)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("Construct() depends on input order (-want +got):\n%s", diff)
		}
	}
}

func TestAlreadyExistsError(t *testing.T) {
	err := error(&AlreadyExistsError{Name: "node-agent-67c4d46666"})
	if got, want := err.Error(), `controllerrevisions.apps "node-agent-67c4d46666" already exists`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// TestConstructEmptyUID: an owner reference without UID is nobody's, and a
// DaemonSet without UID claims and adopts no revision (issue 15, item 2):
// before, a revision of another controller without UID was taken for the
// DaemonSet's and deleted or renumbered like one of its own.
func TestConstructEmptyUID(t *testing.T) {
	foreign := func(r *Revision) { r.Controller = &api.OwnerRef{Kind: "StatefulSet", Name: "db"} }
	revs := []Revision{rev("agent-v1", 1, "v1", foreign), rev("agent-v2", 2, "v2", func(r *Revision) { r.Controller = nil })}
	tests := []struct {
		name, uid, reason string
		wantOld           int
		wantAdopt         []string
	}{
		{"no UID", "", "a DaemonSet without UID owns nothing and adopts nothing", 0, nil},
		{"UID", testUID, "the orphan is adopted; the foreign revision is still not the DaemonSet's", 0, []string{"agent-v2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := testDS("v2", func(ds *api.DaemonSet) { ds.UID = tt.uid })
			h, err := Construct(ds, revs, nil, testOpts)
			if err != nil {
				t.Fatal(err)
			}
			if len(h.Old) != tt.wantOld || len(h.Update) != 0 || len(h.DeleteDuplicates) != 0 {
				t.Errorf("%s: old %d update %d delete %v; want no write on the foreign revision", tt.reason, len(h.Old), len(h.Update), h.DeleteDuplicates)
			}
			if d := cmp.Diff(tt.wantAdopt, h.Adopt); d != "" {
				t.Errorf("%s: Adopt mismatch (-want +got):\n%s", tt.reason, d)
			}
		})
	}
}
