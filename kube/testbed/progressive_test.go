package testbed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/daemonplan/daemonplan/kube/progressive"
	"github.com/daemonplan/daemonplan/kube/schema"
)

// The progressive scenarios run the REAL DaemonSet controller of
// Kubernetes v1.37.2 on a DaemonSet with updateStrategy OnDelete: it
// creates every pod; kube/progressive (as a library, the code of
// `daemonplan rollout`) decides which outdated pods to delete and deletes
// them. A watch of the namespace's pods checks at every event it
// delivers: nodes without a ready pod that is not terminating ≤ the
// budget; before the promote, at most the canary's nodes touched; zone
// by zone, no node of a zone touched while a node of an earlier zone
// still runs its first pod; pods of other owners untouched.

// badImage is an image whose pods kwok never makes Ready (badStage).
const badImage = "agent:bad"

// badStage makes a pod of badImage Running and not Ready at once.
var badStage = NeverReadyStage(badImage)

// The rollout commands' exit codes (`daemonplan rollout --help`).
const (
	exitOK      = 0
	exitAborted = 4
)

// crashImage is an image whose pods crash-loop: kwok restarts them as a
// kubelet does (crashStages), a second after they are bound, then on a
// back-off of 1s, 2s, 4s...
const crashImage = "agent:crash"

// crashStages make the pods of crashImage crash-loop.
var crashStages = CrashLoopStages(crashImage, time.Second, time.Second)

// progressiveScenario is one rollout under the real controller.
type progressiveScenario struct {
	name   string
	nodes  []string
	zone   func(node string) string
	policy progressive.Policy
	// budget is policy.maxUnavailable resolved.
	budget int
	// canary is the most nodes touched before the promote (0: no
	// canary).
	canary int
	// zones is the order of the zones (nil: no order checked).
	zones []string
	// rollingUpdate creates the DaemonSet on RollingUpdate, for the test
	// to switch it with the command Start's refusal gives.
	rollingUpdate bool
}

// invariants is the watch that checks every event.
type invariants struct {
	mu       sync.Mutex
	sc       progressiveScenario
	pods     map[string]*corev1.Pod
	first    map[string]types.UID // each node's first pod of the DaemonSet
	others   map[types.UID]bool   // pods of the other DaemonSet
	promoted bool
	canary   map[string]bool // nodes touched before the promote
	events   int
	errs     []string
	// touchedAt is when each node's first pod was first seen deleted or
	// terminating, since the watch started.
	touchedAt map[string]time.Duration
	start     time.Time
	// moments are the DaemonSet's pods per node, at each event that
	// changed them (snapshot).
	moments []moment
}

func (iv *invariants) fail(format string, args ...any) {
	if len(iv.errs) < 20 {
		iv.errs = append(iv.errs, fmt.Sprintf("event %d: ", iv.events)+fmt.Sprintf(format, args...))
	}
}

// check runs at every event, on the state the watch delivered.
func (iv *invariants) check() {
	iv.events++
	iv.snapshot()
	ready := map[string]bool{}
	live := map[types.UID]bool{}
	for _, p := range iv.pods {
		if p.DeletionTimestamp == nil {
			live[p.UID] = true
			if isReady(p) && p.Labels["app"] == dsName {
				ready[p.Spec.NodeName] = true
			}
		}
	}
	unavailable := 0
	for _, n := range iv.sc.nodes {
		if !ready[n] {
			unavailable++
		}
	}
	if unavailable > iv.sc.budget {
		iv.fail("%d nodes unavailable, budget %d", unavailable, iv.sc.budget)
	}
	for uid := range iv.others {
		if !live[uid] {
			iv.fail("pod %s of another owner deleted", uid)
		}
	}
	var touched []string
	for _, n := range iv.sc.nodes {
		if uid, ok := iv.first[n]; ok && !live[uid] {
			touched = append(touched, n)
			if _, seen := iv.touchedAt[n]; !seen {
				iv.touchedAt[n] = time.Since(iv.start)
			}
			if !iv.promoted {
				iv.canary[n] = true
			}
		}
	}
	if iv.sc.canary > 0 && !iv.promoted && len(touched) > iv.sc.canary {
		iv.fail("%d nodes touched before the promote, canary %d: %v", len(touched), iv.sc.canary, touched)
	}
	if iv.sc.zones == nil {
		return
	}
	rank := func(n string) int { return slices.Index(iv.sc.zones, iv.sc.zone(n)) }
	for _, n := range touched {
		if iv.canary[n] {
			continue
		}
		for _, m := range iv.sc.nodes {
			if iv.canary[m] || rank(m) >= rank(n) || !live[iv.first[m]] {
				continue
			}
			iv.fail("node %s (zone %s) touched while node %s of the earlier zone %s still runs its first pod", n, iv.sc.zone(n), m, iv.sc.zone(m))
		}
	}
}

