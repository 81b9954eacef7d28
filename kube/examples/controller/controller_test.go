package main

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	"github.com/daemonplan/daemonplan/kube/apply"
	"github.com/daemonplan/daemonplan/kube/internal/fakeclient"
	"github.com/daemonplan/daemonplan/kube/kubesync"
	"github.com/daemonplan/daemonplan/kube/load"
)

const cluster = `apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: DaemonSet
  metadata: {name: agent, namespace: default, uid: ds-uid, generation: 1, resourceVersion: "1"}
  spec:
    selector: {matchLabels: {app: agent}}
    template:
      metadata: {labels: {app: agent}}
      spec: {containers: [{name: agent, image: agent:v1}]}
    updateStrategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 1}}
- {apiVersion: v1, kind: Node, metadata: {name: node-a}}
- {apiVersion: v1, kind: Node, metadata: {name: node-b}}
- {apiVersion: v1, kind: Node, metadata: {name: node-c}}
- {apiVersion: v1, kind: Node, metadata: {name: node-d}}
- apiVersion: v1
  kind: Node
  metadata: {name: node-gpu}
  spec: {taints: [{key: gpu, effect: NoSchedule}]}
`

// budget bounds the whole test: a run takes well under a second, even
// with -race on a loaded machine; a stalled controller fails the test
// after budget, with what it last did, instead of waiting on.
const budget = 30 * time.Second

// TestControllerRollout runs the example controller against a fake
// clientset whose "kubelet" makes every created pod ready at once: the
// DaemonSet first gets a ready pod on each of its four nodes, then a new
// template rolls out, one node at a time (maxUnavailable 1), until every
// pod runs the new template and the status says so. The informers lag
// behind the writes as they may: the test waits on the fake clientset's
// state, not on any timing.
func TestControllerRollout(t *testing.T) {
	c, err := load.Read(strings.NewReader(cluster))
	if err != nil {
		t.Fatal(err)
	}
	fc := fakeclient.New(c, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	fc.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		pod := a.(k8stesting.CreateAction).GetObject().(*corev1.Pod)
		pod.Status.Phase = corev1.PodRunning
		pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(time.Now())}}
		return false, nil, nil
	})
	// The fake runs reactors on the caller's goroutine: the stack tells
	// the controller's liveness read (gone) from apply's reads.
	var goneReads atomic.Int32
	fc.PrependReactor("get", "daemonsets", func(k8stesting.Action) (bool, runtime.Object, error) {
		if strings.Contains(string(debug.Stack()), ".(*Controller).gone(") {
			goneReads.Add(1)
		}
		return false, nil, nil
	})
	rec := &recorder{}
	events := record.NewFakeRecorder(1000)
	ctrl := &Controller{Client: fc, Namespace: "default", Name: "agent", Now: time.Now, OnSync: rec.onSync, Recorder: events}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- ctrl.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
		// Four pods created, then four replaced: upstream's Events.
		if got := countEvents(events); got["SuccessfulCreate"] != 8 || got["SuccessfulDelete"] != 4 {
			t.Errorf("events by reason %v, want 8 SuccessfulCreate and 4 SuccessfulDelete", got)
		}
		if len(rec.failed) > 0 {
			t.Errorf("writes failed: %v", rec.failed)
		}
		// Reads cost requests at the client's QPS, as writes do: a delete
		// is held to the resourceVersion the informer showed (no pod
		// changes after its create here, so none conflicts) and reads
		// nothing first.
		// The DaemonSet is read (gone) before the sync that creates the
		// first revision and pods, and before the one that creates the
		// second revision; the rollout's pod creates follow the
		// controller's own deletes, which lose nothing (needsRead): no
		// read before them. Reads after a status conflict are apply's
		// (the fake's resourceVersions are opaque, so a sync may write
		// onto a DaemonSet before its informer shows the last status
		// write).
		for _, a := range fc.Actions() {
			if a.GetVerb() == "get" && a.GetResource().Resource == "pods" {
				t.Errorf("the controller read a pod (%s): a delete is held to the informer's resourceVersion", a.(k8stesting.GetAction).GetName())
			}
		}
		dsReads := int(goneReads.Load())
		// A revision create planned again before the revision informer
		// showed the first (NoteRevisionExists) reads once more.
		rec.mu.Lock()
		revisionCreates := 2 + rec.revisionExists
		rec.mu.Unlock()
		if dsReads > revisionCreates {
			t.Errorf("the controller read the DaemonSet %d times, want at most %d (the revision creates): a pod create after the controller's own delete needs no read", dsReads, revisionCreates)
		}
		t.Logf("converged after %d syncs; %d revision creates found the revision already there", rec.syncs, rec.revisionExists)
	}()
	deadline := time.Now().Add(budget)

	waitFor(t, fc, rec, deadline, "v1 on every node", 1, func(pods []corev1.Pod, unavailable int) bool { return len(pods) == 4 })
	obj, err := fc.Tracker().Get(appsv1.SchemeGroupVersion.WithResource("daemonsets"), "default", "agent")
	if err != nil {
		t.Fatal(err)
	}
	ds := obj.(*appsv1.DaemonSet).DeepCopy()
	ds.Spec.Template.Spec.Containers[0].Image = "agent:v2"
	ds.Generation = 2
	if _, err := fc.AppsV1().DaemonSets("default").Update(ctx, ds, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	maxUnavailable := 0
	waitFor(t, fc, rec, deadline, "v2 on every node", 2, func(pods []corev1.Pod, unavailable int) bool {
		maxUnavailable = max(maxUnavailable, unavailable)
		for _, p := range pods {
			if p.Spec.Containers[0].Image != "agent:v2" {
				return false
			}
		}
		return len(pods) == 4
	})
	if maxUnavailable > 1 {
		t.Errorf("status reported %d unavailable during the rollout, budget 1", maxUnavailable)
	}
}

