package testbed

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/util/retry"
)

// The DaemonSet of every scenario is default/agent, with pods of
// agent:v1 at first.
const (
	dsName    = "agent"
	namespace = "default"
)

// scenario is a DaemonSet's life, run under each controller on a fresh
// control plane: nodes, the DaemonSet created, then phases, each a change
// made by the test and the state the controller must reach.
type scenario struct {
	name  string
	nodes []string
	// labels, if set, are a node's labels besides type=kwok and
	// kubernetes.io/hostname.
	labels func(node string) map[string]string
	// ds, if set, changes the DaemonSet before it is created (default:
	// maxUnavailable 1, a 1 s grace period).
	ds func(*appsv1.DaemonSet)
	// before, if set, runs after the DaemonSet is created and before the
	// controller starts.
	before func(s *scen)
	// createNodes are the nodes the DaemonSet runs on after its creation
	// (default: nodes).
	createNodes []string
	// create, if set, says when the create phase is done (default: each
	// of createNodes has one ready pod of agent:v1).
	create func(State) bool
	phases []phase
	// readyDelay is how long kwok takes to make a pod Ready (default 1 s).
	readyDelay time.Duration
	// timeout is how long a phase may take (default 3 minutes).
	timeout time.Duration
	// gc runs the garbage collector in the control plane.
	gc bool
	// processes runs upstream's controller as a program of its own too
	// (cmd/upstream-controller), for its CPU time.
	processes bool
}

// phase is one change of a scenario and what the controller must reach.
type phase struct {
	name string
	// nodes, if set, are the nodes the DaemonSet should run on from this
	// phase on (for the recorder's unavailability).
	nodes []string
	do    func(s *scen)
	done  func(State) bool
	// settle, if set, is how long done must still hold after it first
	// does (a controller must not leave the state: OnDelete, NoSchedule).
	settle time.Duration
	// unavailable, if set, is the most nodes that may be without a ready
	// pod at any moment of the phase (maxUnavailable).
	unavailable *int
	// perNode is the most pods one node may hold at any moment (0: 1;
	// 2 with maxSurge).
	perNode int
	// deleted marks the phase that deletes the DaemonSet: the
	// controller's writes after it are counted and must be none.
	deleted bool
}

func limit(n int) *int { return &n }

// scen is a scenario running under one controller.
type scen struct {
	t   *testing.T
	b   *Bed
	rec *Recorder
	ctx context.Context
	// wrote is the test's last write of a pod or of the DaemonSet: a
	// phase's done is checked only once the recorder's watch of that
	// resource has delivered it, not on the state before the change.
	wrote write
}

// Run is what one controller did in a scenario.
type Run struct {
	Final    Final
	Phases   []PhaseRun
	Recorder *Recorder
	Start    time.Duration
	// Writes counts the controller's writes by "verb resource code".
	Writes map[string]int
	// WritesAfterDelete counts the controller's writes after the
	// DaemonSet was deleted (scenarios with a deleted phase).
	WritesAfterDelete map[string]int
	// CPU is the controller process's CPU time (the example controller;
	// upstream's runs in the test process).
	CPU time.Duration
}

// PhaseRun is a phase's time to converge.
type PhaseRun struct {
	Name string
	Took time.Duration
}

// controllerAgent is the client name (Bed.Writes) of each controller.
var controllerAgent = map[controllerKind]string{upstreamKind: "kube-controller-manager", daemonplanKind: "daemonplan-example-controller"}

// runScenario runs sc under the real DaemonSet controller and under
// daemonplan's example controller, each on a fresh control plane, then
// compares and checks the runs (compareRuns).
func runScenario(t *testing.T, sc scenario) {
	t.Helper()
	runs := map[controllerKind]*Run{}
	for _, kind := range []controllerKind{upstreamKind, daemonplanKind} {
		t.Run(string(kind), func(t *testing.T) {
			runs[kind] = runOne(t, kind, sc)
		})
	}
	if runs[upstreamKind] == nil || runs[daemonplanKind] == nil {
		t.Fatal("a run did not finish")
	}
	compareRuns(t, sc, runs[upstreamKind], runs[daemonplanKind])
}

