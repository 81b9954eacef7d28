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
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// Recorder watches the pods and DaemonSets of a namespace and records, at
// every event, the pods per node with their revision hash, the most nodes
// unavailable and the most pods on one node at any moment of the current
// phase, and every status.observedGeneration the DaemonSets were seen
// with.
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
	// DaemonSetUpdates counts the DaemonSet events after the first.
	DaemonSetUpdates int
	// seen is the newest resourceVersion of any event.
	seen string

	changed chan struct{}
	cancel  context.CancelFunc
}

// Record starts a Recorder for namespace; nodes are the nodes the
// DaemonSet should run on (for unavailability).
func Record(client kubernetes.Interface, namespace string, nodes []string) (*Recorder, error) {
	r := &Recorder{
		start: time.Now(), nodes: nodes, phase: "create",
		pods: map[string]*corev1.Pod{}, dss: map[string]*appsv1.DaemonSet{},
		ObservedGenerations: map[string][]int64{},
		MaxUnavailable:      map[string]int{}, MaxPodsPerNode: map[string]int{},
		changed: make(chan struct{}, 1),
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	f := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(namespace))
	podInf, dsInf := f.Core().V1().Pods().Informer(), f.Apps().V1().DaemonSets().Informer()
	if _, err := podInf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { r.pod("ADD", o) },
		UpdateFunc: func(_, o any) { r.pod("UPD", o) },
		DeleteFunc: func(o any) { r.pod("DEL", o) },
	}); err != nil {
		cancel()
		return nil, err
	}
	if _, err := dsInf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { r.ds("ADD", o) },
		UpdateFunc: func(_, o any) { r.ds("UPD", o) },
		DeleteFunc: func(o any) { r.ds("DEL", o) },
	}); err != nil {
		cancel()
		return nil, err
	}
	f.Start(ctx.Done())
	f.WaitForCacheSync(ctx.Done())
	go func() { <-ctx.Done(); f.Shutdown() }()
	return r, nil
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
	r.see(p.ResourceVersion)
	if kind == "DEL" {
		delete(r.pods, p.Name)
	} else {
		r.pods[p.Name] = p
	}
	if len(r.nodes) > briefAbove {
		r.logf("pod %s %s node=%q hash=%s %s", kind, p.Name, p.Spec.NodeName, p.Labels[appsv1.ControllerRevisionHashLabelKey], podState(p))
	} else {
		r.logf("pod %s %s node=%q hash=%s %s | %s", kind, p.Name, p.Spec.NodeName, p.Labels[appsv1.ControllerRevisionHashLabelKey], podState(p), r.perNode())
	}
	r.measure()
	r.poke()
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
	r.see(ds.ResourceVersion)
	if kind == "DEL" {
		delete(r.dss, ds.Name)
	} else {
		if _, seen := r.dss[ds.Name]; seen {
			r.DaemonSetUpdates++
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

func (r *Recorder) see(rv string) {
	if n, err := resourceversion.CompareResourceVersion(rv, r.seen); err == nil && n > 0 || r.seen == "" {
		r.seen = rv
	}
}

// WaitSeen waits until the recorder has seen an event as new as the
// resourceVersion rv (of a pod or DaemonSet of the namespace), or timeout.
func (r *Recorder) WaitSeen(rv string, timeout time.Duration) error {
	_, err := r.Wait(timeout, func(State) bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		n, err := resourceversion.CompareResourceVersion(r.seen, rv)
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
