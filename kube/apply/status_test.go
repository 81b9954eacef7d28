package apply_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/kube/apply"
	"github.com/daemonplan/daemonplan/kube/internal/fakeclient"
	"github.com/daemonplan/daemonplan/kube/kubesync"
	"github.com/daemonplan/daemonplan/kube/load"
)

// fataler is what applyStatus needs of a *testing.T or a *rapid.T.
type fataler interface{ Fatal(args ...any) }

// statusWorld is a snapshot's DaemonSet and the one the API server holds
// when Apply writes the status.
type statusWorld struct {
	// the snapshot's: generation, status.observedGeneration and
	// resourceVersion ("" for none); expectations pending in the sync
	gen, observed int64
	rv            string
	pending       bool
	// the server's
	serverGen, serverObserved int64
}

// applyStatus plans the snapshot of w (its status write alone), applies it
// to a fake API server holding the server's DaemonSet, and returns the
// plan, the result and the stored observedGeneration. The fake, like the
// API server, lets a status write without a resourceVersion through; it
// checks none at all on DaemonSets, so that the test sees what Apply
// sends.
func applyStatus(t fataler, w statusWorld) (daemonplan.Plan, apply.Result, int64) {
	c, err := load.Read(strings.NewReader(cluster))
	if err != nil {
		t.Fatal(err)
	}
	// One node without a pod: the plan's counters differ from the status.
	c.Pods = nil
	c.Nodes = []*corev1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "node-00"}}}
	ds := c.DaemonSet
	ds.Generation, ds.Status.ObservedGeneration, ds.ResourceVersion = w.gen, w.observed, w.rv
	p, err := kubesync.Sync(c, now, kubesync.State{ExpectationsPending: w.pending}, kubesync.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p.Create, p.Revisions = nil, daemonplan.RevisionWrites{}
	server := ds.DeepCopy()
	server.Generation, server.Status.ObservedGeneration, server.ResourceVersion = w.serverGen, w.serverObserved, "7"
	fc := fakeclient.New(&load.Snapshot{DaemonSet: server}, now)
	res := apply.Apply(context.Background(), fc, c, p)
	stored, err := fc.AppsV1().DaemonSets("default").Get(context.Background(), "agent", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p, res, stored.Status.ObservedGeneration
}

// TestApplyStatusFromAnIncompleteSnapshot reproduces issue 38's finding
// 5: a snapshot whose DaemonSet has no resourceVersion made Apply write
// the status unconditionally (the API server accepts that for a
// DaemonSet's status), and it moved observedGeneration from 4 back to 3.
// Without a resourceVersion, or without a generation, the snapshot does
// not say what the status write would overwrite: Apply reads the
// DaemonSet first and writes onto what it read, as it retries after a
// conflict.
func TestApplyStatusFromAnIncompleteSnapshot(t *testing.T) {
	tests := []struct {
		name, reason string
		world        statusWorld
		wantObserved int64
		wantNote     string
	}{
		{"newer status, no resourceVersion", "the issue's case: the sync observed generation 3, the server's status observed 4 since",
			statusWorld{gen: 3, observed: 2, serverGen: 4, serverObserved: 4}, 4, apply.NoteStatusNewer},
		{"no generation", "a snapshot without metadata.generation plans observedGeneration 0; the server's status observed 4",
			statusWorld{gen: 0, observed: 0, rv: "7", serverGen: 4, serverObserved: 4}, 4, apply.NoteStatusNewer},
		{"status ahead of the snapshot's generation", "the snapshot's own status observed 4 and its generation says 3: writing 3 goes backwards even by the snapshot",
			statusWorld{gen: 3, observed: 4, rv: "7", serverGen: 3, serverObserved: 4}, 4, apply.NoteStatusNewer},
		{"same DaemonSet, no resourceVersion", "the server holds what the snapshot holds: the status is written, onto the DaemonSet read",
			statusWorld{gen: 3, observed: 2, serverGen: 3, serverObserved: 2}, 3, ""},
		{"pending, no resourceVersion", "a sync with expectations pending keeps the input's observedGeneration (2); the server's 3 is kept, the counters written",
			statusWorld{gen: 3, observed: 2, pending: true, serverGen: 3, serverObserved: 3}, 3, ""},
		{"older server status, no resourceVersion", "the server's status observed 1, the sync observed 3: 3 is written, as upstream",
			statusWorld{gen: 3, observed: 1, serverGen: 3, serverObserved: 1}, 3, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, res, observed := applyStatus(t, tc.world)
			if !p.StatusChanged {
				t.Fatalf("precondition: the plan writes a status")
			}
			if err := res.Err(); err != nil {
				t.Fatalf("%s: Apply: %v", tc.reason, err)
			}
			w := res.Writes[len(res.Writes)-1]
			if w.Action != apply.UpdateStatus || w.Note != tc.wantNote {
				t.Errorf("%s: last write %+v, want UpdateStatus with note %q", tc.reason, w, tc.wantNote)
			}
			if observed != tc.wantObserved {
				t.Errorf("%s: stored observedGeneration %d, want %d", tc.reason, observed, tc.wantObserved)
			}
			if (res.DaemonSet != nil) != (tc.wantNote == "") {
				t.Errorf("%s: Result.DaemonSet = %v, want it set only when a status was written", tc.reason, res.DaemonSet)
			}
		})
	}
}

