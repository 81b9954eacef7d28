// Command controller is a DaemonSet controller for one DaemonSet in about a
// hundred lines: informers feed daemonplan, package apply writes the plan,
// and the loop syncs again on any change or after RequeueAfter. It shows
// what a caller owns: the clock, the failed-pod backoff and the
// expectations (writes not yet seen by the informers).
package main

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/daemonplan/daemonplan/kube/apply"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/kube/planner"
	"github.com/daemonplan/daemonplan/placement"
)

// Controller runs daemonplan for the DaemonSet Namespace/Name.
type Controller struct {
	Client          kubernetes.Interface
	Namespace, Name string
	Now             func() time.Time
	// OnSync, if set, is called after each sync with its plan and result.
	OnSync func(planner.Options, apply.Result)

	factory informers.SharedInformerFactory
	changed chan struct{}
	backoff placement.Backoff
	created map[string]bool // pods created, not yet seen
	deleted map[string]bool // pods deleted, still seen
}

// Run syncs until ctx is done.
func (c *Controller) Run(ctx context.Context) error {
	c.factory = informers.NewSharedInformerFactoryWithOptions(c.Client, 0, informers.WithNamespace(c.Namespace))
	c.changed = make(chan struct{}, 1)
	c.created, c.deleted = map[string]bool{}, map[string]bool{}
	poke := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { c.poke() },
		UpdateFunc: func(any, any) { c.poke() },
		DeleteFunc: func(any) { c.poke() },
	}
	for _, inf := range []cache.SharedIndexInformer{
		c.factory.Apps().V1().DaemonSets().Informer(), c.factory.Core().V1().Nodes().Informer(),
		c.factory.Core().V1().Pods().Informer(), c.factory.Apps().V1().ControllerRevisions().Informer(),
	} {
		if _, err := inf.AddEventHandler(poke); err != nil {
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
		if requeue := c.sync(ctx); requeue > 0 {
			timer.Reset(requeue)
		}
	}
}

func (c *Controller) poke() {
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

// sync runs one plan on the informers' view and applies it.
func (c *Controller) sync(ctx context.Context) time.Duration {
	cl, err := c.snapshot()
	if err != nil {
		return time.Second // DaemonSet not seen yet, or gone
	}
	opts := planner.Options{Backoff: c.backoff, ExpectationsPending: c.pending(cl)}
	p, err := planner.Plan(cl, c.Now(), opts)
	if err != nil {
		return time.Second
	}
	res := apply.Apply(ctx, c.Client, cl, p)
	c.backoff = p.Backoff
	for _, pod := range res.Created {
		c.created[pod.Name] = true
	}
	for _, w := range res.Writes {
		if w.Action == apply.DeletePod && w.Err == nil {
			c.deleted[w.Name] = true
		}
	}
	if c.OnSync != nil {
		c.OnSync(opts, res)
	}
	if res.Err() != nil || len(p.Errors) > 0 {
		return time.Second
	}
	return p.RequeueAfter
}

// pending reports writes the informers have not seen yet, and forgets
// those they have.
func (c *Controller) pending(cl *load.Cluster) bool {
	seen := map[string]bool{}
	for _, p := range cl.Pods {
		seen[p.Name] = true
	}
	for name := range c.created {
		if seen[name] {
			delete(c.created, name)
		}
	}
	for name := range c.deleted {
		if !seen[name] {
			delete(c.deleted, name)
		}
	}
	return len(c.created)+len(c.deleted) > 0
}

func (c *Controller) snapshot() (*load.Cluster, error) {
	f := c.factory
	ds, err := f.Apps().V1().DaemonSets().Lister().DaemonSets(c.Namespace).Get(c.Name)
	if err != nil {
		return nil, err
	}
	cl := &load.Cluster{DaemonSet: ds}
	if cl.Nodes, err = f.Core().V1().Nodes().Lister().List(labels.Everything()); err != nil {
		return nil, err
	}
	if cl.Pods, err = f.Core().V1().Pods().Lister().Pods(c.Namespace).List(labels.Everything()); err != nil {
		return nil, err
	}
	cl.Revisions, err = f.Apps().V1().ControllerRevisions().Lister().ControllerRevisions(c.Namespace).List(labels.Everything())
	return cl, err
}
