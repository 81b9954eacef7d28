package testbed

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestRecorderListIsOneMoment is the reproducer of a budget "violation"
// that never happened: after kube-apiserver restarted, the recorder's
// informer relisted and handed the list over pod by pod, and the state
// between two of those hand-overs (one pod already terminating as listed,
// the pod that replaced another not yet added) showed two nodes
// unavailable where the server only ever had one. A list is one moment
// and is measured once.
func TestRecorderListIsOneMoment(t *testing.T) {
	ready := func(name, node, rv string, terminating bool) *corev1.Pod {
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: rv},
			Spec:       corev1.PodSpec{NodeName: node},
			Status:     corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}},
		}
		if terminating {
			p.DeletionTimestamp = &metav1.Time{}
		}
		return p
	}
	nodes := []string{"node-0", "node-1"}
	// Last watched: node-1's pod is being replaced (one node unavailable).
	before := []*corev1.Pod{ready("a", "node-0", "10", false), ready("b", "node-1", "11", true)}
	// Listed after the watch broke: b is gone and its replacement c ready;
	// now a is being replaced (again one node unavailable).
	listed := []any{ready("a", "node-0", "20", true), ready("c", "node-1", "21", false)}

	setup := func() *Recorder {
		r := newRecorder(nodes)
		for _, p := range before {
			r.pod("ADD", p)
		}
		r.Phase("rollout")
		return r
	}

	oneByOne := setup()
	for _, o := range listed { // what an informer delivers: the list in order, then the deletions
		oneByOne.pod("UPD", o)
	}
	oneByOne.pod("DEL", before[1])
	if got := oneByOne.MaxUnavailable["rollout"]; got != 2 {
		t.Fatalf("the pod-by-pod hand-over measured %d nodes unavailable; the reproducer expects the 2 of a moment that never was", got)
	}

	r := setup()
	if err := (&recordStore{apply: r.pod, replace: r.replacePods, listed: make(chan struct{})}).Replace(listed, "21"); err != nil {
		t.Fatal(err)
	}
	if got := r.MaxUnavailable["rollout"]; got != 1 {
		t.Errorf("a list measured %d nodes unavailable, want 1 (the server never had more)\n%v", got, r.Log)
	}
	if len(r.pods) != 2 || r.pods["b"] != nil || r.pods["c"] == nil {
		t.Errorf("after the list the recorder holds %v, want a and c", r.pods)
	}
}

// TestRecorderWaitSeenPerWatch is the reproducer of a scenario that
// compared a final state read before the test's own pod write had been
// watched (TestScenarios/failed-pods, once): the DaemonSet watch delivered
// a status write newer than the pod write while the pod watch had not yet
// delivered the pod's failure, and one resourceVersion for both watches
// said the write was seen. Each watch now answers for its own resource.
func TestRecorderWaitSeenPerWatch(t *testing.T) {
	r := newRecorder([]string{"node-0"})
	r.pod("ADD", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "a", ResourceVersion: "10"}})
	r.ds("UPD", &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent", ResourceVersion: "20"}})
	// The test failed pod a at resourceVersion 15; the pod watch has not
	// delivered it.
	if err := r.WaitSeen("pods", "15", 50*time.Millisecond); err == nil {
		t.Fatal("WaitSeen(pods, 15) returned before the pod watch delivered resourceVersion 15")
	}
	if err := r.WaitSeen("daemonsets", "20", time.Second); err != nil {
		t.Errorf("WaitSeen(daemonsets, 20): %v", err)
	}
	r.pod("UPD", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "a", ResourceVersion: "15"}})
	if err := r.WaitSeen("pods", "15", time.Second); err != nil {
		t.Errorf("WaitSeen(pods, 15) after the pod watch delivered it: %v", err)
	}
	if err := r.WaitSeen("nodes", "1", time.Second); err == nil {
		t.Error("WaitSeen(nodes) is not refused: the recorder does not watch nodes")
	}
}