// TestApplyStatusNeverGoesBackwards is finding 5's property: for any
// snapshot whose DaemonSet lacks a resourceVersion or a generation, and
// any DaemonSet on the server of the same or a later generation, the
// status write never lowers the stored observedGeneration.
func TestApplyStatusNeverGoesBackwards(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var w statusWorld
		w.gen = rapid.Int64Range(0, 5).Draw(t, "generation")
		w.observed = rapid.Int64Range(0, 6).Draw(t, "observed")
		if rapid.Bool().Draw(t, "resourceVersion") {
			w.rv = "7"
		}
		if w.rv != "" && w.gen != 0 {
			w.gen = 0 // the snapshot lacks something
		}
		w.pending = rapid.Bool().Draw(t, "pending")
		w.serverGen = max(w.gen, 1) + rapid.Int64Range(0, 2).Draw(t, "newer")
		w.serverObserved = rapid.Int64Range(0, w.serverGen).Draw(t, "server observed")
		p, res, observed := applyStatus(t, w)
		if observed < w.serverObserved {
			t.Fatalf("observedGeneration moved from %d back to %d (plan's %d); writes %+v", w.serverObserved, observed, p.Status.ObservedGeneration, res.Writes)
		}
	})
}

// TestApplyObjectsRestate: ApplyObjects with a restate asks for the status once the creates
// are issued, as upstream's sync computes its status after manage, and
// writes the status it returns, not the plan's; when restate reports no
// change, no status is written. A revision create the API server refuses
// stops Apply before the status step: restate is not called.
func TestApplyObjectsRestate(t *testing.T) {
	tests := []struct {
		name, reason    string
		changed         bool
		failRevision    bool
		wantCalled      bool
		wantStatusWrite bool
	}{
		{"restated", "the status computed after the creates is written", true, false, true, true},
		{"unchanged", "restate says the DaemonSet holds it already: no write", false, false, true, false},
		{"stopped", "a failed revision create ends Apply before its status step", true, true, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := readSnapshot(t, 3)
			c.Pods = nil
			p, err := kubesync.Sync(c, now, kubesync.State{}, kubesync.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Create) != 3 || !p.StatusChanged {
				t.Fatalf("precondition: plan with 3 creates and a status write, got %d creates, StatusChanged %v", len(p.Create), p.StatusChanged)
			}
			fc := fakeclient.New(c, now)
			if tc.failRevision {
				fc.PrependReactor("create", "controllerrevisions", func(k8stesting.Action) (bool, runtime.Object, error) {
					return true, nil, errors.New("refused")
				})
			}
			called := false
			restate := func() (api.Status, bool) {
				called = true
				pods, err := fc.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{})
				if err != nil || len(pods.Items) != 3 {
					t.Errorf("restate called with %d pods created (err %v), want after all 3 creates", len(pods.Items), err)
				}
				st := p.Status
				st.CurrentNumberScheduled = 3 // what the informers show after the creates
				return st, tc.changed
			}
			res := apply.ApplyObjects(context.Background(), fc, apply.SnapshotLookup(c), p, daemonplan.Options{}, restate)
			if called != tc.wantCalled {
				t.Errorf("restate called %v, want %v (%s)", called, tc.wantCalled, tc.reason)
			}
			if got := res.DaemonSet != nil; got != tc.wantStatusWrite {
				t.Fatalf("status written %v, want %v (%s); writes %v", got, tc.wantStatusWrite, tc.reason, res.Writes)
			}
			if tc.wantStatusWrite && res.DaemonSet.Status.CurrentNumberScheduled != 3 {
				t.Errorf("status written with currentNumberScheduled %d, want restate's 3 (plan's %d)", res.DaemonSet.Status.CurrentNumberScheduled, p.Status.CurrentNumberScheduled)
			}
		})
	}
}
