package testbed

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// Recorder watches the pods and DaemonSets of a namespace and records, at
// every event, the pods per node with their revision hash, the most nodes
// unavailable and the most pods on one node at any moment of the current
// phase, and every status.observedGeneration the DaemonSets were seen
// with.
//
// Every moment it measures is one the API server had: a watch event moves
// the state from one resourceVersion to the next, and a list after a
// broken watch (kube-apiserver restarted, the watch expired) replaces the
// whole state at once. An informer would hand such a list over object by
// object, and the states in between (some pods already as listed, others
// still as last watched) never existed: measured, they showed a node
// unavailable that never was.
type Recorder struct {
	mu    sync.Mutex
	start time.Time
	nodes []string
	pods  map[string]*corev1.Pod
	dss   map[string]*appsv1.DaemonSet
	phase string

	// Log has one line per event.
	Log []string
	// ObservedGenerations is, per DaemonSet, the sequence of
	// status.observedGeneration values seen, repeats dropped.
	ObservedGenerations map[string][]int64
	// MaxUnavailable and MaxPodsPerNode are, per phase, the most nodes
	// without a ready pod that is not terminating and the most pods (any)
	// on one node, at any event of the phase.
	MaxUnavailable, MaxPodsPerNode map[string]int
	// DaemonSetUpdates counts the DaemonSet changes after the first seen
	// (a new resourceVersion; a relist of an unchanged DaemonSet is none).
	DaemonSetUpdates int
	// seenPods and seenDaemonSets are the newest resourceVersion each
	// watch delivered. They are kept apart because the two watches are
	// two streams: one may run ahead of the other, and a DaemonSet event
	// newer than a pod write says nothing of whether that write was seen.
	seenPods, seenDaemonSets string

	changed chan struct{}
	cancel  context.CancelFunc
}

// Record starts a Recorder for namespace; nodes are the nodes the
// DaemonSet should run on (for unavailability). It returns once both
// watches have listed.
func Record(client kubernetes.Interface, namespace string, nodes []string) (*Recorder, error) {
	r := newRecorder(nodes)
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	pods := &recordStore{apply: r.pod, replace: r.replacePods, listed: make(chan struct{})}
	dss := &recordStore{apply: r.ds, replace: r.replaceDaemonSets, listed: make(chan struct{})}
	podsLW := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return client.CoreV1().Pods(namespace).List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return client.CoreV1().Pods(namespace).Watch(ctx, o)
		},
	}
	dssLW := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return client.AppsV1().DaemonSets(namespace).List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return client.AppsV1().DaemonSets(namespace).Watch(ctx, o)
		},
	}
	go cache.NewReflector(podsLW, &corev1.Pod{}, pods, 0).RunWithContext(ctx)
	go cache.NewReflector(dssLW, &appsv1.DaemonSet{}, dss, 0).RunWithContext(ctx)
	for _, s := range []*recordStore{pods, dss} {
		select {
		case <-s.listed:
		case <-time.After(time.Minute):
			cancel()
			return nil, fmt.Errorf("the recorder's watches did not list within a minute")
		}
	}
	return r, nil
}

func newRecorder(nodes []string) *Recorder {
	return &Recorder{
		start: time.Now(), nodes: nodes, phase: "create",
		pods: map[string]*corev1.Pod{}, dss: map[string]*appsv1.DaemonSet{},
		ObservedGenerations: map[string][]int64{},
		MaxUnavailable:      map[string]int{}, MaxPodsPerNode: map[string]int{},
		changed: make(chan struct{}, 1),
		cancel:  func() {},
	}
}

// recordStore is what a reflector writes the recorder through: each watch
// event one change, each list one replacement of the whole state.
type recordStore struct {
	apply   func(kind string, obj any)
	replace func(list []any, resourceVersion string)
	once    sync.Once
	listed  chan struct{}
}

func (s *recordStore) Add(obj any) error    { s.apply("ADD", obj); return nil }
func (s *recordStore) Update(obj any) error { s.apply("UPD", obj); return nil }
func (s *recordStore) Delete(obj any) error { s.apply("DEL", obj); return nil }
func (s *recordStore) Resync() error        { return nil }
func (s *recordStore) Replace(list []any, resourceVersion string) error {
	s.replace(list, resourceVersion)
	s.once.Do(func() { close(s.listed) })
	return nil
}

// Stop stops the watches.
func (r *Recorder) Stop() { r.cancel() }

