package main

import (
	"maps"
	"reflect"
	"slices"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/kube/apply"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/kubesync"
	"github.com/daemonplan/daemonplan/kube/kubetrack"
	"github.com/daemonplan/daemonplan/kube/load"
)

// view is the cluster as the informers' event handlers delivered it: the
// objects, indexed, and one incremental planner per DaemonSet fed by the
// same events. A sync plans with the DaemonSet's planner, under the view's
// lock, and Apply checks the plan against the same view's objects, looked
// up by name (objects), so that neither costs the size of the cluster (the
// listers may be a few events ahead of the handlers; the view is what the
// planners were fed).
type view struct {
	mu         sync.Mutex
	daemonSets map[string]*appsv1.DaemonSet          // by namespace/name
	nodes      map[string]*corev1.Node               // by name
	pods       map[string]*corev1.Pod                // by namespace/name
	revisions  map[string]*appsv1.ControllerRevision // by namespace/name
	trackers   map[string]*kubetrack.Tracker         // by DaemonSet key
	// on holds the pods by target node (spec.nodeName, or the node their
	// affinity names) and namespace/name; target is each such pod's.
	on     map[string]map[string]*corev1.Pod
	target map[string]string
}

func newView() *view {
	return &view{daemonSets: map[string]*appsv1.DaemonSet{}, nodes: map[string]*corev1.Node{},
		pods: map[string]*corev1.Pod{}, revisions: map[string]*appsv1.ControllerRevision{},
		trackers: map[string]*kubetrack.Tracker{}, on: map[string]map[string]*corev1.Pod{}, target: map[string]string{}}
}

func key(namespace, name string) string { return namespace + "/" + name }

// setDaemonSet takes an add or update of a DaemonSet; wanted reports
// whether the controller syncs it (only those get a planner).
func (v *view) setDaemonSet(ds *appsv1.DaemonSet, wanted bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	k := key(ds.Namespace, ds.Name)
	v.daemonSets[k] = ds
	if !wanted {
		return
	}
	p := v.trackers[k]
	if p == nil {
		var err error
		if p, err = kubetrack.NewTracker(ds.Namespace, ds.Name, kubesync.Options{}); err != nil {
			return // only a non-default Options fails
		}
		for _, n := range v.nodes {
			p.SetNode(n)
		}
		for _, pod := range v.pods {
			if v.concerns(pod, k) {
				p.SetPod(pod)
			}
		}
		for _, cr := range v.revisions {
			p.SetRevision(cr)
		}
		v.trackers[k] = p
	}
	p.SetDaemonSet(ds)
}

// keys returns, sorted, the keys of the DaemonSets the view plans: those
// the controller syncs.
func (v *view) keys() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return slices.Sorted(maps.Keys(v.trackers))
}

func (v *view) deleteDaemonSet(ds *appsv1.DaemonSet) {
	v.mu.Lock()
	defer v.mu.Unlock()
	k := key(ds.Namespace, ds.Name)
	delete(v.daemonSets, k)
	delete(v.trackers, k)
}

