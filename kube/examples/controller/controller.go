// Command controller is a DaemonSet controller built on daemonplan:
// informers' event handlers feed one incremental planner per DaemonSet
// (package kubetrack), whose plan each sync takes: a sync re-plans what
// the events since the last one changed, not the whole cluster. Package
// apply writes the plan and records
// upstream's Events, and one work queue keyed by DaemonSet syncs each
// DaemonSet again on any change that concerns it (a node event only those
// whose decision for the node may change, docs/incremental.md, I17), after
// RequeueAfter, and when a pod turns Ready under minReadySeconds. A sync
// costs its writes, not the cluster (I18). It shows what a caller owns: the clock,
// the failed-pod backoff, the expectations (writes not yet seen by the
// informers) and the wait for the informers to show its own writes.
package main

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/kube/apply"
	"github.com/daemonplan/daemonplan/kube/kubesync"
	"github.com/daemonplan/daemonplan/placement"
)

// Controller runs daemonplan for every DaemonSet of Namespace (of every
// namespace when Namespace is empty), or only for Namespace/Name when Name
// is set.
type Controller struct {
	Client          kubernetes.Interface
	Namespace, Name string
	Now             func() time.Time
	// Resync, if positive, is the DaemonSet informer's resync period:
	// every DaemonSet is then also synced that often with nothing
	// changed. The pods, nodes and revisions are not delivered again (a
	// resync of them would re-deliver every object of the cluster each
	// period, and feed nothing new: resynced).
	Resync time.Duration
	// Workers is how many DaemonSets sync at once; 0 means 2, as
	// kube-controller-manager's --concurrent-daemonset-syncs.
	Workers int
	// Recorder records the Events; nil means to the API server, as
	// upstream's controller does (component apply.EventSource).
	Recorder record.EventRecorder
	// OnSync, if set, is called after each applied sync with the state it
	// synced from and the apply result.
	OnSync func(kubesync.State, apply.Result)

	factory informers.SharedInformerFactory
	queue   workqueue.TypedRateLimitingInterface[string]
	// lastSeen returns the resourceVersion the informer store of resource
	// ("daemonsets" or "pods") has seen last; a test may replace it.
	lastSeen func(resource string) string

	mu   sync.Mutex
	sets map[string]*daemonSetState // by namespace/name

	// view holds the objects and trackers the event handlers feed.
	view *view
	// fed reports whether each event handler has seen its informer's
	// initial list.
	fed []cache.InformerSynced
	// phase is where Run is (phaseStopped, ...), for the health check.
	phase atomic.Int32
}

// daemonSetState is what the controller carries for one DaemonSet from
// one sync to the next. A worker syncs one key at a time, so only
// expect and losses are shared with the event handlers (each has its own
// lock).
type daemonSetState struct {
	uid     types.UID
	backoff placement.Backoff
	expect  apply.Expectations
	losses  losses
	wrote   writes
}

// writes holds the resourceVersions of the controller's own latest writes
// of one DaemonSet: its status, and the pods it created.
type writes struct{ daemonSet, pods string }

// Run syncs until ctx is done.
func (c *Controller) Run(ctx context.Context) error {
	if c.Recorder == nil {
		b := record.NewBroadcaster(record.WithContext(ctx))
		b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: c.Client.CoreV1().Events("")})
		defer b.Shutdown()
		c.Recorder = b.NewRecorder(scheme.Scheme, corev1.EventSource{Component: apply.EventSource})
	}
	c.init()
	defer c.queue.ShutDown()
	c.phase.Store(phaseSyncing)
	defer c.phase.Store(phaseStopped)
	f := c.factory
	dsInf, podInf := f.Apps().V1().DaemonSets().Informer(), f.Core().V1().Pods().Informer()
	if err := c.register(); err != nil {
		return err
	}
	if c.lastSeen == nil {
		c.lastSeen = func(resource string) string {
			if resource == "pods" {
				return podInf.GetStore().LastStoreSyncResourceVersion()
			}
			return dsInf.GetStore().LastStoreSyncResourceVersion()
		}
	}
	f.Start(ctx.Done())
	defer f.Shutdown()
	f.WaitForCacheSync(ctx.Done())
	cache.WaitForCacheSync(ctx.Done(), c.fed...)
	c.phase.Store(phaseRunning)
	workers := c.Workers
	if workers <= 0 {
		workers = 2
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for c.processNext(ctx) {
			}
		})
	}
	<-ctx.Done()
	c.queue.ShutDown()
	wg.Wait()
	return nil
}

