package main

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/kube/internal/fakeclient"
	"github.com/daemonplan/daemonplan/kube/load"
)

const surgeCluster = `apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: DaemonSet
  metadata: {name: agent, namespace: default, uid: ds-uid, generation: 1}
  spec:
    selector: {matchLabels: {app: agent}}
    minReadySeconds: 1
    template:
      metadata: {labels: {app: agent}}
      spec: {containers: [{name: agent, image: agent:v1}]}
    updateStrategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}
- {apiVersion: v1, kind: Node, metadata: {name: node-a}}
- {apiVersion: v1, kind: Node, metadata: {name: node-b}}
`

// kubelet turns every pod of the fake clientset Ready after ready, with
// an update of the pod as listed (the fake gives it a new
// resourceVersion), as a kubelet reports it, until ctx is done. Pods
// created Ready would show no transition to Ready.
func kubelet(ctx context.Context, fc *fakeclient.Clientset, ready time.Duration) {
	for ctx.Err() == nil {
		pods, err := fc.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
		if err == nil {
			for _, p := range pods.Items {
				if isReady(&p) || time.Since(p.CreationTimestamp.Time) < ready {
					continue
				}
				p.Status.Phase = corev1.PodRunning
				p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Now()}}
				_, _ = fc.CoreV1().Pods("default").UpdateStatus(ctx, &p, metav1.UpdateOptions{})
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestControllerSurgeMinReadySeconds is issue 26's stall: with maxSurge 1
// and minReadySeconds 1, each node's surge pod turns Ready after the sync
// that saw it created; nothing but upstream's requeue minReadySeconds + 1 s
// after the Ready transition syncs the DaemonSet again once the pod is
// available (the status-level requeue counts only each node's oldest pod,
// which stays available). Without it the rollout waits for a resync; the
// controller here has none.
func TestControllerSurgeMinReadySeconds(t *testing.T) {
	c, err := load.Read(strings.NewReader(surgeCluster))
	if err != nil {
		t.Fatal(err)
	}
	fc := fakeclient.New(c, time.Now())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	ctrl := &Controller{Client: fc, Namespace: "default", Now: time.Now}
	go func() { done <- ctrl.Run(ctx) }()
	kubeletDone := make(chan struct{})
	go func() { kubelet(ctx, fc, 0); close(kubeletDone) }()
	defer func() {
		cancel()
		<-kubeletDone
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	// Creation timestamps come from the fake's clock: keep it on the wall
	// clock, so that a surge pod is younger than the pod it replaces.
	go func() {
		for ctx.Err() == nil {
			fc.Advance(time.Since(fc.Now()))
			time.Sleep(5 * time.Millisecond)
		}
	}()

	images := func() (map[string]int, int32, int64) {
		pods, _ := fc.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
		out := map[string]int{}
		for _, p := range pods.Items {
			out[p.Spec.Containers[0].Image]++
		}
		ds, _ := fc.AppsV1().DaemonSets("default").Get(ctx, "agent", metav1.GetOptions{})
		return out, ds.Status.NumberAvailable, ds.Status.ObservedGeneration
	}
	wait := func(what string, limit time.Duration, done func(map[string]int, int32, int64) bool) {
		t.Helper()
		deadline := time.Now().Add(limit)
		for {
			im, avail, og := images()
			if done(im, avail, og) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("no %s within %v: pods by image %v, %d available, observedGeneration %d", what, limit, im, avail, og)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	wait("v1 on both nodes", 10*time.Second, func(im map[string]int, avail int32, _ int64) bool { return im["agent:v1"] == 2 && avail == 2 })

	ds, err := fc.AppsV1().DaemonSets("default").Get(ctx, "agent", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ds.Spec.Template.Spec.Containers[0].Image = "agent:v2"
	ds.Generation = 2
	if _, err := fc.AppsV1().DaemonSets("default").Update(ctx, ds, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	// Two nodes one after the other, each about minReadySeconds + 1 s:
	// well under the limit; a stalled rollout never gets there.
	wait("v2 on both nodes", 15*time.Second, func(im map[string]int, avail int32, og int64) bool {
		return im["agent:v2"] == 2 && len(im) == 1 && avail == 2 && og == 2
	})
	t.Logf("rolled out in %v", time.Since(start).Round(100*time.Millisecond))
}