// setNode takes an add or update of a node and returns, sorted, the keys
// of the DaemonSets whose plans it may change: those whose tracker says so
// (kubetrack.Tracker.SetNode: the node's decision for the DaemonSet
// changed while it should run the pod or holds one of its pods, or the
// node came). An update that leaves the node as the planner reads it
// (convert.Node: name, labels, taints; not its conditions, heartbeats,
// images or status) feeds no tracker: each would decide the node as
// before.
func (v *view) setNode(n *corev1.Node) []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	old := v.nodes[n.Name]
	v.nodes[n.Name] = n
	if old != nil && sameNode(old, n) {
		return nil
	}
	var keys []string
	for k, p := range v.trackers {
		if p.SetNode(n) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// sameNode reports whether a and b are the same node to the planner: the
// same in everything convert.Node reads.
func sameNode(a, b *corev1.Node) bool {
	return reflect.DeepEqual(convert.Node(a), convert.Node(b))
}

// deleteNode takes the deletion of a node and returns, sorted, the keys of
// the DaemonSets whose plans it may change: those that should run on it or
// have pods there (which it leaves on a vanished node).
func (v *view) deleteNode(n *corev1.Node) []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	delete(v.nodes, n.Name)
	var keys []string
	for k, p := range v.trackers {
		if p.DeleteNode(n.Name) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// setPod takes an add or update of a pod, and feeds it to the trackers it
// concerns (concerns): a pod event costs one tracker, not one per
// DaemonSet. A tracker the pod no longer concerns (its controller
// reference changed) forgets it.
func (v *view) setPod(pod *corev1.Pod) {
	v.mu.Lock()
	defer v.mu.Unlock()
	k := key(pod.Namespace, pod.Name)
	if old := v.pods[k]; old != nil {
		v.forget(old, pod)
	}
	v.pods[k] = pod
	v.unplace(k)
	ap := convert.Pod(pod)
	if node, err := api.TargetNodeName(&ap); err == nil {
		if v.on[node] == nil {
			v.on[node] = map[string]*corev1.Pod{}
		}
		v.on[node][k] = pod
		v.target[k] = node
	}
	v.eachTracker(pod, func(_ string, p *kubetrack.Tracker) { p.SetPod(pod) })
}

// concerns reports whether the pod concerns the plan of the DaemonSet
// whose key is ds: the pod is an orphan (which the DaemonSet may adopt),
// or its controller reference names a DaemonSet of that name in its
// namespace (which, of that UID, owns it, and may release it). A plan
// reads no other pod (placement.Ownership: a pod another controller owns
// is ignored), so its tracker need not hold it.
func (v *view) concerns(pod *corev1.Pod, ds string) bool {
	owner, orphan := ownerKey(pod)
	return orphan || owner == ds
}

// ownerKey returns the key of the DaemonSet the pod's controller
// reference names ("" for another kind of controller), or orphan true
// for a pod without one.
func ownerKey(pod *corev1.Pod) (owner string, orphan bool) {
	ref := metav1.GetControllerOfNoCopy(pod)
	switch {
	case ref == nil:
		return "", true
	case ref.Kind == "DaemonSet":
		return key(pod.Namespace, ref.Name), false
	}
	return "", false
}

// eachTracker calls f with each tracker pod concerns and its DaemonSet's
// key: every one for an orphan, the one of the DaemonSet its controller
// reference names, or none.
func (v *view) eachTracker(pod *corev1.Pod, f func(string, *kubetrack.Tracker)) {
	owner, orphan := ownerKey(pod)
	if orphan {
		for k, p := range v.trackers {
			f(k, p)
		}
	} else if p := v.trackers[owner]; owner != "" && p != nil {
		f(owner, p)
	}
}

// forget takes old, the pod as the trackers hold it, out of those it
// concerns that cur (its next version, nil when deleted) does not.
func (v *view) forget(old, cur *corev1.Pod) {
	stays := func(string) bool { return false }
	if cur != nil {
		owner, orphan := ownerKey(cur)
		stays = func(k string) bool { return orphan || k == owner }
	}
	v.eachTracker(old, func(k string, p *kubetrack.Tracker) {
		if !stays(k) {
			p.DeletePod(old.Namespace, old.Name)
		}
	})
}

// unplace takes the pod k out of the index by target node.
func (v *view) unplace(k string) {
	node, ok := v.target[k]
	if !ok {
		return
	}
	delete(v.target, k)
	delete(v.on[node], k)
	if len(v.on[node]) == 0 {
		delete(v.on, node)
	}
}

func (v *view) deletePod(pod *corev1.Pod) {
	v.mu.Lock()
	defer v.mu.Unlock()
	k := key(pod.Namespace, pod.Name)
	old := v.pods[k]
	if old == nil {
		old = pod
	}
	delete(v.pods, k)
	v.unplace(k)
	v.forget(old, nil)
}

func (v *view) setRevision(cr *appsv1.ControllerRevision) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.revisions[key(cr.Namespace, cr.Name)] = cr
	for _, p := range v.trackers {
		p.SetRevision(cr)
	}
}

func (v *view) deleteRevision(cr *appsv1.ControllerRevision) {
	v.mu.Lock()
	defer v.mu.Unlock()
	delete(v.revisions, key(cr.Namespace, cr.Name))
	for _, p := range v.trackers {
		p.DeleteRevision(cr.Namespace, cr.Name)
	}
}

// snapshot is the view of the DaemonSet ns/name and its planner: it,
// every node, and the pods and revisions of its namespace. It returns a
// nil snapshot when the view holds no such DaemonSet. The caller holds
// v.mu, and plans before releasing it.
func (v *view) snapshot(ns, name string) (*load.Snapshot, *kubetrack.Tracker) {
	k := key(ns, name)
	ds, p := v.daemonSets[k], v.trackers[k]
	if ds == nil || p == nil {
		return nil, nil
	}
	s := &load.Snapshot{DaemonSet: ds, Nodes: slices.Collect(maps.Values(v.nodes))}
	for _, pod := range v.pods {
		if pod.Namespace == ns {
			s.Pods = append(s.Pods, pod)
		}
	}
	for _, cr := range v.revisions {
		if cr.Namespace == ns {
			s.Revisions = append(s.Revisions, cr)
		}
	}
	return s, p
}

// daemonSet returns the DaemonSet ns/name and its planner; nil, nil when
// the view holds no such DaemonSet or does not plan it. The caller holds
// v.mu.
func (v *view) daemonSet(ns, name string) (*appsv1.DaemonSet, *kubetrack.Tracker) {
	k := key(ns, name)
	ds, p := v.daemonSets[k], v.trackers[k]
	if ds == nil || p == nil {
		return nil, nil
	}
	return ds, p
}

// podNamed returns the look-up of the pods of namespace ns by name, for
// apply.Expectations.PendingFor. The caller holds v.mu while it is used.
func (v *view) podNamed(ns string) func(string) *corev1.Pod {
	return func(name string) *corev1.Pod { return v.pods[key(ns, name)] }
}

// objects returns the view as the objects Apply checks a plan for ds
// against: each look-up takes the view's lock, and sees the objects as the
// events have left them by then.
func (v *view) objects(ds *appsv1.DaemonSet) apply.Lookup { return viewObjects{v: v, ds: ds} }

type viewObjects struct {
	v  *view
	ds *appsv1.DaemonSet
}

func (o viewObjects) DaemonSet() *appsv1.DaemonSet { return o.ds }

func (o viewObjects) Node(name string) (*corev1.Node, bool) {
	o.v.mu.Lock()
	defer o.v.mu.Unlock()
	n := o.v.nodes[name]
	return n, n != nil
}

func (o viewObjects) Pod(name string) *corev1.Pod {
	o.v.mu.Lock()
	defer o.v.mu.Unlock()
	return o.v.pods[key(o.ds.Namespace, name)]
}

func (o viewObjects) Revision(name string) *appsv1.ControllerRevision {
	o.v.mu.Lock()
	defer o.v.mu.Unlock()
	return o.v.revisions[key(o.ds.Namespace, name)]
}

func (o viewObjects) PodsOn(node string) []*corev1.Pod {
	o.v.mu.Lock()
	defer o.v.mu.Unlock()
	var out []*corev1.Pod
	for _, pod := range o.v.on[node] {
		if pod.Namespace == o.ds.Namespace {
			out = append(out, pod)
		}
	}
	return out
}

// feed returns the event handlers that keep the view: each runs before
// the controller's own handler of the same event (then), so that the sync
// that event enqueues plans from a view that holds it. An update that
// resynced delivers feeds nothing (then still sees it: a DaemonSet's
// resync is its periodic sync).
func feed[T any](set, del func(T), then cache.ResourceEventHandlerFuncs) cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if o, ok := obj.(T); ok {
				set(o)
			}
			if then.AddFunc != nil {
				then.AddFunc(obj)
			}
		},
		UpdateFunc: func(old, cur any) {
			if o, ok := cur.(T); ok && !resynced(old, cur) {
				set(o)
			}
			if then.UpdateFunc != nil {
				then.UpdateFunc(old, cur)
			}
		},
		DeleteFunc: func(obj any) {
			if o, ok := tombstone(obj).(T); ok {
				del(o)
			}
			if then.DeleteFunc != nil {
				then.DeleteFunc(obj)
			}
		},
	}
}

// resynced reports whether an update from old to cur is an informer's
// resync (or a relist) delivering an object again unchanged: both have the
// same resourceVersion, which the API server changes with every write.
// Objects without one (a fake clientset's) are never taken as resynced.
func resynced(old, cur any) bool {
	o, ok1 := old.(metav1.Object)
	c, ok2 := cur.(metav1.Object)
	return ok1 && ok2 && c.GetResourceVersion() != "" && c.GetResourceVersion() == o.GetResourceVersion()
}
