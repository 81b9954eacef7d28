// Command controller is a DaemonSet controller for one DaemonSet in about
// 115 lines of code, main.go aside: informers feed daemonplan, package
// apply writes the plan, and the loop syncs again on any change or after
// RequeueAfter. It shows what a caller owns: the clock, the failed-pod
// backoff and the expectations (writes not yet seen by the informers).
package main

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/daemonplan/daemonplan/kube/apply"
	"github.com/daemonplan/daemonplan/kube/kubesync"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/placement"
)

// Controller runs daemonplan for the DaemonSet Namespace/Name.
type Controller struct {
	Client          kubernetes.Interface
	Namespace, Name string
	Now             func() time.Time
	// Resync, if positive, is the informers' resync period: the loop then
	// also syncs that often with nothing changed.
	Resync time.Duration
	// OnSync, if set, is called after each applied sync with the state it
	// synced from and the apply result.
	OnSync func(kubesync.State, apply.Result)

	factory informers.SharedInformerFactory
	changed chan struct{}
	backoff placement.Backoff
	expect  apply.Expectations // writes the informers have not shown yet
}

// Run syncs until ctx is done.
func (c *Controller) Run(ctx context.Context) error {
	c.factory = informers.NewSharedInformerFactoryWithOptions(c.Client, c.Resync, informers.WithNamespace(c.Namespace))
	c.changed = make(chan struct{}, 1)
	poke := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { c.poke() },
		UpdateFunc: func(any, any) { c.poke() },
		DeleteFunc: func(any) { c.poke() },
	}
	pods := c.factory.Core().V1().Pods().Informer()
	for _, inf := range []cache.SharedIndexInformer{
		c.factory.Apps().V1().DaemonSets().Informer(), c.factory.Core().V1().Nodes().Informer(),
		pods, c.factory.Apps().V1().ControllerRevisions().Informer(),
	} {
		h := poke
		if inf == pods {
			h.DeleteFunc = c.forget
		}
		if _, err := inf.AddEventHandler(h); err != nil {
			return err
		}
	}
	c.factory.Start(ctx.Done())
	c.factory.WaitForCacheSync(ctx.Done())
	defer c.factory.Shutdown()
	timer := time.NewTimer(0)
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-c.changed:
		case <-timer.C:
		}
		timer.Stop()
		if requeue := c.sync(ctx); requeue > 0 {
			timer.Reset(requeue)
		}
	}
}

// forget drops the expectation of a pod the informer saw deleted (a
// create or a delete: either is seen), then pokes the loop.
func (c *Controller) forget(obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	if pod, ok := obj.(*corev1.Pod); ok {
		c.expect.Deleted(pod.Name)
	}
	c.poke()
}

func (c *Controller) poke() {
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

// sync runs one plan on the informers' view and applies it. It returns
// when to sync again with nothing changed; 0 means on the next change.
func (c *Controller) sync(ctx context.Context) time.Duration {
	cl, err := c.snapshot()
	if err != nil {
		return time.Second // DaemonSet not seen yet, or gone
	}
	now := c.Now()
	st := kubesync.State{Backoff: c.backoff, ExpectationsPending: c.expect.Pending(cl, now)}
	p, err := kubesync.Sync(cl, now, st, kubesync.Options{})
	if err != nil {
		return time.Second
	}
	res := apply.Apply(ctx, c.Client, cl, p)
	c.backoff = p.Backoff
	c.expect.Expect(res, now)
	if c.OnSync != nil {
		c.OnSync(st, res)
	}
	if res.Err() != nil || len(p.Errors) > 0 {
		return time.Second
	}
	return p.RequeueAfter
}

func (c *Controller) snapshot() (*load.Snapshot, error) {
	f := c.factory
	ds, err := f.Apps().V1().DaemonSets().Lister().DaemonSets(c.Namespace).Get(c.Name)
	if err != nil {
		return nil, err
	}
	cl := &load.Snapshot{DaemonSet: ds}
	if cl.Nodes, err = f.Core().V1().Nodes().Lister().List(labels.Everything()); err != nil {
		return nil, err
	}
	if cl.Pods, err = f.Core().V1().Pods().Lister().Pods(c.Namespace).List(labels.Everything()); err != nil {
		return nil, err
	}
	cl.Revisions, err = f.Apps().V1().ControllerRevisions().Lister().ControllerRevisions(c.Namespace).List(labels.Everything())
	return cl, err
}