func nodeNames(from, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("node-%d", from+i)
	}
	return out
}

func runOne(t *testing.T, kind controllerKind, sc scenario) *Run {
	if kind == daemonplanKind {
		start := time.Now()
		if _, err := BuildExample(binDir); err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took > time.Second {
			t.Logf("example controller built in %v", took.Round(time.Millisecond))
		}
	}
	readyDelay := sc.readyDelay
	if readyDelay == 0 {
		readyDelay = time.Second
	}
	b := startBed(t, sc.name+"-"+string(kind), Options{PodReadyDelay: readyDelay, GarbageCollector: sc.gc})
	s := &scen{t: t, b: b, ctx: context.Background()}
	s.createNodes(sc.nodes, sc.labels)
	createNodes := sc.createNodes
	if createNodes == nil {
		createNodes = sc.nodes
	}
	rec, err := Record(b.Client, namespace, createNodes)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Stop()
	s.rec = rec
	ds := daemonSet(dsName, "agent:v1")
	if sc.ds != nil {
		sc.ds(ds)
	}
	if _, err := b.Client.AppsV1().DaemonSets(namespace).Create(s.ctx, ds, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if sc.before != nil {
		sc.before(s)
	}
	var ctrl Controller
	if sc.processes && kind == upstreamKind {
		bin, err := BuildUpstream(binDir)
		if err != nil {
			t.Fatal(err)
		}
		if ctrl, err = StartUpstreamProcess(bin, b, filepath.Join(b.Dir, "controller.log")); err != nil {
			t.Fatal(err)
		}
	} else {
		ctrl = startController(t, kind, b, namespace, dsName)
	}
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			if err := ctrl.Stop(); err != nil {
				t.Error(err)
			}
		}
	}
	defer stop()
	run := &Run{Recorder: rec, Start: b.Started}
	dump := func() {
		t.Logf("%s: what the watch saw:\n%s", kind, strings.Join(rec.Log, "\n"))
	}
	create := sc.create
	if create == nil {
		create = converged("agent:v1", createNodes)
	}
	phases := append([]phase{{name: "create", done: create}}, sc.phases...)
	for i, p := range phases {
		if i > 0 {
			if p.nodes != nil {
				rec.SetNodes(p.nodes)
			}
			rec.Phase(p.name)
		}
		var before map[string]int
		if p.deleted {
			// Let the writes of the phase before land first.
			time.Sleep(2 * time.Second)
			before = s.writes(kind)
		}
		start := time.Now()
		if p.do != nil {
			p.do(s)
		}
		if s.wrote.rv != "" {
			if err := rec.WaitSeen(s.wrote.resource, s.wrote.rv, time.Minute); err != nil {
				t.Fatalf("%s: %s: the watch did not show the test's own write: %v", kind, p.name, err)
			}
		}
		timeout := sc.timeout
		if timeout == 0 {
			timeout = 3 * time.Minute
		}
		_, err := rec.Wait(timeout, p.done)
		took := time.Since(start)
		run.Phases = append(run.Phases, PhaseRun{p.name, took})
		if err != nil {
			dump()
			t.Fatalf("%s: %s: %v", kind, p.name, err)
		}
		if p.settle > 0 || p.deleted {
			time.Sleep(max(p.settle, 3*time.Second))
			if !p.done(rec.state()) {
				dump()
				t.Fatalf("%s: %s: the state did not hold %v after it was reached", kind, p.name, p.settle)
			}
		}
		if p.deleted {
			run.WritesAfterDelete = subtract(s.writes(kind), before)
		}
	}
	// Let late writes land before the final state is read.
	time.Sleep(2 * time.Second)
	run.Final = finalState(t, b, dsName)
	stop()
	if e, ok := ctrl.(*Example); ok {
		run.CPU = e.CPU
	}
	run.Writes = s.writes(kind)
	if testing.Verbose() {
		dump()
	}
	return run
}

