package main

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"

	"github.com/daemonplan/daemonplan/kube/apply"
	"github.com/daemonplan/daemonplan/kube/kubesync"
)

// benchController is a controller whose informers are played by the
// benchmark: a fake clientset's reactors answer the writes and hand every
// created pod (Running and Ready) and revision, and every status write, to
// the event handlers at once, as informers would a moment later.
func benchController(b *testing.B, nodes int) (*Controller, eventHandlers, *fake.Clientset, func() *corev1.Pod) {
	b.Helper()
	at := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	one := intstr.FromInt32(1)
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "agent", UID: "ds-uid", Generation: 1, ResourceVersion: "1"},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "agent"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "agent", Image: "agent:v1"}}}},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType, RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &one}},
		},
	}
	fc := fake.NewClientset(ds)
	c := &Controller{Client: fc, Namespace: "ns", Now: func() time.Time { return at }, Recorder: &record.FakeRecorder{}}
	c.init()
	c.lastSeen = func(string) string { return "" }
	h := c.handlers()
	var seq atomic.Int64
	var lastPod atomic.Pointer[corev1.Pod]
	fc.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		pod := a.(k8stesting.CreateAction).GetObject().(*corev1.Pod)
		pod.Name = pod.GenerateName + strconv.FormatInt(seq.Add(1), 36)
		pod.UID = types.UID("uid-" + pod.Name)
		lastPod.Store(pod)
		pod.ResourceVersion = "1"
		pod.CreationTimestamp = metav1.NewTime(at.Add(-time.Hour))
		pod.Status.Phase = corev1.PodRunning
		pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(at.Add(-time.Hour))}}
		h.pods.AddFunc(pod)
		return true, pod, nil
	})
	fc.PrependReactor("create", "controllerrevisions", func(a k8stesting.Action) (bool, runtime.Object, error) {
		cr := a.(k8stesting.CreateAction).GetObject().(*appsv1.ControllerRevision)
		cr.UID = types.UID("uid-" + cr.Name)
		h.revisions.AddFunc(cr)
		return true, cr, nil
	})
	// The DaemonSet as the API server holds it: read, and its status
	// written with a new resourceVersion, without the fake's object
	// tracker (its cost is not the controller's).
	var stored atomic.Pointer[appsv1.DaemonSet]
	stored.Store(ds)
	fc.PrependReactor("get", "daemonsets", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, stored.Load().DeepCopy(), nil
	})
	fc.PrependReactor("update", "daemonsets", func(a k8stesting.Action) (bool, runtime.Object, error) {
		up := a.(k8stesting.UpdateAction).GetObject().(*appsv1.DaemonSet).DeepCopy()
		up.ResourceVersion = strconv.FormatInt(seq.Add(1), 10)
		stored.Store(up)
		return true, up.DeepCopy(), nil
	})
	last := ds
	c.OnSync = func(_ kubesync.State, res apply.Result) {
		if res.DaemonSet != nil {
			h.daemonSets.UpdateFunc(last, res.DaemonSet)
			last = res.DaemonSet
		}
	}
	h.daemonSets.AddFunc(ds)
	// The first sync, on no node, creates the revision; then every node
	// comes with a Ready pod of it, and a sync writes the status.
	if _, err := c.sync(context.Background(), "ns/agent"); err != nil {
		b.Fatal(err)
	}
	c.view.mu.Lock()
	var hash string
	for _, cr := range c.view.revisions {
		hash = cr.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]
	}
	c.view.mu.Unlock()
	yes := true
	for i := range nodes {
		name := fmt.Sprintf("node-%05d", i)
		h.nodes.AddFunc(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, UID: "uid", ResourceVersion: "1",
			Labels: map[string]string{"kubernetes.io/hostname": name}}})
		h.pods.AddFunc(&corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "agent-" + name, UID: types.UID("uid-" + name), ResourceVersion: "1",
				Labels:            map[string]string{"app": "agent", appsv1.DefaultDaemonSetUniqueLabelKey: hash},
				OwnerReferences:   []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "agent", UID: "ds-uid", Controller: &yes}},
				CreationTimestamp: metav1.NewTime(at.Add(-time.Hour))},
			Spec: corev1.PodSpec{NodeName: name, Containers: []corev1.Container{{Name: "agent", Image: "agent:v1"}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning,
				Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(at.Add(-time.Hour))}}},
		})
	}
	for range 2 {
		if _, err := c.sync(context.Background(), "ns/agent"); err != nil {
			b.Fatal(err)
		}
	}
	c.view.mu.Lock()
	pods := len(c.view.pods)
	c.view.mu.Unlock()
	if pods != nodes {
		b.Fatalf("setup: %d pods on %d nodes", pods, nodes)
	}
	drain(c)
	return c, h, fc, lastPod.Load
}

func drain(c *Controller) {
	for c.queue.Len() > 0 {
		k, _ := c.queue.Get()
		c.queue.Done(k)
		c.queue.Forget(k)
	}
}

// BenchmarkSyncAfterNodeChange is the sync of one DaemonSet on 5,000
// nodes that each run its pod, after one node change: a node added (the
// sync creates its pod and writes the status), then, at the next
// iteration, that node and its pod deleted (the sync writes the status).
// Only the syncs are timed; the events are fed between them.
func BenchmarkSyncAfterNodeChange(b *testing.B) {
	c, h, fc, lastCreated := benchController(b, 5000)
	ctx := context.Background()
	extra := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-extra", UID: "uid", ResourceVersion: "1"}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		if i%2 == 0 {
			h.nodes.AddFunc(extra)
		} else {
			created := lastCreated()
			_ = fc.Tracker().Delete(corev1.SchemeGroupVersion.WithResource("pods"), "ns", created.Name)
			h.pods.DeleteFunc(created)
			h.nodes.DeleteFunc(extra)
		}
		drain(c)
		b.StartTimer()
		if _, err := c.sync(ctx, "ns/agent"); err != nil {
			b.Fatal(err)
		}
	}
}