// SetNodes changes the nodes the DaemonSet should run on, for the
// unavailability of the events that follow.
func (r *Recorder) SetNodes(nodes []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.nodes = append([]string(nil), nodes...)
	r.logf("nodes %v", nodes)
}

// Phase starts a new phase of the maxima.
func (r *Recorder) Phase(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.phase = name
	r.logf("phase %s", name)
	r.measure()
}

func (r *Recorder) logf(format string, args ...any) {
	r.Log = append(r.Log, fmt.Sprintf("%8.3fs ", time.Since(r.start).Seconds())+fmt.Sprintf(format, args...))
}

func (r *Recorder) poke() {
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

func (r *Recorder) pod(kind string, o any) {
	if d, ok := o.(cache.DeletedFinalStateUnknown); ok {
		o = d.Obj
	}
	p, ok := o.(*corev1.Pod)
	if !ok {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	see(&r.seenPods, p.ResourceVersion)
	if kind == "DEL" {
		delete(r.pods, p.Name)
	} else {
		r.pods[p.Name] = p
	}
	r.logPod(kind, p)
	r.measure()
	r.poke()
}

func (r *Recorder) logPod(kind string, p *corev1.Pod) {
	if len(r.nodes) > briefAbove {
		r.logf("pod %s %s node=%q hash=%s %s", kind, p.Name, p.Spec.NodeName, p.Labels[appsv1.ControllerRevisionHashLabelKey], podState(p))
	} else {
		r.logf("pod %s %s node=%q hash=%s %s | %s", kind, p.Name, p.Spec.NodeName, p.Labels[appsv1.ControllerRevisionHashLabelKey], podState(p), r.perNode())
	}
}

// replacePods takes a list of the pods (after a broken watch) as one
// change: the pods that differ from what was last seen are logged, and
// the state is measured once, as listed.
func (r *Recorder) replacePods(list []any, resourceVersion string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.pods
	r.pods = make(map[string]*corev1.Pod, len(list))
	for _, o := range list {
		if p, ok := o.(*corev1.Pod); ok {
			r.pods[p.Name] = p
		}
	}
	see(&r.seenPods, resourceVersion)
	var changes []string
	for name, p := range r.pods {
		if was, ok := old[name]; !ok {
			changes = append(changes, "+"+name)
		} else if was.ResourceVersion != p.ResourceVersion {
			changes = append(changes, "~"+name)
		}
	}
	for name := range old {
		if _, ok := r.pods[name]; !ok {
			changes = append(changes, "-"+name)
		}
	}
	sort.Strings(changes)
	if len(r.nodes) > briefAbove {
		r.logf("pods LIST at %s: %d pods, changed %v", resourceVersion, len(r.pods), changes)
	} else {
		r.logf("pods LIST at %s: %d pods, changed %v | %s", resourceVersion, len(r.pods), changes, r.perNode())
	}
	r.measure()
	r.poke()
}

// replaceDaemonSets is replacePods for the DaemonSets.
func (r *Recorder) replaceDaemonSets(list []any, resourceVersion string) {
	r.mu.Lock()
	listed := map[string]bool{}
	var dss []*appsv1.DaemonSet
	for _, o := range list {
		if ds, ok := o.(*appsv1.DaemonSet); ok {
			listed[ds.Name] = true
			dss = append(dss, ds)
		}
	}
	var gone []*appsv1.DaemonSet
	for name, ds := range r.dss {
		if !listed[name] {
			gone = append(gone, ds)
		}
	}
	see(&r.seenDaemonSets, resourceVersion)
	r.mu.Unlock()
	sort.Slice(dss, func(i, j int) bool { return dss[i].Name < dss[j].Name })
	sort.Slice(gone, func(i, j int) bool { return gone[i].Name < gone[j].Name })
	// A DaemonSet's status is read from one object, so taking the listed
	// ones one by one measures nothing that never was.
	for _, ds := range gone {
		r.ds("DEL", ds)
	}
	for _, ds := range dss {
		r.ds("LIST", ds)
	}
}

func (r *Recorder) ds(kind string, o any) {
	if d, ok := o.(cache.DeletedFinalStateUnknown); ok {
		o = d.Obj
	}
	ds, ok := o.(*appsv1.DaemonSet)
	if !ok {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	see(&r.seenDaemonSets, ds.ResourceVersion)
	if kind == "DEL" {
		delete(r.dss, ds.Name)
	} else {
		if was, seen := r.dss[ds.Name]; seen && was.ResourceVersion != ds.ResourceVersion {
			r.DaemonSetUpdates++
		} else if seen && kind == "LIST" {
			return // listed again, unchanged
		}
		r.dss[ds.Name] = ds
		seq := r.ObservedGenerations[ds.Name]
		if og := ds.Status.ObservedGeneration; len(seq) == 0 || seq[len(seq)-1] != og {
			r.ObservedGenerations[ds.Name] = append(seq, og)
		}
	}
	s := ds.Status
	r.logf("ds %s %s gen=%d observed=%d desired=%d current=%d updated=%d ready=%d available=%d unavailable=%d misscheduled=%d",
		kind, ds.Name, ds.Generation, s.ObservedGeneration, s.DesiredNumberScheduled, s.CurrentNumberScheduled,
		s.UpdatedNumberScheduled, s.NumberReady, s.NumberAvailable, s.NumberUnavailable, s.NumberMisscheduled)
	r.poke()
}

func see(seen *string, rv string) {
	if n, err := resourceversion.CompareResourceVersion(rv, *seen); err == nil && n > 0 || *seen == "" {
		*seen = rv
	}
}

// WaitSeen waits until the recorder's watch of resource ("pods" or
// "daemonsets") has delivered the write that made resourceVersion rv, or
// timeout.
func (r *Recorder) WaitSeen(resource, rv string, timeout time.Duration) error {
	var seen *string
	switch resource {
	case "pods":
		seen = &r.seenPods
	case "daemonsets":
		seen = &r.seenDaemonSets
	default:
		return fmt.Errorf("the recorder watches pods and daemonsets, not %q", resource)
	}
	_, err := r.Wait(timeout, func(State) bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		n, err := resourceversion.CompareResourceVersion(*seen, rv)
		return err == nil && n >= 0
	})
	return err
}

// briefAbove is the most nodes for which a pod's log line shows every
// node's pods: beyond, the log would grow as the square of the nodes.
const briefAbove = 50

// podState is R (ready), r (not ready), with T when terminating.
func podState(p *corev1.Pod) string {
	s := "r"
	if isReady(p) {
		s = "R"
	}
	if p.DeletionTimestamp != nil {
		s += "T"
	}
	return s
}

// perNode is the pods per node: node:[hash/state ...], nodes sorted.
func (r *Recorder) perNode() string {
	byNode := map[string][]string{}
	for _, p := range r.pods {
		byNode[p.Spec.NodeName] = append(byNode[p.Spec.NodeName], p.Labels[appsv1.ControllerRevisionHashLabelKey]+"/"+podState(p))
	}
	nodes := make([]string, 0, len(byNode))
	for n := range byNode {
		nodes = append(nodes, n)
		sort.Strings(byNode[n])
	}
	sort.Strings(nodes)
	var b strings.Builder
	for _, n := range nodes {
		fmt.Fprintf(&b, "%s:[%s] ", n, strings.Join(byNode[n], " "))
	}
	return strings.TrimSpace(b.String())
}

func (r *Recorder) measure() {
	count := map[string]int{}
	available := map[string]bool{}
	for _, p := range r.pods {
		count[p.Spec.NodeName]++
		if p.DeletionTimestamp == nil && isReady(p) {
			available[p.Spec.NodeName] = true
		}
	}
	unavailable := 0
	for _, n := range r.nodes {
		if !available[n] {
			unavailable++
		}
		r.MaxPodsPerNode[r.phase] = max(r.MaxPodsPerNode[r.phase], count[n])
	}
	r.MaxUnavailable[r.phase] = max(r.MaxUnavailable[r.phase], unavailable)
}

// State is what the recorder last saw.
type State struct {
	Pods       []*corev1.Pod
	DaemonSets map[string]*appsv1.DaemonSet
}

func (r *Recorder) state() State {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := State{DaemonSets: map[string]*appsv1.DaemonSet{}}
	for _, p := range r.pods {
		s.Pods = append(s.Pods, p)
	}
	for n, d := range r.dss {
		s.DaemonSets[n] = d
	}
	return s
}

// Wait waits until done holds for the recorded state, or timeout; it
// returns how long it waited.
func (r *Recorder) Wait(timeout time.Duration, done func(State) bool) (time.Duration, error) {
	start := time.Now()
	deadline := time.After(timeout)
	for {
		if done(r.state()) {
			return time.Since(start), nil
		}
		select {
		case <-r.changed:
		case <-time.After(time.Second):
		case <-deadline:
			return time.Since(start), fmt.Errorf("not done after %v", timeout)
		}
	}
}

func isReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