// recorder keeps what the controller's syncs did; OnSync runs on the
// controller's goroutine.
type recorder struct {
	mu             sync.Mutex
	syncs          int
	revisionExists int
	failed         []error
	last           []string // the writes of the last sync with writes
}

func (r *recorder) onSync(_ kubesync.State, res apply.Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.syncs++
	if err := res.Err(); err != nil {
		r.failed = append(r.failed, err)
	}
	if len(res.Writes) > 0 {
		r.last = r.last[:0]
	}
	for _, w := range res.Writes {
		r.last = append(r.last, fmt.Sprintf("%s %s", w.Action, w.Name))
		if w.Note == apply.NoteRevisionExists {
			r.revisionExists++
		}
	}
}

// waitFor polls the fake clientset until the DaemonSet's status reports
// generation gen observed with 4 pods updated and available, and done
// holds for the pods. It fails the test at once if the DaemonSet's
// generation went below gen (a write replaced the template change), and
// after the deadline with the cluster's state and the controller's last
// writes. It reads the fake's object tracker, so that the clientset's
// actions are the controller's only.
func waitFor(t *testing.T, fc *fakeclient.Clientset, rec *recorder, deadline time.Time, what string, gen int64, done func([]corev1.Pod, int) bool) {
	t.Helper()
	for {
		obj, err := fc.Tracker().Get(appsv1.SchemeGroupVersion.WithResource("daemonsets"), "default", "agent")
		if err != nil {
			t.Fatal(err)
		}
		ds := obj.(*appsv1.DaemonSet)
		list, err := fc.Tracker().List(corev1.SchemeGroupVersion.WithResource("pods"), corev1.SchemeGroupVersion.WithKind("Pod"), "default")
		if err != nil {
			t.Fatal(err)
		}
		pods := list.(*corev1.PodList)
		st := ds.Status
		ok := done(pods.Items, int(st.NumberUnavailable))
		switch {
		case ok && st.ObservedGeneration == gen && st.DesiredNumberScheduled == 4 && st.UpdatedNumberScheduled == 4 && st.NumberAvailable == 4:
			return
		case ds.Generation < gen:
			t.Fatalf("waiting for %s: the DaemonSet is back at generation %d: a write replaced its template; %s", what, ds.Generation, state(ds, pods.Items, rec))
		case time.Now().After(deadline):
			t.Fatalf("no convergence to %s within %v: %s", what, budget, state(ds, pods.Items, rec))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func state(ds *appsv1.DaemonSet, pods []corev1.Pod, rec *recorder) string {
	var b strings.Builder
	fmt.Fprintf(&b, "DaemonSet generation %d, image %s, status %+v; pods:", ds.Generation, ds.Spec.Template.Spec.Containers[0].Image, ds.Status)
	for _, p := range pods {
		fmt.Fprintf(&b, " %s (%s, %s)", p.Name, p.Spec.Containers[0].Image, p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey])
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	fmt.Fprintf(&b, "; %d syncs, the last writes %v", rec.syncs, rec.last)
	return b.String()
}

// TestPodDeleteForgets: the pod informer's delete handler, given a
// tombstone as informers deliver after a missed event, forgets the pod's
// expectation and enqueues its DaemonSet (apply.Expectations has the rest
// of the rules).
func TestPodDeleteForgets(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ctrl := true
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "agent-00001", Namespace: "default",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "agent", UID: "ds-uid", Controller: &ctrl}}}}
	c := &Controller{Client: fake.NewClientset(), Namespace: "default"}
	c.init()
	defer c.queue.ShutDown()
	st := c.state("default/agent")
	st.expect.Expect(apply.Result{Created: []*corev1.Pod{pod}}, t0)
	c.onPodDelete(cache.DeletedFinalStateUnknown{Key: "default/agent-00001", Obj: pod})
	if c.queue.Len() != 1 {
		t.Error("the delete did not enqueue the DaemonSet")
	}
	if st.expect.Pending(&load.Snapshot{}, t0) {
		t.Error("the create is still expected after the pod's delete event")
	}
}