func (s *scen) writes(kind controllerKind) map[string]int {
	s.t.Helper()
	w, err := s.b.Writes()
	if err != nil {
		s.t.Fatal(err)
	}
	return w[controllerAgent[kind]]
}

func subtract(a, b map[string]int) map[string]int {
	out := map[string]int{}
	for k, n := range a {
		if d := n - b[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

// compareRuns fails the test where daemonplan's run differs from
// upstream's beyond what is allowed, and logs a summary table:
//
//   - the final states differ (pods per node, with their hash, labels,
//     owner and spec; revisions; the DaemonSet's status);
//   - status.observedGeneration ever decreased under daemonplan (logged
//     for upstream);
//   - daemonplan got more than upstream's 409 Conflicts on
//     daemonsets/status + 1;
//   - under either controller, more nodes unavailable than a phase allows,
//     or more pods on one node (1, 2 with maxSurge);
//   - daemonplan took longer to converge a phase than upstream's time × 2
//   - 5 s (the margin absorbs a busy machine's jitter and the 1 s
//     steps of kwok's ready delay and grace period);
//   - daemonplan wrote after the DaemonSet was deleted.
func compareRuns(t *testing.T, sc scenario, up, dp *Run) {
	t.Helper()
	if d := cmp.Diff(up.Final, dp.Final); d != "" {
		t.Errorf("final state, upstream (-) vs daemonplan (+):\n%s", d)
	}
	runs := []struct {
		kind controllerKind
		r    *Run
	}{{upstreamKind, up}, {daemonplanKind, dp}}
	for _, x := range runs {
		for ds, seq := range x.r.Recorder.ObservedGenerations {
			for i := 1; i < len(seq); i++ {
				if seq[i] < seq[i-1] {
					if x.kind == daemonplanKind {
						t.Errorf("%s: DaemonSet %s: status.observedGeneration went backwards: %v", x.kind, ds, seq)
					} else {
						t.Logf("%s: DaemonSet %s: status.observedGeneration went backwards: %v", x.kind, ds, seq)
					}
					break
				}
			}
		}
		phases := append([]phase{{name: "create"}}, sc.phases...)
		for _, p := range phases {
			if p.unavailable != nil {
				if got := x.r.Recorder.MaxUnavailable[p.name]; got > *p.unavailable {
					t.Errorf("%s: %s: %d nodes unavailable at once; at most %d", x.kind, p.name, got, *p.unavailable)
				}
			}
			perNode := max(p.perNode, 1)
			if got := x.r.Recorder.MaxPodsPerNode[p.name]; got > perNode {
				t.Errorf("%s: %s: %d pods on one node at once; at most %d", x.kind, p.name, got, perNode)
			}
		}
		if n := len(x.r.WritesAfterDelete); n > 0 {
			t.Errorf("%s: writes after the DaemonSet was deleted: %s", x.kind, FormatCounts(x.r.WritesAfterDelete))
		}
	}
	const conflict = "update daemonsets/status 409"
	if u, d := up.Writes[conflict], dp.Writes[conflict]; d > u+1 {
		t.Errorf("daemonplan: %d conflicts on daemonsets/status; upstream %d", d, u)
	}
	for i, p := range dp.Phases {
		if i >= len(up.Phases) {
			break
		}
		if u := up.Phases[i].Took; p.Took > 2*u+5*time.Second {
			t.Errorf("daemonplan: %s: converged in %v; upstream in %v (at most × 2 + 5 s)", p.Name, p.Took.Round(time.Millisecond), u.Round(time.Millisecond))
		}
	}
	t.Logf("%s: summary\n%s", sc.name, summary(up, dp))
}

// summary is a table of the two runs: per phase the time to converge, the
// most nodes unavailable and the most pods on one node; then the writes
// by kind, the Events and the observedGeneration sequence.
func summary(up, dp *Run) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "phase\tupstream\tdaemonplan\tmax unavailable (up/dp)\tmax pods per node (up/dp)")
	for i, p := range up.Phases {
		d := "-"
		if i < len(dp.Phases) {
			d = dp.Phases[i].Took.Round(time.Millisecond).String()
		}
		fmt.Fprintf(w, "%s\t%v\t%s\t%d/%d\t%d/%d\n", p.Name, p.Took.Round(time.Millisecond), d,
			up.Recorder.MaxUnavailable[p.Name], dp.Recorder.MaxUnavailable[p.Name],
			up.Recorder.MaxPodsPerNode[p.Name], dp.Recorder.MaxPodsPerNode[p.Name])
	}
	fmt.Fprintln(w, "\t\t\t\t")
	fmt.Fprintln(w, "writes\tupstream\tdaemonplan\t\t")
	kinds := map[string]bool{}
	for k := range up.Writes {
		kinds[k] = true
	}
	for k := range dp.Writes {
		kinds[k] = true
	}
	keys := make([]string, 0, len(kinds))
	for k := range kinds {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	total := func(r *Run, events bool) int {
		n := 0
		for k, c := range r.Writes {
			if strings.Contains(k, " events") == events {
				n += c
			}
		}
		return n
	}
	for _, k := range keys {
		fmt.Fprintf(w, "%s\t%d\t%d\t\t\n", k, up.Writes[k], dp.Writes[k])
	}
	fmt.Fprintf(w, "all but Events\t%d\t%d\t\t\n", total(up, false), total(dp, false))
	fmt.Fprintf(w, "Events\t%d\t%d\t\t\n", total(up, true), total(dp, true))
	fmt.Fprintf(w, "DaemonSet updates seen\t%d\t%d\t\t\n", up.Recorder.DaemonSetUpdates, dp.Recorder.DaemonSetUpdates)
	fmt.Fprintf(w, "observedGeneration\t%v\t%v\t\t\n", up.Recorder.ObservedGenerations[dsName], dp.Recorder.ObservedGenerations[dsName])
	w.Flush()
	return b.String()
}

// converged says whether the DaemonSet runs, on each of nodes, one ready
// pod of image and no other pod anywhere, and its status says so for the
// current generation.
func converged(image string, nodes []string) func(State) bool {
	return convergedWith(image, nodes, len(nodes))
}

// convergedWith is converged where only desired of the nodes should run a
// pod (the status's desiredNumberScheduled), the others running one that
// may continue (a NoSchedule taint the pod does not tolerate): those are
// misscheduled.
func convergedWith(image string, nodes []string, desired int) func(State) bool {
	placed := podsOn(image, nodes)
	return func(s State) bool {
		ds := s.DaemonSets[dsName]
		if ds == nil {
			return false
		}
		st, n := ds.Status, int32(desired)
		if st.ObservedGeneration != ds.Generation || st.DesiredNumberScheduled != n || st.CurrentNumberScheduled != n ||
			st.UpdatedNumberScheduled != n || st.NumberReady != n || st.NumberAvailable != n ||
			st.NumberUnavailable != 0 || st.NumberMisscheduled != int32(len(nodes)-desired) {
			return false
		}
		return placed(s)
	}
}

// podsOn says whether, on each of nodes, one ready pod of image runs, and
// no other pod anywhere; it does not look at the status.
func podsOn(image string, nodes []string) func(State) bool {
	return func(s State) bool {
		perNode := map[string]int{}
		for _, p := range s.Pods {
			if p.DeletionTimestamp != nil || !isReady(p) || p.Spec.Containers[0].Image != image {
				return false
			}
			perNode[p.Spec.NodeName]++
		}
		for _, node := range nodes {
			if perNode[node] != 1 {
				return false
			}
		}
		return len(s.Pods) == len(nodes)
	}
}

// idle says whether, on each of nodes, one ready pod of image runs, and
// the status has observed the DaemonSet's generation with no pod updated
// (an OnDelete DaemonSet after a template change).
func idle(image string, nodes []string) func(State) bool {
	return func(s State) bool {
		ds := s.DaemonSets[dsName]
		if ds == nil || ds.Status.ObservedGeneration != ds.Generation || ds.Status.UpdatedNumberScheduled != 0 ||
			ds.Status.NumberReady != int32(len(nodes)) {
			return false
		}
		perNode := map[string]int{}
		for _, p := range s.Pods {
			if p.DeletionTimestamp != nil || !isReady(p) || p.Spec.Containers[0].Image != image {
				return false
			}
			perNode[p.Spec.NodeName]++
		}
		for _, node := range nodes {
			if perNode[node] != 1 {
				return false
			}
		}
		return len(s.Pods) == len(nodes)
	}
}

// gone says whether the DaemonSet is deleted and its pods too.
func gone(s State) bool { return s.DaemonSets[dsName] == nil && len(s.Pods) == 0 }

// readyPod returns a ready pod of image that is not terminating, on node
// if node is set, or nil.
func readyPod(s State, node, image string) *corev1.Pod {
	for _, p := range s.Pods {
		if p.DeletionTimestamp == nil && isReady(p) && p.Status.Phase == corev1.PodRunning &&
			(node == "" || p.Spec.NodeName == node) && (image == "" || p.Spec.Containers[0].Image == image) {
			return p
		}
	}
	return nil
}

// waitFor waits until cond holds, in the middle of a phase.
func (s *scen) waitFor(what string, cond func(State) bool) {
	s.t.Helper()
	if _, err := s.rec.Wait(2*time.Minute, cond); err != nil {
		s.t.Fatalf("waiting for %s: %v", what, err)
	}
}

func (s *scen) createNode(name string) { s.createNodes([]string{name}, nil) }

// createNodes creates the nodes, 16 at a time.
func (s *scen) createNodes(names []string, labels func(string) map[string]string) {
	s.t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, len(names))
	sem := make(chan struct{}, 16)
	for _, name := range names {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"type": "kwok", "kubernetes.io/hostname": name}}}
			if labels != nil {
				for k, v := range labels(name) {
					node.Labels[k] = v
				}
			}
			if _, err := s.b.Client.CoreV1().Nodes().Create(s.ctx, node, metav1.CreateOptions{}); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		s.t.Fatal(err)
	}
}