// watchInvariants lists and watches the namespace's pods, checking every
// event; first are the DaemonSet's pods per node and others the other
// owner's pods, as listed before the rollout.
func watchInvariants(t *testing.T, client kubernetes.Interface, sc progressiveScenario) (*invariants, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	iv := &invariants{sc: sc, pods: map[string]*corev1.Pod{}, first: map[string]types.UID{}, others: map[types.UID]bool{},
		canary: map[string]bool{}, touchedAt: map[string]time.Duration{}, start: time.Now()}
	list, err := client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range list.Items {
		p := &list.Items[i]
		if p.Labels["app"] == dsName {
			iv.first[p.Spec.NodeName] = p.UID
		} else {
			iv.others[p.UID] = true
		}
	}
	store := &checkStore{iv: iv}
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return client.CoreV1().Pods(namespace).List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return client.CoreV1().Pods(namespace).Watch(ctx, o)
		},
	}
	go cache.NewReflector(lw, &corev1.Pod{}, store, 0).RunWithContext(ctx)
	return iv, cancel
}

// checkStore is the reflector's store: every change is checked.
type checkStore struct{ iv *invariants }

func (s *checkStore) set(kind string, obj any) error {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return nil
	}
	s.iv.mu.Lock()
	defer s.iv.mu.Unlock()
	if kind == "DEL" {
		delete(s.iv.pods, p.Name)
	} else {
		s.iv.pods[p.Name] = p
	}
	s.iv.check()
	return nil
}

func (s *checkStore) Add(obj any) error    { return s.set("ADD", obj) }
func (s *checkStore) Update(obj any) error { return s.set("UPD", obj) }
func (s *checkStore) Delete(obj any) error { return s.set("DEL", obj) }
func (s *checkStore) Resync() error        { return nil }
func (s *checkStore) Replace(list []any, _ string) error {
	s.iv.mu.Lock()
	defer s.iv.mu.Unlock()
	s.iv.pods = map[string]*corev1.Pod{}
	for _, o := range list {
		if p, ok := o.(*corev1.Pod); ok {
			s.iv.pods[p.Name] = p
		}
	}
	s.iv.check()
	return nil
}

// driver steps the rollout every interval in a goroutine, as `rollout
// --watch` does, and keeps the last result.
type driver struct {
	mu      sync.Mutex
	last    progressive.StepResult
	steps   int
	deletes []progressive.PodDelete
	errs    []error
	// conflicts counts the steps that met a Conflict.
	conflicts int
	// etas are the ETAs of the steps, with when each step ran; doneAt
	// is the first step that found the rollout done.
	etas   []stepETA
	doneAt time.Time
	// rows are the steps that deleted.
	rows []stepRow
	stop context.CancelFunc
	done chan struct{}
}

// stepETA is a step's ETA and when the step ran.
type stepETA struct {
	at  time.Time
	eta progressive.ETA
}

// checkETAs compares each measured ETA of d (Source Measured) with the
// time the rollout actually had left, logs them, and fails when one is
// off by more than half the time left and 3 s: the ETA schedules the
// nodes left at the mean replacement time measured so far, so on the
// test bed, where every replacement takes about as long, it should be
// close once one replacement is measured.
func checkETAs(t *testing.T, d *driver) {
	t.Helper()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.doneAt.IsZero() {
		t.Error("no step found the rollout done")
		return
	}
	measured, worst := 0, time.Duration(0)
	var rows []string
	for _, e := range d.etas {
		if e.eta.Source != progressive.ETAMeasured {
			continue
		}
		measured++
		left := d.doneAt.Sub(e.at)
		off := e.eta.Remaining - left
		worst = max(worst, off.Abs())
		rows = append(rows, fmt.Sprintf("%.1fs/%.1fs", e.eta.Remaining.Seconds(), left.Seconds()))
		if off.Abs() > max(left/2, 3*time.Second) {
			t.Errorf("ETA %v (%d nodes, %v per node, %d measured) with %v actually left", e.eta.Remaining, e.eta.Nodes, e.eta.PerNode, e.eta.Measured, left.Round(time.Millisecond))
		}
	}
	if measured == 0 {
		t.Error("no step gave a measured ETA")
	}
	t.Logf("measured ETAs (predicted/actual left), %d steps, worst off by %v: %s", measured, worst.Round(100*time.Millisecond), strings.Join(rows, " "))
}