func (c *Controller) init() {
	c.factory = informers.NewSharedInformerFactoryWithOptions(c.Client, 0, informers.WithNamespace(c.Namespace),
		informers.WithTransform(trim), informers.WithCustomResyncConfig(map[metav1.Object]time.Duration{&appsv1.DaemonSet{}: c.Resync}))
	c.queue = workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "daemonset"})
	c.sets = map[string]*daemonSetState{}
	c.view = newView()
}

// register adds the event handlers to the informers (handlers).
func (c *Controller) register() error {
	f := c.factory
	h := c.handlers()
	handlers := []struct {
		inf cache.SharedIndexInformer
		h   cache.ResourceEventHandlerFuncs
	}{
		{f.Apps().V1().DaemonSets().Informer(), h.daemonSets},
		{f.Core().V1().Pods().Informer(), h.pods},
		{f.Apps().V1().ControllerRevisions().Informer(), h.revisions},
		{f.Core().V1().Nodes().Informer(), h.nodes},
	}
	for _, h := range handlers {
		reg, err := h.inf.AddEventHandler(h.h)
		if err != nil {
			return err
		}
		c.fed = append(c.fed, reg.HasSynced)
	}
	return nil
}

// eventHandlers are the event handlers of the informers, by resource.
type eventHandlers struct {
	daemonSets, pods, revisions, nodes cache.ResourceEventHandlerFuncs
}

// handlers returns the event handlers: each event first feeds the view
// (and so the trackers), then enqueues the DaemonSets it concerns.
func (c *Controller) handlers() eventHandlers {
	v := c.view
	setDS := func(ds *appsv1.DaemonSet) { v.setDaemonSet(ds, c.wanted(ds.Namespace, ds.Name)) }
	return eventHandlers{
		daemonSets: feed(setDS, v.deleteDaemonSet,
			cache.ResourceEventHandlerFuncs{AddFunc: c.enqueueObj, UpdateFunc: func(_, cur any) { c.enqueueObj(cur) }, DeleteFunc: c.onDaemonSetDelete}),
		pods: feed(v.setPod, v.deletePod,
			cache.ResourceEventHandlerFuncs{AddFunc: c.enqueueOwner, UpdateFunc: c.onPodUpdate, DeleteFunc: c.onPodDelete}),
		revisions: feed(v.setRevision, v.deleteRevision,
			cache.ResourceEventHandlerFuncs{AddFunc: c.enqueueOwner, UpdateFunc: func(_, cur any) { c.enqueueOwner(cur) }, DeleteFunc: c.enqueueOwner}),
		nodes: c.nodeHandlers(),
	}
}

// processNext syncs one key off the queue; false when the queue is shut
// down. A failed sync is retried with the queue's rate limit, as
// upstream's.
func (c *Controller) processNext(ctx context.Context) bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(key)
	start := time.Now()
	requeue, err := c.sync(ctx, key)
	if errors.Is(err, errNotCaughtUp) {
		// Not a failure to back off from: the informer event of the
		// awaited write enqueues the key again (a pod created, the
		// status written), and a short poll backs that up. Upstream
		// retries with the rate limiter instead, whose delay doubles
		// with each retry: informers a few seconds behind at 5,000
		// nodes left rollouts idle for up to as long again.
		observeSync(start, caughtUpPoll, nil)
		c.queue.Forget(key)
		c.queue.AddAfter(key, caughtUpPoll)
		return true
	}
	observeSync(start, requeue, err)
	if err != nil {
		c.queue.AddRateLimited(key)
		return true
	}
	c.queue.Forget(key)
	if requeue > 0 {
		c.queue.AddAfter(key, requeue)
	}
	return true
}