func (s *scen) updateNode(name string, change func(*corev1.Node)) {
	s.t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := s.b.Client.CoreV1().Nodes().Get(s.ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		change(n)
		_, err = s.b.Client.CoreV1().Nodes().Update(s.ctx, n, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		s.t.Fatal(err)
	}
}

// deleteNode deletes the node and then, as the pod garbage collector does
// for pods bound to a node that is gone, force-deletes its pods.
func (s *scen) deleteNode(name string) {
	s.t.Helper()
	if err := s.b.Client.CoreV1().Nodes().Delete(s.ctx, name, metav1.DeleteOptions{}); err != nil {
		s.t.Fatal(err)
	}
	pods, err := s.b.Client.CoreV1().Pods(namespace).List(s.ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("spec.nodeName", name).String()})
	if err != nil {
		s.t.Fatal(err)
	}
	zero := int64(0)
	for _, p := range pods.Items {
		if err := s.b.Client.CoreV1().Pods(namespace).Delete(s.ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil && !apierrors.IsNotFound(err) {
			s.t.Fatal(err)
		}
	}
}

func (s *scen) updateDaemonSet(change func(*appsv1.DaemonSet)) {
	s.t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		ds, err := s.b.Client.AppsV1().DaemonSets(namespace).Get(s.ctx, dsName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		change(ds)
		ds, err = s.b.Client.AppsV1().DaemonSets(namespace).Update(s.ctx, ds, metav1.UpdateOptions{})
		if err == nil {
			s.wrote = write{"daemonsets", ds.ResourceVersion}
		}
		return err
	})
	if err != nil {
		s.t.Fatal(err)
	}
}