// TestReadyRequeue: upstream's pod update handler syncs the DaemonSet
// again minReadySeconds + 1 s after a pod of it turns Ready; without it a
// maxSurge rollout with minReadySeconds stalls (issue 26, defect 1).
func TestReadyRequeue(t *testing.T) {
	ready := func(status corev1.ConditionStatus) *corev1.Pod {
		return &corev1.Pod{Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}}}
	}
	deleting := ready(corev1.ConditionTrue)
	deleting.DeletionTimestamp = &metav1.Time{}
	ds := func(minReady int32) *appsv1.DaemonSet {
		return &appsv1.DaemonSet{Spec: appsv1.DaemonSetSpec{MinReadySeconds: minReady}}
	}
	tests := []struct {
		name, reason string
		old, cur     *corev1.Pod
		ds           *appsv1.DaemonSet
		want         time.Duration
	}{
		{"turned ready", "minReadySeconds 2: synced again after 3 s", ready(corev1.ConditionFalse), ready(corev1.ConditionTrue), ds(2), 3 * time.Second},
		{"no condition before", "a pod without a Ready condition is not ready", &corev1.Pod{}, ready(corev1.ConditionTrue), ds(1), 2 * time.Second},
		{"no minReadySeconds", "a Ready pod is available at once: the update's own sync sees it", ready(corev1.ConditionFalse), ready(corev1.ConditionTrue), ds(0), 0},
		{"still ready", "no transition", ready(corev1.ConditionTrue), ready(corev1.ConditionTrue), ds(2), 0},
		{"turned unready", "only a turn to Ready is waited on", ready(corev1.ConditionTrue), ready(corev1.ConditionFalse), ds(2), 0},
		{"being deleted", "upstream handles a pod with a deletionTimestamp as deleted", ready(corev1.ConditionFalse), deleting, ds(2), 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := readyRequeue(tc.old, tc.cur, tc.ds); got != tc.want {
				t.Errorf("readyRequeue = %v, want %v (%s)", got, tc.want, tc.reason)
			}
		})
	}
}

// countEvents drains a FakeRecorder ("type reason message") into counts
// by reason.
func countEvents(r *record.FakeRecorder) map[string]int {
	got := map[string]int{}
	for {
		select {
		case e := <-r.Events:
			got[strings.Fields(e)[1]]++
		default:
			return got
		}
	}
}