func startDriver(client kubernetes.Interface, interval time.Duration) *driver {
	ctx, cancel := context.WithCancel(context.Background())
	d := &driver{stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(d.done)
		for ctx.Err() == nil {
			res, err := progressive.Step(ctx, client, namespace, dsName, time.Now())
			d.mu.Lock()
			d.steps++
			switch {
			case errors.Is(err, progressive.ErrConflict):
				d.conflicts++
			case err != nil && ctx.Err() == nil:
				d.errs = append(d.errs, err)
			default:
				d.last = res
				d.deletes = append(d.deletes, res.Deletes...)
				if len(res.Deletes) > 0 {
					d.rows = append(d.rows, stepRow{time.Now(), res})
				}
				if res.ETA != nil {
					d.etas = append(d.etas, stepETA{time.Now(), *res.ETA})
				}
				if res.Rollout.Status.Phase == progressive.PhaseDone && d.doneAt.IsZero() {
					d.doneAt = time.Now()
				}
			}
			d.mu.Unlock()
			if errors.Is(err, progressive.ErrConflict) {
				time.Sleep(100 * time.Millisecond)
				continue
			}
			select {
			case <-ctx.Done():
			case <-time.After(interval):
			}
		}
	}()
	return d
}

func (d *driver) Stop() { d.stop(); <-d.done }