// errNotCaughtUp holds a sync until the informers show the controller's
// own last writes (upstream: StaleControllerConsistency).
var errNotCaughtUp = errors.New("the informers have not shown the controller's last writes yet")

// caughtUpPoll is how soon a sync held by errNotCaughtUp runs again if no
// informer event enqueues it first: the check costs two string compares.
const caughtUpPoll = 250 * time.Millisecond

// sync runs one plan for the DaemonSet key on the informers' view and
// applies it. It returns when to sync again with nothing changed (0: on
// the next change) and an error for a retry with the rate limit.
func (c *Controller) sync(ctx context.Context, key string) (time.Duration, error) {
	st := c.state(key)
	if !caughtUp(st.wrote, c.lastSeen("daemonsets"), c.lastSeen("pods")) {
		return 0, errNotCaughtUp
	}
	st.wrote = writes{}
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return 0, nil
	}
	// The plan and the expectations come from the view under one lock;
	// both look up only what changed or is expected (kubetrack,
	// apply.Expectations.PendingFor), not every object.
	c.view.mu.Lock()
	ds, planner := c.view.daemonSet(ns, name)
	if ds == nil {
		c.view.mu.Unlock()
		c.drop(key, "")
		return 0, nil
	}
	if st.uid != ds.UID { // a new DaemonSet of that name
		c.drop(key, "")
		st = c.state(key)
		st.uid = ds.UID
	}
	now := c.Now()
	in := kubesync.State{Backoff: st.backoff, ExpectationsPending: st.expect.PendingFor(c.view.podNamed(ns), now)}
	p, err := planner.Plan(now, in)
	c.view.mu.Unlock()
	if err != nil {
		return 0, err
	}
	// Nothing changes owner, and no pod is created after a loss, for a
	// DaemonSet the API server no longer has (gone, needsRead); after any
	// write that failed, nothing is retried for it.
	lost := len(p.Create) > 0 && st.losses.take()
	if needsRead(p, lost) {
		if gone, err := c.gone(ctx, ds); err != nil || gone {
			if gone {
				c.drop(key, ds.UID)
			} else if lost {
				st.losses.keep()
			}
			return 0, err
		}
	}
	st.losses.willDelete(p, now)
	// The status is computed again once the creates and deletes are
	// issued, from the view as the informers have updated it by then, as
	// upstream's sync counts its pods for the status after its writes
	// (updateDaemonSetStatus after manage): a status that already shows
	// what the writes did is not written again by the next sync.
	restatedRequeue := time.Duration(0)
	restate := func() (api.Status, bool) {
		c.view.mu.Lock()
		defer c.view.mu.Unlock()
		if c.view.daemonSets[key] != ds || c.view.trackers[key] != planner {
			// The DaemonSet changed since the plan: its status is the
			// next sync's.
			return p.Status, p.StatusChanged
		}
		q, err := planner.Plan(now, in)
		if err != nil {
			return p.Status, p.StatusChanged
		}
		restatedRequeue = q.RequeueAfter
		return q.Status, q.StatusChanged
	}
	res := apply.ApplyObjects(ctx, c.Client, c.view.objects(ds), p, daemonplan.Options{}, restate)
	apply.RecordEvents(c.Recorder, ds, p, res)
	st.losses.settle(p, res)
	st.backoff = p.Backoff
	st.expect.Expect(res, now)
	st.wrote.add(res)
	if c.OnSync != nil {
		c.OnSync(in, res)
	}
	if err := errors.Join(res.Err(), errors.Join(p.Errors...)); err != nil {
		if gone, _ := c.gone(ctx, ds); gone {
			c.drop(key, ds.UID)
			return 0, nil
		}
		return 0, err
	}
	if restatedRequeue > 0 && (p.RequeueAfter <= 0 || restatedRequeue < p.RequeueAfter) {
		return restatedRequeue, nil
	}
	return p.RequeueAfter, nil
}

// add records the resourceVersions of res's writes: upstream records its
// status write and the pods it creates.
func (w *writes) add(res apply.Result) {
	if res.DaemonSet != nil {
		w.daemonSet = newer(w.daemonSet, res.DaemonSet.ResourceVersion)
	}
	for _, pod := range res.Created {
		w.pods = newer(w.pods, pod.ResourceVersion)
	}
}

