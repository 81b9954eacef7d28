package main

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"

	"github.com/daemonplan/daemonplan/kube/internal/fakeclient"
	"github.com/daemonplan/daemonplan/kube/load"
)

// TestCaughtUp: a sync waits until the informers have seen the
// resourceVersions of the controller's own writes, compared as integers
// as upstream's consistency store compares them.
func TestCaughtUp(t *testing.T) {
	tests := []struct {
		name, reason string
		wrote        writes
		ds, pods     string // what the informers have seen last
		want         bool
	}{
		{"no writes", "nothing written, nothing to wait for", writes{}, "5", "5", true},
		{"status behind", "the DaemonSet informer has not shown the status write", writes{daemonSet: "10"}, "9", "20", false},
		{"status seen", "the informer has seen the write itself", writes{daemonSet: "10"}, "10", "1", true},
		{"status passed", "the informer has seen later events", writes{daemonSet: "10"}, "11", "1", true},
		{"integers, not strings", "100 is after 99 although \"100\" < \"99\" as strings", writes{daemonSet: "100"}, "99", "1", false},
		{"pods behind", "a created pod not shown yet", writes{daemonSet: "10", pods: "12"}, "10", "11", false},
		{"pods seen", "both informers caught up", writes{daemonSet: "10", pods: "12"}, "10", "12", true},
		{"opaque version", "a resourceVersion that is no integer cannot be compared and holds nothing back, as upstream", writes{daemonSet: "abc"}, "9", "9", true},
		{"store without version", "an informer that reports none (AtomicFIFO off) holds nothing back", writes{daemonSet: "10"}, "", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := caughtUp(tc.wrote, tc.ds, tc.pods); got != tc.want {
				t.Errorf("caughtUp = %v, want %v (%s)", got, tc.want, tc.reason)
			}
		})
	}
}

// TestSyncWaitsForOwnWrites: after a sync wrote the status at
// resourceVersion N, a sync while the DaemonSet informer has seen only
// N-1 plans nothing and writes nothing (issue 26, defect 4: planning on
// such a copy wrote stale statuses and drew 409 Conflicts); once the
// informer has seen N it syncs. The fake tracker keeps no
// resourceVersions: a reactor numbers the status writes.
func TestSyncWaitsForOwnWrites(t *testing.T) {
	c, err := load.Read(strings.NewReader(cluster))
	if err != nil {
		t.Fatal(err)
	}
	fc := fakeclient.New(c, time.Now())
	rv := 100
	fc.PrependReactor("update", "daemonsets", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "status" {
			return false, nil, nil
		}
		in := a.(k8stesting.UpdateAction).GetObject().(*appsv1.DaemonSet)
		gvr := a.GetResource()
		obj, err := fc.Tracker().Get(gvr, "default", in.Name)
		if err != nil {
			return true, nil, err
		}
		out := obj.(*appsv1.DaemonSet).DeepCopy()
		out.Status = in.Status
		rv++
		out.ResourceVersion = strconv.Itoa(rv)
		return true, out, fc.Tracker().Update(gvr, out, "default")
	})
	var mu sync.Mutex
	seen := ""
	ctrl := &Controller{Client: fc, Namespace: "default", Now: time.Now}
	ctrl.init()
	defer ctrl.queue.ShutDown()
	ctrl.lastSeen = func(resource string) string {
		mu.Lock()
		defer mu.Unlock()
		if resource == "daemonsets" {
			return seen
		}
		return ""
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := ctrl.register(); err != nil {
		t.Fatal(err)
	}
	ctrl.factory.Start(ctx.Done())
	defer func() {
		cancel() // the informers stop, then Shutdown returns
		ctrl.factory.Shutdown()
	}()
	ctrl.factory.WaitForCacheSync(ctx.Done())
	cache.WaitForCacheSync(ctx.Done(), ctrl.fed...)

	if _, err := ctrl.sync(ctx, "default/agent"); err != nil {
		t.Fatalf("first sync: %v", err)
	}
	if got := ctrl.state("default/agent").wrote.daemonSet; got != "101" {
		t.Fatalf("the status write's resourceVersion remembered = %q, want 101", got)
	}
	writes := len(fc.Writes())
	mu.Lock()
	seen = "100"
	mu.Unlock()
	if _, err := ctrl.sync(ctx, "default/agent"); !errors.Is(err, errNotCaughtUp) {
		t.Errorf("sync on an informer behind the controller's own write: err %v, want errNotCaughtUp", err)
	}
	if len(fc.Writes()) != writes {
		t.Errorf("the held sync wrote: %v", fc.Writes()[writes:])
	}
	// Through the queue: held syncs are polled, not backed off from (the
	// rate limiter's delay doubles with each retry), and the key comes
	// back on its own.
	for range 12 {
		ctrl.queue.Add("default/agent")
		ctrl.processNext(ctx)
	}
	if n := ctrl.queue.NumRequeues("default/agent"); n != 0 {
		t.Errorf("12 held syncs left %d rate-limited retries: the next would wait %v", n, 5*time.Millisecond<<n)
	}
	back := make(chan struct{})
	go func() {
		key, _ := ctrl.queue.Get()
		ctrl.queue.Done(key)
		close(back)
	}()
	select {
	case <-back:
	case <-time.After(budget):
		t.Error("a held sync's key did not come back")
	}
	mu.Lock()
	seen = "101"
	mu.Unlock()
	if _, err := ctrl.sync(ctx, "default/agent"); err != nil {
		t.Errorf("sync once the informer caught up: %v", err)
	}
	if ctrl.state("default/agent").wrote.daemonSet == "101" {
		t.Error("the write seen is still remembered")
	}
}
