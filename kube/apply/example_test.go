package apply_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/kube/apply"
	"github.com/daemonplan/daemonplan/kube/kubesync"
	"github.com/daemonplan/daemonplan/kube/load"
)

func ExampleApply() {
	c, _ := load.Read(strings.NewReader(cluster + `
- {apiVersion: v1, kind: Node, metadata: {name: node-00}}
- {apiVersion: v1, kind: Node, metadata: {name: node-01}}
`))
	p, _ := kubesync.Sync(c, now, kubesync.State{}, kubesync.Options{})

	// Any kubernetes.Interface; the fake one leaves created pods unnamed.
	client := fake.NewClientset(c.DaemonSet, c.Pods[0], c.Nodes[0], c.Nodes[1])
	res := apply.Apply(context.Background(), client, c, p)
	for _, w := range res.Writes {
		fmt.Println(w.Action, w.Name, w.Node, w.Err)
	}
	fmt.Println(res.Err())
	// Output:
	// CreateRevision agent-766f7784bd  <nil>
	// AdoptPod orphan node-00 <nil>
	// CreatePod  node-01 <nil>
	// UpdateStatus agent  <nil>
	// <nil>
}

func ExampleExpectations() {
	c, _ := load.Read(strings.NewReader(cluster + `
- {apiVersion: v1, kind: Node, metadata: {name: node-00}}
- {apiVersion: v1, kind: Node, metadata: {name: node-01}}
`))
	var expect apply.Expectations
	st := kubesync.State{ExpectationsPending: expect.Pending(c, now)}
	p, _ := kubesync.Sync(c, now, st, kubesync.Options{})
	client := fake.NewClientset(c.DaemonSet, c.Pods[0], c.Nodes[0], c.Nodes[1])
	res := apply.Apply(context.Background(), client, c, p)
	expect.Expect(res, now)

	// The next sync, on a snapshot the informers have not updated yet: the
	// create is not seen, so the planner must not create again.
	fmt.Println(expect.Pending(c, now.Add(time.Second)))
	// Once the informers show the created pod, nothing is pending.
	c.Pods = append(c.Pods, res.Created...)
	fmt.Println(expect.Pending(c, now.Add(2*time.Second)))
	// Output:
	// true
	// false
}

func ExampleApplyObjects() {
	c, _ := load.Read(strings.NewReader(cluster + `
- {apiVersion: v1, kind: Node, metadata: {name: node-00}}
- {apiVersion: v1, kind: Node, metadata: {name: node-01}}
`))
	p, _ := kubesync.Sync(c, now, kubesync.State{}, kubesync.Options{})
	client := fake.NewClientset(c.DaemonSet, c.Pods[0], c.Nodes[0], c.Nodes[1])
	// The fake leaves created pods unnamed; the API server names them.
	client.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		pod := a.(k8stesting.CreateAction).GetObject().(*corev1.Pod)
		pod.Name = pod.GenerateName + "x1"
		return false, nil, nil
	})
	// The status computed again once the creates are issued: here from a
	// snapshot that shows the created pods, as a controller's informers
	// would by then.
	restate := func() (api.Status, bool) {
		list, _ := client.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{})
		after := *c
		after.Pods = nil
		for i := range list.Items {
			after.Pods = append(after.Pods, &list.Items[i])
		}
		q, _ := kubesync.Sync(&after, now, kubesync.State{}, kubesync.Options{})
		return q.Status, q.StatusChanged
	}
	res := apply.ApplyObjects(context.Background(), client, apply.SnapshotLookup(c), p, daemonplan.Options{}, restate)
	fmt.Println("planned:", p.Status.CurrentNumberScheduled, "scheduled; written:", res.DaemonSet.Status.CurrentNumberScheduled)
	// Output:
	// planned: 1 scheduled; written: 2
}

func ExampleExpectations_PendingFor() {
	c, _ := load.Read(strings.NewReader(cluster + `
- {apiVersion: v1, kind: Node, metadata: {name: node-00}}
- {apiVersion: v1, kind: Node, metadata: {name: node-01}}
`))
	p, _ := kubesync.Sync(c, now, kubesync.State{}, kubesync.Options{})
	client := fake.NewClientset(c.DaemonSet, c.Pods[0], c.Nodes[0], c.Nodes[1])
	client.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		pod := a.(k8stesting.CreateAction).GetObject().(*corev1.Pod)
		pod.Name = pod.GenerateName + "x1"
		return false, nil, nil
	})
	var expect apply.Expectations
	expect.Expect(apply.Apply(context.Background(), client, c, p), now)

	// A controller's informer cache, by pod name: only the expected pod
	// is looked up.
	cache := map[string]*corev1.Pod{}
	lookup := func(name string) *corev1.Pod { return cache[name] }
	fmt.Println(expect.PendingFor(lookup, now.Add(time.Second)))
	cache["agent-x1"] = &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "agent-x1", Namespace: "default"}}
	fmt.Println(expect.PendingFor(lookup, now.Add(2*time.Second)))
	// Output:
	// true
	// false
}