// setImage is a phase's change: the DaemonSet's image.
func setImage(image string) func(*scen) {
	return func(s *scen) {
		s.updateDaemonSet(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.Containers[0].Image = image })
	}
}

// failPod sets the status of pod to Failed, as a kubelet does when its
// containers exit and the pod does not restart them.
func (s *scen) failPod(pod *corev1.Pod) {
	s.t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		p, err := s.b.Client.CoreV1().Pods(namespace).Get(s.ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		p.Status.Phase = corev1.PodFailed
		now := metav1.Now()
		for i := range p.Status.Conditions {
			if c := &p.Status.Conditions[i]; c.Type == corev1.PodReady || c.Type == corev1.ContainersReady {
				c.Status, c.LastTransitionTime = corev1.ConditionFalse, now
			}
		}
		for i := range p.Status.ContainerStatuses {
			cs := &p.Status.ContainerStatuses[i]
			cs.Ready, cs.Started = false, new(bool)
			cs.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", FinishedAt: now}}
		}
		p, err = s.b.Client.CoreV1().Pods(namespace).UpdateStatus(s.ctx, p, metav1.UpdateOptions{})
		if err == nil {
			s.wrote = write{"pods", p.ResourceVersion}
		}
		return err
	})
	if err != nil {
		s.t.Fatal(err)
	}
}

