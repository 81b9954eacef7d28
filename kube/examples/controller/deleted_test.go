package main

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/kube/apply"
	"github.com/daemonplan/daemonplan/kube/internal/fakeclient"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/revision"
)

// TestNoWriteAfterDelete: the informers still hold a DaemonSet that the
// API server no longer has (deleted, its revisions and pods removed by the
// garbage collector), or has under a new UID (deleted and created again).
// A sync on that view would recreate the revision and the pods with an
// owner reference to a DaemonSet that is gone (seen on the testbed,
// TestScenarios/deleted): the controller reads the DaemonSet from the API
// server before it writes and writes nothing. A write that fails for
// another reason is followed by the same read: a DaemonSet found gone
// then is not retried.
func TestNoWriteAfterDelete(t *testing.T) {
	tests := []struct {
		name, reason string
		change       func(t *testing.T, fc *fakeclient.Clientset)
		wantWrites   bool
		wantErr      bool
	}{
		{"deleted", "the DaemonSet is gone: nothing may be written for it", func(t *testing.T, fc *fakeclient.Clientset) {
			if err := fc.AppsV1().DaemonSets("default").Delete(context.Background(), "agent", metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
		}, false, false},
		{"replaced", "a DaemonSet of the same name with another UID: the view is of the old one", func(t *testing.T, fc *fakeclient.Clientset) {
			ds, err := fc.AppsV1().DaemonSets("default").Get(context.Background(), "agent", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := fc.AppsV1().DaemonSets("default").Delete(context.Background(), "agent", metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			ds.UID, ds.ResourceVersion = "ds-uid-2", ""
			if _, err := fc.AppsV1().DaemonSets("default").Create(context.Background(), ds, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}, false, false},
		{"being deleted", "a deletionTimestamp the informer has not shown yet: upstream writes nothing for such a DaemonSet", func(t *testing.T, fc *fakeclient.Clientset) {
			ds, err := fc.AppsV1().DaemonSets("default").Get(context.Background(), "agent", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			now := metav1.Now()
			ds.DeletionTimestamp = &now
			if err := fc.Tracker().Update(appsv1.SchemeGroupVersion.WithResource("daemonsets"), ds, "default"); err != nil {
				t.Fatal(err)
			}
		}, false, false},
		{"still there", "the control: the same DaemonSet is live, the sync writes its plan", func(*testing.T, *fakeclient.Clientset) {}, true, false},
		{"deleted during the writes", "the first revision create fails and the DaemonSet is gone by then: the failure is not retried", func(t *testing.T, fc *fakeclient.Clientset) {
			fc.PrependReactor("create", "controllerrevisions", func(k8stesting.Action) (bool, runtime.Object, error) {
				if err := fc.Tracker().Delete(appsv1.SchemeGroupVersion.WithResource("daemonsets"), "default", "agent"); err != nil {
					t.Fatal(err)
				}
				return true, nil, errors.New("injected: the server timed out")
			})
		}, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := load.Read(strings.NewReader(cluster))
			if err != nil {
				t.Fatal(err)
			}
			fc := fakeclient.New(c, time.Now())
			ctrl := &Controller{Client: fc, Namespace: "default", Now: time.Now}
			ctrl.init()
			defer ctrl.queue.ShutDown()
			ctrl.lastSeen = func(string) string { return "" }
			// The informers list once and stop: their stores keep the
			// view from before the change, as informers that have not yet
			// seen it.
			// The event handlers have fed the view (and its planner) the
			// same list.
			ctx, cancel := context.WithCancel(context.Background())
			if err := ctrl.register(); err != nil {
				t.Fatal(err)
			}
			ctrl.factory.Start(ctx.Done())
			ctrl.factory.WaitForCacheSync(ctx.Done())
			cache.WaitForCacheSync(ctx.Done(), ctrl.fed...)
			cancel()
			ctrl.factory.Shutdown()

			tc.change(t, fc)
			before := len(fc.Writes())
			_, err = ctrl.sync(context.Background(), "default/agent")
			if gotErr := err != nil; gotErr != tc.wantErr {
				t.Errorf("sync: err %v, want error %v (%s)", err, tc.wantErr, tc.reason)
			}
			var wrote []string
			for _, a := range fc.Writes()[before:] {
				wrote = append(wrote, a.GetVerb()+" "+a.GetResource().Resource)
			}
			if got := len(wrote) > 0; got != tc.wantWrites {
				t.Errorf("sync wrote %v, want writes %v (%s)", wrote, tc.wantWrites, tc.reason)
			}
		})
	}
}

// TestNeedsRead: the DaemonSet is read from the API server before the
// writes that change what it owns, and before pod creates after a loss
// (a pod of it deleted by someone else), and only then: every other write
// is held to preconditions of its own, and a read before each made the
// controller's requests more than upstream's, at the same QPS.
func TestNeedsRead(t *testing.T) {
	create := daemonplan.Plan{Create: []placement.Create{{Node: "n"}}}
	tests := []struct {
		name, reason string
		plan         daemonplan.Plan
		lost         bool
		want         bool
	}{
		{"nothing", "no write", daemonplan.Plan{}, true, false},
		{"status", "the status update is held to the DaemonSet's resourceVersion", daemonplan.Plan{StatusChanged: true}, true, false},
		{"pod delete", "held to the pod's UID and resourceVersion", daemonplan.Plan{Delete: []placement.Delete{{Pod: "p", Node: "n"}}}, true, false},
		{"relabel", "held to the pod's UID and resourceVersion", daemonplan.Plan{Relabel: []revision.PodRelabel{{}}}, true, false},
		{"revision update", "held to the revision's UID and resourceVersion", daemonplan.Plan{Revisions: daemonplan.RevisionWrites{Update: []revision.Revision{{Name: "r"}}}}, true, false},
		{"pod create", "no pod was lost: it replaces one the controller deleted, or is a first one; upstream reads nothing either", create, false, false},
		{"pod create after a loss", "the garbage collector may be deleting the pods of a DaemonSet gone", create, true, true},
		{"revision create", "a revision for a DaemonSet that is gone would outlive it", daemonplan.Plan{Revisions: daemonplan.RevisionWrites{Create: []revision.Revision{{Name: "r"}}}}, false, true},
		{"pod adopt", "an orphan taken by a DaemonSet that is gone", daemonplan.Plan{Adopt: []string{"p"}}, false, true},
		{"revision adopt", "the same for a revision", daemonplan.Plan{Revisions: daemonplan.RevisionWrites{Adopt: []string{"r"}}}, false, true},
		{"pod release", "a pod released from a DaemonSet being deleted escapes the garbage collector", daemonplan.Plan{Release: []string{"p"}}, false, true},
		{"revision release", "the same for a revision", daemonplan.Plan{Revisions: daemonplan.RevisionWrites{Release: []string{"r"}}}, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := needsRead(tc.plan, tc.lost); got != tc.want {
				t.Errorf("%s: needsRead(lost %v) %v, want %v", tc.reason, tc.lost, got, tc.want)
			}
		})
	}
}

// TestLosses: a pod of the DaemonSet that goes (terminating, then
// deleted) is a loss unless this controller deleted it; the pod informer's
// handlers record it, and the next pod create reads the DaemonSet first.
func TestLosses(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ctrl := true
	pod := func(name string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", ResourceVersion: "1",
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "agent", UID: "ds-uid", Controller: &ctrl}}}}
	}
	terminating := func(p *corev1.Pod) *corev1.Pod {
		q := p.DeepCopy()
		q.ResourceVersion = "2"
		q.DeletionTimestamp = &metav1.Time{Time: t0}
		return q
	}
	deletes := func(names ...string) daemonplan.Plan {
		var p daemonplan.Plan
		for _, n := range names {
			p.Delete = append(p.Delete, placement.Delete{Pod: n, Node: "node-" + n})
		}
		return p
	}
	tests := []struct {
		name, reason string
		events       func(c *Controller, st *daemonSetState)
		want         bool
	}{
		{"none", "no pod went since the last read", func(*Controller, *daemonSetState) {}, false},
		{"own delete", "the controller deleted the pod: terminating, then gone, is its own doing", func(c *Controller, st *daemonSetState) {
			st.losses.willDelete(deletes("a"), t0)
			c.onPodUpdate(pod("a"), terminating(pod("a")))
			c.onPodDelete(terminating(pod("a")))
		}, false},
		{"someone else's delete", "the garbage collector, an eviction or a user deleted it", func(c *Controller, _ *daemonSetState) {
			c.onPodUpdate(pod("b"), terminating(pod("b")))
			c.onPodDelete(terminating(pod("b")))
		}, true},
		{"gone at once", "a delete event without a terminating update (no grace period, or a missed event's tombstone)", func(c *Controller, _ *daemonSetState) {
			c.onPodDelete(cache.DeletedFinalStateUnknown{Key: "default/b", Obj: pod("b")})
		}, true},
		{"failed delete", "the controller's delete failed: the pod going later is not its doing", func(c *Controller, st *daemonSetState) {
			st.losses.willDelete(deletes("c"), t0)
			st.losses.settle(deletes("c"), apply.Result{Writes: []apply.Write{{Action: apply.DeletePod, Name: "c", Err: errors.New("injected")}}})
			c.onPodDelete(pod("c"))
		}, true},
		{"delete never issued", "Apply stopped before the deletes (refused, or a failed claim): the pod going later is not the controller's doing", func(c *Controller, st *daemonSetState) {
			st.losses.willDelete(deletes("c", "g"), t0)
			st.losses.settle(deletes("c", "g"), apply.Result{Writes: []apply.Write{{Action: apply.DeletePod, Name: "c"}}})
			c.onPodDelete(pod("c"))
			c.onPodDelete(pod("g"))
		}, true},
		{"delete issued", "the control: a delete Apply shows done stays the controller's", func(c *Controller, st *daemonSetState) {
			st.losses.willDelete(deletes("c"), t0)
			st.losses.settle(deletes("c"), apply.Result{Writes: []apply.Write{{Action: apply.DeletePod, Name: "c"}}})
			c.onPodDelete(pod("c"))
		}, false},
		{"deleted again by name", "a pod of the same name the controller deleted once, recreated and deleted by someone else", func(c *Controller, st *daemonSetState) {
			st.losses.willDelete(deletes("d"), t0)
			c.onPodDelete(pod("d"))
			c.onPodDelete(pod("d"))
		}, true},
		{"expired", "a delete the informers never showed is forgotten after the expectations' TTL", func(c *Controller, st *daemonSetState) {
			st.losses.willDelete(deletes("e"), t0)
			st.losses.willDelete(deletes("f"), t0.Add(deleteTTL))
			c.onPodDelete(pod("e"))
		}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &Controller{Client: fake.NewClientset(), Namespace: "default"}
			c.init()
			defer c.queue.ShutDown()
			st := c.state("default/agent")
			if !st.losses.take() {
				t.Fatal("a new state is not lost: the first create after a restart would read nothing")
			}
			tc.events(c, st)
			if got := st.losses.take(); got != tc.want {
				t.Errorf("%s: lost %v, want %v", tc.reason, got, tc.want)
			}
			if st.losses.take() {
				t.Error("a loss is still there after the read that follows it")
			}
		})
	}
}