// newer returns the newer of two resourceVersions, b when they do not
// compare.
func newer(a, b string) string {
	if n, err := resourceversion.CompareResourceVersion(a, b); err == nil && n > 0 {
		return a
	}
	return b
}

// caughtUp reports whether the informers, which have seen the
// resourceVersions dsSeen and podsSeen last, show the writes w, as
// upstream's consistency store decides: resourceVersions compare as
// etcd's, integers (resourceversion.CompareResourceVersion); one that is
// empty or not an integer (another storage's opaque string, a fake
// clientset's empty one, informers without AtomicFIFO) holds nothing
// back.
func caughtUp(w writes, dsSeen, podsSeen string) bool {
	behind := func(wrote, seen string) bool {
		n, err := resourceversion.CompareResourceVersion(wrote, seen)
		return err == nil && n > 0
	}
	return !behind(w.daemonSet, dsSeen) && !behind(w.pods, podsSeen)
}

// state returns the state of the DaemonSet key, new if none.
func (c *Controller) state(key string) *daemonSetState {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.sets[key]
	if st == nil {
		st = &daemonSetState{}
		c.sets[key] = st
	}
	return st
}

// drop forgets the state of the DaemonSet key, if it is the DaemonSet uid
// (any, when uid is empty).
func (c *Controller) drop(key string, uid types.UID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st := c.sets[key]; st != nil && (uid == "" || st.uid == uid) {
		delete(c.sets, key)
	}
}

// wanted reports whether the controller syncs the DaemonSet ns/name.
func (c *Controller) wanted(ns, name string) bool {
	return (c.Namespace == "" || ns == c.Namespace) && (c.Name == "" || name == c.Name)
}

func (c *Controller) enqueue(ns, name string) {
	if c.wanted(ns, name) {
		c.queue.Add(ns + "/" + name)
	}
}

func (c *Controller) enqueueObj(obj any) {
	if ds, ok := tombstone(obj).(*appsv1.DaemonSet); ok {
		c.enqueue(ds.Namespace, ds.Name)
	}
}

func (c *Controller) onDaemonSetDelete(obj any) {
	if ds, ok := tombstone(obj).(*appsv1.DaemonSet); ok {
		c.drop(ds.Namespace+"/"+ds.Name, ds.UID)
		c.enqueue(ds.Namespace, ds.Name)
	}
}

// nodeHandlers feed the view each node event and enqueue only the
// DaemonSets whose plans it may change (view.setNode, view.deleteNode),
// not every DaemonSet: a heartbeat or a condition update enqueues none.
func (c *Controller) nodeHandlers() cache.ResourceEventHandlerFuncs {
	set := func(obj any) {
		if n, ok := obj.(*corev1.Node); ok {
			c.enqueueKeys(c.view.setNode(n))
		}
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc: set,
		UpdateFunc: func(old, cur any) {
			if !resynced(old, cur) {
				set(cur)
			}
		},
		DeleteFunc: func(obj any) {
			if n, ok := tombstone(obj).(*corev1.Node); ok {
				c.enqueueKeys(c.view.deleteNode(n))
			}
		},
	}
}

// enqueueKeys enqueues the DaemonSets of keys (namespace/name).
func (c *Controller) enqueueKeys(keys []string) {
	for _, k := range keys {
		c.queue.Add(k)
	}
}

// enqueueAll enqueues every DaemonSet the controller syncs (those the
// view has a tracker for): for an orphan pod or revision some DaemonSet
// may adopt.
func (c *Controller) enqueueAll() {
	c.enqueueKeys(c.view.keys())
}

// enqueueOwner enqueues the DaemonSet that controls obj, a pod or
// revision, or every DaemonSet for an orphan.
func (c *Controller) enqueueOwner(obj any) {
	m, ok := tombstone(obj).(metav1.Object)
	if !ok {
		return
	}
	ref := metav1.GetControllerOfNoCopy(m)
	switch {
	case ref == nil:
		c.enqueueAll()
	case ref.Kind == "DaemonSet":
		c.enqueue(m.GetNamespace(), ref.Name)
	}
}