// write is a write of the test: the resource written ("pods",
// "daemonsets") and the resourceVersion it made.
type write struct{ resource, rv string }

// Final is the state a scenario ends in, compared across controllers.
type Final struct {
	// Pods is node -> its pods, sorted by hash.
	Pods map[string][]FinalPod
	// Generations counts the pods by their pod-template-generation label
	// (the DaemonSet's generation when the pod was created): which nodes
	// got their pod in which generation depends on the order the
	// controller took the nodes in, so that label is compared as counts,
	// not per node.
	Generations map[string]int
	// Revisions are the ControllerRevisions: name and revision number.
	Revisions []string
	Status    appsv1.DaemonSetStatus
	// Found is false when the DaemonSet is deleted.
	Found bool
}

// templateGenerationLabel is the label DaemonSet pods carry their
// DaemonSet's generation at creation in (extensions/v1beta1's
// DaemonSetTemplateGenerationKey).
const templateGenerationLabel = "pod-template-generation"

// FinalPod is what is compared of a pod: its revision hash, labels (but
// pod-template-generation, counted in Final.Generations),
// controller (kind and name: the UIDs differ from one control plane to
// the other), phase, whether it terminates, and its spec (as JSON
// decoded, for a readable diff).
type FinalPod struct {
	Hash        string
	Labels      map[string]string
	Owner       string
	Phase       corev1.PodPhase
	Terminating bool
	Spec        map[string]any
}

func finalState(t *testing.T, b *Bed, name string) Final {
	t.Helper()
	ctx := context.Background()
	f := Final{Pods: map[string][]FinalPod{}, Generations: map[string]int{}}
	pods, err := b.Client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		fp := FinalPod{
			Hash: p.Labels[appsv1.ControllerRevisionHashLabelKey], Labels: map[string]string{},
			Phase: p.Status.Phase, Terminating: p.DeletionTimestamp != nil,
		}
		for k, v := range p.Labels {
			if k == templateGenerationLabel {
				f.Generations[v]++
			} else {
				fp.Labels[k] = v
			}
		}
		if ref := metav1.GetControllerOf(&p); ref != nil {
			fp.Owner = fmt.Sprintf("%s/%s controller=%v blockOwnerDeletion=%v", ref.Kind, ref.Name, *ref.Controller, ref.BlockOwnerDeletion != nil && *ref.BlockOwnerDeletion)
		}
		raw, err := json.Marshal(p.Spec)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &fp.Spec); err != nil {
			t.Fatal(err)
		}
		f.Pods[p.Spec.NodeName] = append(f.Pods[p.Spec.NodeName], fp)
	}
	for _, ps := range f.Pods {
		sort.Slice(ps, func(i, j int) bool { return ps[i].Hash < ps[j].Hash })
	}
	revs, err := b.Client.AppsV1().ControllerRevisions(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range revs.Items {
		f.Revisions = append(f.Revisions, fmt.Sprintf("%s=%d", r.Name, r.Revision))
	}
	sort.Strings(f.Revisions)
	ds, err := b.Client.AppsV1().DaemonSets(namespace).Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		t.Fatal(err)
	default:
		f.Found, f.Status = true, ds.Status
	}
	return f
}