// wait waits until cond holds for the driver's last result.
func (d *driver) wait(t *testing.T, what string, timeout time.Duration, cond func(progressive.StepResult) bool) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		d.mu.Lock()
		res, errs := d.last, d.errs
		d.mu.Unlock()
		if len(errs) > 0 {
			t.Fatalf("waiting for %s: the driver failed: %v", what, errs)
		}
		if cond(res) {
			return time.Since(start)
		}
		if time.Since(start) > timeout {
			t.Fatalf("waiting for %s: not after %v; phase %s, waiting %q", what, timeout, res.Rollout.Status.Phase, res.Waiting)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func phaseIs(ph progressive.Phase) func(progressive.StepResult) bool {
	return func(r progressive.StepResult) bool { return r.Rollout.Status.Phase == ph }
}

func waitingPromote(r progressive.StepResult) bool {
	return r.Rollout.Status.Phase == progressive.PhaseCanary && strings.Contains(r.Waiting, "promote")
}

// progressiveBed starts a control plane with the real DaemonSet
// controller, the nodes, the DaemonSet agent on OnDelete with agent:v1,
// and another DaemonSet "other" with its own pods, and waits until both
// run a ready pod on every node.
func progressiveBed(t *testing.T, sc progressiveScenario) *Bed {
	t.Helper()
	b := startBed(t, sc.name, Options{PodReadyDelay: time.Second, ExtraPodStages: append([]string{badStage}, crashStages...)})
	s := &scen{t: t, b: b, ctx: context.Background()}
	s.createNodes(sc.nodes, func(n string) map[string]string {
		if sc.zone == nil {
			return nil
		}
		return map[string]string{"topology.kubernetes.io/zone": sc.zone(n)}
	})
	for _, name := range []string{dsName, "other"} {
		ds := daemonSet(name, name+":v1")
		if name != dsName || !sc.rollingUpdate {
			ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
		}
		if _, err := b.Client.AppsV1().DaemonSets(namespace).Create(s.ctx, ds, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	ctrl := startController(t, upstreamKind, b, namespace, dsName)
	t.Cleanup(func() {
		if err := ctrl.Stop(); err != nil {
			t.Error(err)
		}
	})
	deadline := time.Now().Add(2 * time.Minute)
	for {
		pods, err := b.Client.CoreV1().Pods(namespace).List(s.ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for i := range pods.Items {
			if isReady(&pods.Items[i]) {
				n++
			}
		}
		if n == 2*len(sc.nodes) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the DaemonSets did not run a ready pod on every node in 2 minutes (%d ready)", n)
		}
		time.Sleep(200 * time.Millisecond)
	}
	return b
}

// dsImages counts the DaemonSet's live ready pods by image.
func dsImages(t *testing.T, b *Bed) map[string]int {
	t.Helper()
	pods, err := b.Client.CoreV1().Pods(namespace).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.Labels["app"] == dsName && p.DeletionTimestamp == nil {
			img := p.Spec.Containers[0].Image
			if !isReady(p) {
				img += " (not ready)"
			}
			out[img]++
		}
	}
	return out
}

func setTemplateImage(t *testing.T, b *Bed, image string) {
	t.Helper()
	s := &scen{t: t, b: b, ctx: context.Background()}
	s.updateDaemonSet(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.Containers[0].Image = image })
}

// finish stops the driver and the watch and reports the invariants.
// A nil d: the test drove the rollout through the CLI.
func finish(t *testing.T, d *driver, iv *invariants, stopWatch func()) {
	t.Helper()
	if d == nil {
		d = &driver{}
	} else {
		d.Stop()
	}
	time.Sleep(time.Second) // the last events
	stopWatch()
	iv.mu.Lock()
	defer iv.mu.Unlock()
	for _, e := range iv.errs {
		t.Error(e)
	}
	var nodes []string
	for n := range iv.touchedAt {
		nodes = append(nodes, n)
	}
	sort.Slice(nodes, func(i, j int) bool { return iv.touchedAt[nodes[i]] < iv.touchedAt[nodes[j]] })
	var order []string
	for _, n := range nodes {
		z := ""
		if iv.sc.zone != nil {
			z = "/" + iv.sc.zone(n)
		}
		order = append(order, fmt.Sprintf("%s%s@%.1fs", n, z, iv.touchedAt[n].Seconds()))
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	t.Logf("%d events checked; %d steps, %d conflicts, %d deletes; nodes touched in order: %s", iv.events, d.steps, d.conflicts, len(d.deletes), strings.Join(order, " "))
}

func count(n int) *intstr.IntOrString {
	v := intstr.FromInt(n)
	return &v
}

// TestProgressiveCanary: 4 nodes, the DaemonSet on RollingUpdate refused
// by Start, then switched with the merge patch of the command the refusal
// gives; a canary of 2 under maxUnavailable 1: the rollout waits for the
// promote with exactly 2 nodes on v2 (and stays there 5 s), then the
// promote takes it to the end.
func TestProgressiveCanary(t *testing.T) {
	sc := progressiveScenario{name: "progressive-canary", nodes: nodeNames(0, 4), budget: 1, canary: 2, rollingUpdate: true,
		policy: progressive.Policy{Canary: &progressive.CanaryPolicy{Nodes: count(2)}, MaxUnavailable: count(1)}}
	b := progressiveBed(t, sc)
	ctx := context.Background()
	_, err := progressive.Start(ctx, b.Client, namespace, dsName, sc.policy)
	var noe *progressive.NotOnDeleteError
	if !errors.As(err, &noe) {
		t.Fatalf("Start on RollingUpdate: %v, want a NotOnDeleteError", err)
	}
	cmd := noe.Command()
	patch := cmd[strings.Index(cmd, "-p '")+4 : len(cmd)-1]
	if _, err := b.Client.AppsV1().DaemonSets(namespace).Patch(ctx, dsName, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	if _, err := progressive.Start(ctx, b.Client, namespace, dsName, sc.policy); err != nil {
		t.Fatal(err)
	}
	iv, stopWatch := watchInvariants(t, b.Client, sc)
	setTemplateImage(t, b, "agent:v2")
	d := startDriver(b.Client, 500*time.Millisecond)
	took := d.wait(t, "the canary", 2*time.Minute, waitingPromote)
	time.Sleep(5 * time.Second)
	if got := dsImages(t, b); got["agent:v2"] != 2 || got["agent:v1"] != 2 {
		t.Errorf("5 s into the wait for promote, images %v, want 2 v2 and 2 v1", got)
	}
	iv.mu.Lock()
	iv.promoted = true
	iv.mu.Unlock()
	start := time.Now()
	if _, err := progressive.Promote(ctx, b.Client, namespace, dsName); err != nil {
		t.Fatal(err)
	}
	d.wait(t, "the end", 2*time.Minute, phaseIs(progressive.PhaseDone))
	t.Logf("canary: %v; after the promote: %v", took.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	finish(t, d, iv, stopWatch)
	if got := dsImages(t, b); got["agent:v2"] != 4 || len(got) != 1 {
		t.Errorf("at the end, images %v, want v2 on the 4 nodes", got)
	}
}

// TestProgressiveZones: 9 nodes in zones a, b, c (3 each), the order
// a → b → c, one cluster-wide maxUnavailable of 2.
func TestProgressiveZones(t *testing.T) {
	zoneOf := func(n string) string { return string("abc"[(int(n[len(n)-1])-'0')%3]) }
	sc := progressiveScenario{name: "progressive-zones", nodes: nodeNames(0, 9), zone: zoneOf, budget: 2, zones: []string{"a", "b", "c"},
		policy: progressive.Policy{Zones: &progressive.ZonesPolicy{Order: []string{"a", "b", "c"}}, MaxUnavailable: count(2)}}
	b := progressiveBed(t, sc)
	ctx := context.Background()
	if _, err := progressive.Start(ctx, b.Client, namespace, dsName, sc.policy); err != nil {
		t.Fatal(err)
	}
	iv, stopWatch := watchInvariants(t, b.Client, sc)
	iv.promoted = true // no canary
	setTemplateImage(t, b, "agent:v2")
	d := startDriver(b.Client, 500*time.Millisecond)
	took := d.wait(t, "the end", 3*time.Minute, phaseIs(progressive.PhaseDone))
	t.Logf("rollout: %v", took.Round(time.Millisecond))
	finish(t, d, iv, stopWatch)
	checkETAs(t, d)
	drawTimeline(t, iv, d, d.last.Rollout.Status.Revision, "progressive-zones")
	if got := dsImages(t, b); got["agent:v2"] != 9 || len(got) != 1 {
		t.Errorf("at the end, images %v, want v2 on the 9 nodes", got)
	}
}

// TestProgressiveNeverReady: a version whose pods never turn Ready, a
// canary of 2 under maxUnavailable 2 and a ready deadline of 10 s: the
// gate pauses the rollout after the canary, and no other node is touched
// (checked 10 s more).
func TestProgressiveNeverReady(t *testing.T) {
	zoneOf := func(n string) string { return string("ab"[(int(n[len(n)-1])-'0')%2]) }
	sc := progressiveScenario{name: "progressive-never-ready", nodes: nodeNames(0, 6), zone: zoneOf, budget: 2, canary: 2,
		policy: progressive.Policy{Canary: &progressive.CanaryPolicy{Nodes: count(2)}, MaxUnavailable: count(2),
			Zones: &progressive.ZonesPolicy{Order: []string{"a", "b"}},
			Gates: &progressive.Gates{ReadyDeadline: metav1.Duration{Duration: 10 * time.Second}}}}
	b := progressiveBed(t, sc)
	ctx := context.Background()
	if _, err := progressive.Start(ctx, b.Client, namespace, dsName, sc.policy); err != nil {
		t.Fatal(err)
	}
	iv, stopWatch := watchInvariants(t, b.Client, sc)
	setTemplateImage(t, b, badImage)
	d := startDriver(b.Client, 500*time.Millisecond)
	took := d.wait(t, "the gate", 2*time.Minute, func(r progressive.StepResult) bool {
		return r.Rollout.Status.Paused != nil && r.Rollout.Status.Paused.By == progressive.ByGate
	})
	d.mu.Lock()
	t.Logf("paused by the gate after %v: %s", took.Round(time.Millisecond), d.last.Rollout.Status.Paused.Reason)
	d.mu.Unlock()
	time.Sleep(10 * time.Second)
	finish(t, d, iv, stopWatch)
	iv.mu.Lock()
	touched := len(iv.touchedAt)
	iv.mu.Unlock()
	if touched != 2 {
		t.Errorf("%d nodes touched, want the 2 canaries only", touched)
	}
	if got := dsImages(t, b); got[badImage+" (not ready)"] != 2 || got["agent:v1"] != 4 {
		t.Errorf("images %v, want 2 not-ready %s and 4 agent:v1", got, badImage)
	}
}

// TestProgressiveCrashLoop: a version whose pods crash-loop (never Ready,
// restarted 1s, 2s, 4s, 8s... after their first exit), driven by the CLI
// as an operator would: start with a canary of 2, maxUnavailable 2, at
// most 3 restarts and Abort on a failed gate, the ready deadline out of
// reach (10 m) so that only the restart gate can fire. resume --watch
// exits 4 (aborted) at the 4th restart, naming the restarts, when
// `simulate` with the same policy and the test bed's timings predicted it
// (within 20 %); status says the same with exit 4; no node beyond the 2
// canaries is touched (checked 10 s more). Then undo --watch takes the
// DaemonSet back to v1 under the same policy, without a canary: it
// replaces the 2 crash-looping pods, touches no other node, and ends Done
// with a Ready agent:v1 on every node.
func TestProgressiveCrashLoop(t *testing.T) {
	sc := progressiveScenario{name: "progressive-crash-loop", nodes: nodeNames(0, 6), budget: 2, canary: 2}
	b := progressiveBed(t, sc)
	ds := "ds/" + dsName
	watch := []string{"--watch", "--interval", "500ms", "--timeout", "2m"}
	policy := []string{"--canary", "2", "--max-unavailable", "2", "--max-restarts", "3", "--on-failure", "Abort", "--ready-deadline", "10m"}
	if r := runCLI(b.Kubeconfig, append([]string{"rollout", "start", ds, "-n", namespace}, policy...)...); r.code != 0 {
		t.Fatalf("rollout start: %s", r)
	}
	predicted := predictGate(t, b, ds, append([]string{"--image", dsName + "=" + crashImage, "--ready-after", "1s",
		"--crash-rate", "1", "--crash-backoff", "1s"}, policy...))
	iv, stopWatch := watchInvariants(t, b.Client, sc)
	from := time.Now()
	setTemplateImage(t, b, crashImage)
	r := runCLI(b.Kubeconfig, append([]string{"rollout", "resume", ds, "-n", namespace}, watch...)...)
	measured := time.Since(from)
	if r.code != exitAborted || !strings.Contains(r.stdout, "restarted 4 times") {
		t.Fatalf("rollout resume --watch: %s; want exit %d (aborted by the restart gate at the 4th restart)", r, exitAborted)
	}
	if off := math.Abs(measured.Seconds()-predicted.Seconds()) / predicted.Seconds(); off > 0.2 {
		t.Errorf("aborted %v after the template change; simulate predicted %v (off by %.0f %%, want within 20 %%)", measured.Round(10*time.Millisecond), predicted, 100*off)
	} else {
		t.Logf("aborted %v after the template change; simulate predicted %v (off by %.0f %%)", measured.Round(10*time.Millisecond), predicted, 100*off)
	}
	t.Logf("aborted by the gate after %v:\n%s", r.took.Round(time.Millisecond), r.stdout)
	if r := runCLI(b.Kubeconfig, "rollout", "status", ds, "-n", namespace); r.code != exitAborted || !strings.Contains(r.stdout, "restarted 4 times") {
		t.Errorf("rollout status: %s; want exit %d naming the restarts", r, exitAborted)
	}
	time.Sleep(10 * time.Second)
	iv.mu.Lock()
	touched := len(iv.touchedAt)
	iv.mu.Unlock()
	if touched != 2 {
		t.Errorf("%d nodes touched, want the 2 canaries only", touched)
	}
	if got := dsImages(t, b); got[crashImage+" (not ready)"] != 2 || got["agent:v1"] != 4 {
		t.Errorf("after the abort, images %v, want 2 not-ready %s and 4 agent:v1", got, crashImage)
	}

	r = runCLI(b.Kubeconfig, append([]string{"rollout", "undo", ds, "-n", namespace}, watch...)...)
	if r.code != exitOK {
		t.Fatalf("rollout undo --watch: %s; want exit 0", r)
	}
	t.Logf("undone in %v:\n%s", r.took.Round(time.Millisecond), r.stdout)
	finish(t, nil, iv, stopWatch)
	if touched := len(iv.touchedAt); touched != 2 {
		t.Errorf("after the undo, %d nodes touched, want the 2 canaries only", touched)
	}
	if got := dsImages(t, b); got["agent:v1"] != 6 || len(got) != 1 {
		t.Errorf("after the undo, images %v, want a Ready agent:v1 on the 6 nodes", got)
	}
	if st := rolloutOf(t, b, dsName).Status; st.Phase != progressive.PhaseDone {
		t.Errorf("after the undo, phase %s, want Done", st.Phase)
	}
}

// predictGate runs `daemonplan simulate` on the live DaemonSet with args
// (the change and the policy) and returns when its health gate fires.
func predictGate(t *testing.T, b *Bed, ds string, args []string) time.Duration {
	t.Helper()
	r := runCLI(b.Kubeconfig, append([]string{"simulate", ds, "-n", namespace, "-o", "json"}, args...)...)
	if r.code != exitOK {
		t.Fatalf("simulate: %s", r)
	}
	var doc schema.Simulation
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("simulate -o json: %v", err)
	}
	for _, p := range doc.Phases {
		if p.Gate != "" {
			d, err := time.ParseDuration(p.At)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("simulate predicts the gate at +%v: %s", d, p.Gate)
			return d
		}
	}
	t.Fatalf("simulate predicted no gate: phases %+v", doc.Phases)
	return 0
}
