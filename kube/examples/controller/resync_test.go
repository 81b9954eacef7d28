package main

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
)

// TestResyncFeedsNothing: an update an informer delivers again unchanged
// (the same resourceVersion: a resync or a relist) feeds the view nothing
// and enqueues no DaemonSet for a node or a pod; a DaemonSet's is its
// periodic sync and enqueues it. Each object below is delivered again
// with a change it could not have at that resourceVersion, so a feed
// would show. An update with a new resourceVersion is fed.
func TestResyncFeedsNothing(t *testing.T) {
	ctrl := true
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "agent", UID: "ds-uid", ResourceVersion: "10"},
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "agent"}},
				Spec: corev1.PodSpec{NodeSelector: map[string]string{"role": "x"}, Containers: []corev1.Container{{Name: "agent", Image: "agent:v1"}}}}}}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1", ResourceVersion: "11", Labels: map[string]string{"role": "x"}}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "agent-1", ResourceVersion: "12", Labels: map[string]string{"app": "agent"},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "agent", UID: "ds-uid", Controller: &ctrl}}},
		Spec: corev1.PodSpec{NodeName: "node-1"}}
	changed := func(rv string) (*appsv1.DaemonSet, *corev1.Node, *corev1.Pod) {
		d, n, p := ds.DeepCopy(), node.DeepCopy(), pod.DeepCopy()
		d.Spec.Template.Spec.NodeSelector["role"] = "y"
		n.Labels["role"] = "y" // the DaemonSet's decision for the node flips
		p.Spec.NodeName = "node-2"
		if rv != "" {
			d.ResourceVersion, n.ResourceVersion, p.ResourceVersion = rv, rv, rv
		}
		return d, n, p
	}
	for _, c := range []struct {
		name string
		rv   string // of the update; "" keeps each object's own
		fed  bool
	}{
		{"delivered again: nothing fed", "", false},
		{"a new resourceVersion: fed", "20", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctl := &Controller{Client: fake.NewClientset(), Namespace: "ns"}
			ctl.init()
			defer ctl.queue.ShutDown()
			h := ctl.handlers()
			h.daemonSets.AddFunc(ds)
			h.nodes.AddFunc(node)
			h.pods.AddFunc(pod)
			drain(ctl)
			d, n, p := changed(c.rv)

			h.nodes.UpdateFunc(node, n)
			h.pods.UpdateFunc(pod, p)
			if got, want := ctl.queue.Len() > 0, c.fed; got != want {
				t.Errorf("node and pod updates enqueued the DaemonSet: %v, want %v", got, want)
			}
			h.daemonSets.UpdateFunc(ds, d)
			if ctl.queue.Len() != 1 {
				t.Errorf("the DaemonSet's update left %d keys queued, want 1 (a resync is its periodic sync)", ctl.queue.Len())
			}
			ctl.view.mu.Lock()
			defer ctl.view.mu.Unlock()
			for what, fed := range map[string]bool{
				"DaemonSet": ctl.view.daemonSets["ns/agent"] == d,
				"node":      ctl.view.nodes["node-1"] == n,
				"pod":       ctl.view.pods["ns/agent-1"] == p,
			} {
				if fed != c.fed {
					t.Errorf("%s fed to the view: %v, want %v", what, fed, c.fed)
				}
			}
		})
	}
}

// TestOnlyDaemonSetsResync: with a resync period, the DaemonSet informer
// delivers every DaemonSet again each period; the pod and node informers
// deliver nothing again (at 5,000 nodes a resync of theirs would re-deliver
// some 18,000 objects a period, each an event to handle for nothing).
func TestOnlyDaemonSetsResync(t *testing.T) {
	client := fake.NewClientset(
		&appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "agent"}},
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "agent-1"}})
	ctl := &Controller{Client: client, Namespace: "ns", Resync: time.Second}
	ctl.init()
	defer ctl.queue.ShutDown()
	var dsUpdates, podUpdates, nodeUpdates atomic.Int32
	count := func(n *atomic.Int32) cache.ResourceEventHandlerFuncs {
		return cache.ResourceEventHandlerFuncs{UpdateFunc: func(_, _ any) { n.Add(1) }}
	}
	f := ctl.factory
	for inf, n := range map[cache.SharedIndexInformer]*atomic.Int32{
		f.Apps().V1().DaemonSets().Informer(): &dsUpdates,
		f.Core().V1().Pods().Informer():       &podUpdates,
		f.Core().V1().Nodes().Informer():      &nodeUpdates,
	} {
		if _, err := inf.AddEventHandler(count(n)); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.Start(ctx.Done())
	defer func() {
		cancel()
		f.Shutdown()
	}()
	f.WaitForCacheSync(ctx.Done())
	// The DaemonSet resyncs every second (client-go's least period);
	// 10 s without two resyncs would be a failure of the resync, not
	// a slow machine.
	deadline := time.Now().Add(10 * time.Second)
	for dsUpdates.Load() < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if dsUpdates.Load() < 2 {
		t.Errorf("the DaemonSet was delivered again %d times in 10 s with a 1 s resync, want 2 or more", dsUpdates.Load())
	}
	if p, n := podUpdates.Load(), nodeUpdates.Load(); p != 0 || n != 0 {
		t.Errorf("pods delivered again %d times, nodes %d; want none", p, n)
	}
}