// onPodUpdate enqueues the pod's DaemonSet (its old one too, if the
// controller reference changed), and again after minReadySeconds + 1 s
// when the pod turned Ready, as upstream's pod update handler does: a
// surge pod that becomes available is seen by no other event.
func (c *Controller) onPodUpdate(old, cur any) {
	oldPod, ok1 := old.(*corev1.Pod)
	curPod, ok2 := cur.(*corev1.Pod)
	if !ok1 || !ok2 || resynced(oldPod, curPod) {
		return // a resync: the DaemonSets' own resync syncs them
	}
	// The old owner too, when the controller reference changed; for a pod
	// that was an orphan, every DaemonSet, as the orphan's own events
	// enqueued them: one of them may have planned to adopt it.
	if oldRef, curRef := metav1.GetControllerOfNoCopy(oldPod), metav1.GetControllerOfNoCopy(curPod); (oldRef == nil) != (curRef == nil) || oldRef != nil && oldRef.UID != curRef.UID {
		c.enqueueOwner(oldPod)
	}
	c.enqueueOwner(curPod)
	ref := metav1.GetControllerOfNoCopy(curPod)
	if ref == nil || ref.Kind != "DaemonSet" || !c.wanted(curPod.Namespace, ref.Name) {
		return
	}
	if curPod.DeletionTimestamp != nil && oldPod.DeletionTimestamp == nil {
		c.podGone(curPod, ref, false)
	}
	ds, err := c.factory.Apps().V1().DaemonSets().Lister().DaemonSets(curPod.Namespace).Get(ref.Name)
	if err != nil || ds.UID != ref.UID {
		return
	}
	if d := readyRequeue(oldPod, curPod, ds); d > 0 {
		// Not queue.AddAfter: the delaying queue keeps only the earliest
		// of two pending AddAfter of one key, so a sync already due
		// sooner (the status requeue) would swallow this one and run
		// before the pod is available; nothing would sync after that.
		// A timer of its own always adds the key (after ShutDown, Add
		// does nothing).
		key := curPod.Namespace + "/" + ref.Name
		time.AfterFunc(d, func() { c.queue.Add(key) })
	}
}

// readyRequeue is how long after an update of a pod of ds from old to cur
// the DaemonSet is synced again, 0 for not: minReadySeconds + 1 s when the
// pod turned Ready and ds has minReadySeconds (upstream's updatePod; the
// second absorbs the queue's timer skew). A pod being deleted turns
// nothing Ready.
func readyRequeue(old, cur *corev1.Pod, ds *appsv1.DaemonSet) time.Duration {
	if ds.Spec.MinReadySeconds <= 0 || cur.DeletionTimestamp != nil || isReady(old) || !isReady(cur) {
		return 0
	}
	return time.Duration(ds.Spec.MinReadySeconds)*time.Second + time.Second
}

func isReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// onPodDelete forgets the expectation of a pod the informer saw deleted
// (a create or a delete: either is seen) and records whether the
// controller deleted it (losses), then enqueues its DaemonSet.
func (c *Controller) onPodDelete(obj any) {
	pod, ok := tombstone(obj).(*corev1.Pod)
	if !ok {
		return
	}
	if ref := metav1.GetControllerOfNoCopy(pod); ref != nil && ref.Kind == "DaemonSet" {
		c.podGone(pod, ref, true)
	}
	c.enqueueOwner(pod)
}

// podGone records, for the state of the DaemonSet ref, that pod is being
// deleted (final false) or deleted (final true).
func (c *Controller) podGone(pod *corev1.Pod, ref *metav1.OwnerReference, final bool) {
	c.mu.Lock()
	st := c.sets[key(pod.Namespace, ref.Name)]
	c.mu.Unlock()
	if st == nil {
		return
	}
	if final {
		st.expect.Deleted(pod.Name)
	}
	st.losses.gone(pod.Name, final)
}

// tombstone returns the object a DeletedFinalStateUnknown holds, or obj.
func tombstone(obj any) any {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		return d.Obj
	}
	return obj
}
