package main

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/daemonplan/daemonplan/kube/apply"
	"github.com/daemonplan/daemonplan/kube/internal/fakecluster"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/kube/planner"
)

const cluster = `apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: DaemonSet
  metadata: {name: agent, namespace: default, uid: ds-uid, generation: 1}
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

// TestControllerRollout runs the example controller against a fake
// clientset whose "kubelet" makes every created pod ready at once: the
// DaemonSet first gets a ready pod on each of its four nodes, then a new
// template rolls out, one node at a time (maxUnavailable 1), until every
// pod runs the new template and the status says so.
func TestControllerRollout(t *testing.T) {
	c, err := load.Read(strings.NewReader(cluster))
	if err != nil {
		t.Fatal(err)
	}
	fc := fakecluster.New(c, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	fc.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		pod := a.(k8stesting.CreateAction).GetObject().(*corev1.Pod)
		pod.Status.Phase = corev1.PodRunning
		pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(time.Now())}}
		return false, nil, nil
	})
	var syncs, maxUnavailable int
	var failed []error
	ctrl := &Controller{Client: fc, Namespace: "default", Name: "agent", Now: time.Now,
		OnSync: func(_ planner.Options, res apply.Result) {
			syncs++
			if err := res.Err(); err != nil {
				failed = append(failed, err)
			}
		}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- ctrl.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
		if len(failed) > 0 {
			t.Errorf("writes failed: %v", failed)
		}
		t.Logf("converged after %d syncs", syncs)
	}()

	waitFor(t, fc, "v1 on every node", 1, func(pods []corev1.Pod, unavailable int) bool { return len(pods) == 4 })
	ds, err := fc.AppsV1().DaemonSets("default").Get(ctx, "agent", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ds.Spec.Template.Spec.Containers[0].Image = "agent:v2"
	ds.Generation = 2
	if _, err := fc.AppsV1().DaemonSets("default").Update(ctx, ds, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, fc, "v2 on every node", 2, func(pods []corev1.Pod, unavailable int) bool {
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

// waitFor polls the fake cluster until the DaemonSet's status reports
// generation gen observed with 4 pods updated and available, and done
// holds for the pods. It gives up after a minute.
func waitFor(t *testing.T, fc *fakecluster.Cluster, what string, gen int64, done func([]corev1.Pod, int) bool) {
	t.Helper()
	ctx := context.Background()
	for range 6000 {
		ds, err := fc.AppsV1().DaemonSets("default").Get(ctx, "agent", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		pods, err := fc.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		st := ds.Status
		ok := done(pods.Items, int(st.NumberUnavailable))
		if ok && st.ObservedGeneration == gen && st.DesiredNumberScheduled == 4 && st.UpdatedNumberScheduled == 4 && st.NumberAvailable == 4 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no convergence to %s", what)
}
