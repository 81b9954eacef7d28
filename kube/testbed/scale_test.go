package testbed

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
)

// TestScale is the cost run, not run by default: with TESTBED_SCALE=N,
// N kwok nodes and 20 DaemonSets of one namespace (scaleDaemonSets: mixed
// node selectors, affinities, tolerations and update strategies) under
// each controller on a fresh control plane, both controllers as programs
// of their own (upstream's as cmd/upstream-controller) reaching
// kube-apiserver through a proxy that counts their requests.
//
// The phases: every DaemonSet created until each converged; a steady
// window (TESTBED_SCALE_STEADY, a Go duration, default 10m) in which the
// nodes change as a cluster's do (scalePlan: heartbeats throughout, a
// few label and taint changes, pods deleted on a fraction of the nodes)
// and after which every DaemonSet converges again; then three DaemonSets
// rolled out at once, each timed until it converged. Heartbeats go on
// from the nodes' creation to the end.
//
// The final states (pods per node, revisions, every DaemonSet's status)
// must be equal, or the test fails. It logs each controller's CPU time
// (user + system of its process, in total from its process state once
// stopped, per phase from /proc/PID/stat), peak RSS (VmHWM) and steady
// RSS (the median VmRSS sampled every second in the steady window), its
// requests by verb, its status writes and each rollout's time to
// converge, with the ratios daemonplan / upstream. With
// TESTBED_SCALE_PROFILE=DIR the example controller serves its profiles
// (--profiling) and the run keeps its CPU profiles, 15 s each, and a heap
// profile per phase in DIR (profiler).
//
//	TESTBED_SCALE=1000 TESTBED_SCALE_STEADY=1m go test -run '^TestScale$' -v -timeout 60m
func TestScale(t *testing.T) {
	env := os.Getenv("TESTBED_SCALE")
	if env == "" {
		t.Skip("set TESTBED_SCALE to a number of nodes to run it")
	}
	n, err := strconv.Atoi(env)
	if err != nil || n < 100 {
		t.Fatalf("TESTBED_SCALE=%q: not a number of nodes of at least 100", env)
	}
	steady := 10 * time.Minute
	if env := os.Getenv("TESTBED_SCALE_STEADY"); env != "" {
		if steady, err = time.ParseDuration(env); err != nil || steady < 0 {
			t.Fatalf("TESTBED_SCALE_STEADY=%q: not a duration", env)
		}
	}
	plan := newScalePlan(n, steady)
	t.Logf("scale-%d: %d DaemonSets, %d pods expected, steady window %v: %d label changes, %d taints added and removed, %d pods deleted; a heartbeat per node every %v",
		n, len(plan.daemonSets), plan.expectedPods(), steady, len(plan.labelNodes), len(plan.taintNodes), len(plan.churnNodes), heartbeatPeriod)
	runs := map[controllerKind]*scaleRun{}
	for _, kind := range []controllerKind{upstreamKind, daemonplanKind} {
		t.Run(string(kind), func(t *testing.T) {
			runs[kind] = runScale(t, kind, plan)
		})
	}
	up, dp := runs[upstreamKind], runs[daemonplanKind]
	if up == nil || dp == nil {
		t.Fatal("a run did not finish")
	}
	equal := true
	if d := cmp.Diff(up.Final, dp.Final); d != "" {
		equal = false
		t.Errorf("final state, upstream (-) vs daemonplan (+):\n%s", d)
	}
	t.Logf("scale-%d: cost, daemonplan / upstream (final states equal: %v)\n%s", n, equal, scaleTable(plan, up, dp))
	t.Logf("scale-%d: syncs and writes by phase\n%s", n, countTable("phase", up.Phases, dp.Phases))
	t.Logf("scale-%d: requests by verb and resource\n%s", n, requestTable(up, dp))
	t.Logf("scale-%d: Event objects by reason (and the sum of their counts)\n%s", n, countTable("Event reason", up.Events, dp.Events))
	t.Logf("scale-%d: while the rollouts ran: requests, and seconds by requests sent in them\n%s", n,
		countTable("rollouts", merge(up.RolloutRequests, up.RolloutPace), merge(dp.RolloutRequests, dp.RolloutPace)))
}

// pacer samples the proxy's request counts once a second, and the
// controller's syncs and work queue, so that a second without a request
// tells what the controller was doing: syncing without writing (syncs
// ran: held for the informers, waiting on expectations, nothing to do),
// holding keys it did not sync (queued), or waiting for an event (nothing
// queued).
type pacer struct {
	done        chan struct{}
	out         chan [2]map[string]int
	proxy       *FaultProxy
	metricsAddr string
}

// The work queue's series as both controllers serve them.
const (
	syncsSeries = `workqueue_work_duration_seconds_count{name="daemonset"}`
	depthSeries = `workqueue_depth{name="daemonset"}`
)

func startPacer(proxy *FaultProxy, metricsAddr string) *pacer {
	p := &pacer{done: make(chan struct{}), out: make(chan [2]map[string]int, 1), proxy: proxy, metricsAddr: metricsAddr}
	go func() {
		first := proxy.Requests()
		last := sum(first)
		// A second's syncs are a difference of two reads: unread when
		// either failed.
		lastSyncs, lastErr := scrapeCounter(metricsAddr, syncsSeries)
		pace := map[string]int{}
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				now := sum(proxy.Requests())
				syncs, err1 := scrapeCounter(metricsAddr, syncsSeries)
				depth, err2 := scrapeCounter(metricsAddr, depthSeries)
				pace[paceOf(now-last, syncs-lastSyncs, depth, lastErr != nil || err1 != nil || err2 != nil)]++
				last, lastSyncs, lastErr = now, syncs, err1
			case <-p.done:
				diff := map[string]int{}
				for k, n := range proxy.Requests() {
					if d := n - first[k]; d > 0 {
						diff[k] = d
					}
				}
				p.out <- [2]map[string]int{diff, pace}
				return
			}
		}
	}()
	return p
}

// paceOf names a second of the rollouts by the requests the controller
// sent in it, the syncs it finished in it and the keys left queued at its
// end (depth); unread when its metrics could not be read.
func paceOf(requests, syncs, depth int, unread bool) string {
	switch {
	case requests == 0 && unread:
		return "seconds with 0: metrics not read"
	case requests == 0 && syncs > 0:
		return "seconds with 0: syncs ran"
	case requests == 0 && depth > 0:
		return "seconds with 0: queued, no sync done"
	case requests == 0:
		return "seconds with 0: nothing queued"
	case requests < 10:
		return "seconds with 1-9"
	case requests < 18:
		return "seconds with 10-17"
	default:
		return "seconds with 18+"
	}
}

// stop returns the requests since the start, by kind, and the seconds by
// requests sent in them.
func (p *pacer) stop() (requests, pace map[string]int) {
	close(p.done)
	r := <-p.out
	return r[0], r[1]
}

// sum adds up the counts of m.
func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// merge returns a copy of a with b's entries set in it (b's count wins on a
// key both have).
func merge(a, b map[string]int) map[string]int {
	out := maps.Clone(a)
	if out == nil {
		out = map[string]int{}
	}
	maps.Copy(out, b)
	return out
}

// eventCounts counts the Event objects of the test namespace by reason,
// and sums their counts by "reason count": which Events each controller
// repeats, which its request counts do not tell.
func eventCounts(t *testing.T, b *Bed) map[string]int {
	t.Helper()
	list, err := b.Client.CoreV1().Events(namespace).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Errorf("events: %v", err)
		return nil
	}
	out := map[string]int{}
	for _, e := range list.Items {
		out[e.Reason]++
		out[e.Reason+" count"] += int(max(e.Count, 1))
	}
	return out
}

// heartbeatPeriod is how often each node's conditions are reported
// again. A kubelet computes its node's status every 10 s and, with node
// leases, writes it when it changed or every 5 minutes; the run reports
// every minute, five times the kubelet's steady rate, so that a short
// window holds many heartbeats, and 1/60 of the nodes per second is what
// kube-apiserver on two shared cores keeps up with beside the rest
// (about 17 patches a second at 1,000 nodes, 83 at 5,000).
const heartbeatPeriod = time.Minute

// scalePlan is what TestScale does, the same under both controllers.
type scalePlan struct {
	nodes      []string
	index      map[string]int
	daemonSets []*appsv1.DaemonSet
	// rolled are the DaemonSets rolled out at once after the window,
	// with their new image.
	rolled []string
	steady time.Duration
	// labelNodes change zone and tier, taintNodes get the maintenance
	// taint and lose it again, churnNodes lose one pod, in the window.
	labelNodes, taintNodes, churnNodes []string
}

func newScalePlan(n int, steady time.Duration) *scalePlan {
	p := &scalePlan{index: map[string]int{}, steady: steady, rolled: []string{"ds-02", "ds-03", "ds-04"}}
	for i := range n {
		name := fmt.Sprintf("node-%05d", i)
		p.nodes = append(p.nodes, name)
		p.index[name] = i
		// The three sets are apart: 7 and 17 mod 50 are 7 mod 10, 11 mod
		// 20 is 1 mod 10, so that a node's pods are churned only where
		// its labels and taints stay.
		switch {
		case i%50 == 7:
			p.labelNodes = append(p.labelNodes, name)
		case i%50 == 17:
			p.taintNodes = append(p.taintNodes, name)
		case i%20 == 11:
			p.churnNodes = append(p.churnNodes, name)
		}
	}
	p.daemonSets = scaleDaemonSets()
	return p
}

// scaleLabels are node i's labels at its creation: zone z0-z2 (i mod 3),
// tier b on a quarter of the nodes (a elsewhere), pool p00-p19 (i mod
// 20), gpu on a tenth, disk ssd on two fifths (hdd elsewhere).
func scaleLabels(i int) map[string]string {
	l := map[string]string{
		"zone": fmt.Sprintf("z%d", i%3),
		"tier": "a",
		"pool": fmt.Sprintf("p%02d", i%20),
		"disk": "hdd",
	}
	if i%4 == 0 {
		l["tier"] = "b"
	}
	if i%10 == 0 {
		l["gpu"] = "true"
	}
	if i%5 < 2 {
		l["disk"] = "ssd"
	}
	return l
}

const maintenanceTaint = "maintenance"

// scaleDaemonSets are the 20 DaemonSets, ds-00 to ds-19, each of image
// agent:v1 at first: an agent on every node that tolerates every taint
// (a CNI's); agents on a zone, the gpu nodes, a zone's ssd nodes, the
// tier b nodes; and 14 agents of one pool each. Selectors are a
// nodeSelector or a required node affinity (In, NotIn, DoesNotExist);
// strategies RollingUpdate with maxUnavailable 1, 10%, 20% or 25%, with
// maxSurge (1 or 10%, maxUnavailable 0), and OnDelete; a few tolerate the
// maintenance taint.
func scaleDaemonSets() []*appsv1.DaemonSet {
	unavailable := func(v intstr.IntOrString) func(*appsv1.DaemonSet) {
		return func(ds *appsv1.DaemonSet) { ds.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = &v }
	}
	surge := func(v intstr.IntOrString) func(*appsv1.DaemonSet) {
		return func(ds *appsv1.DaemonSet) {
			zero := intstr.FromInt32(0)
			ds.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = &zero
			ds.Spec.UpdateStrategy.RollingUpdate.MaxSurge = &v
		}
	}
	onDelete := func(ds *appsv1.DaemonSet) {
		ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
	}
	selector := func(kv ...string) func(*appsv1.DaemonSet) {
		return func(ds *appsv1.DaemonSet) {
			ds.Spec.Template.Spec.NodeSelector = map[string]string{}
			for i := 0; i < len(kv); i += 2 {
				ds.Spec.Template.Spec.NodeSelector[kv[i]] = kv[i+1]
			}
		}
	}
	affinity := func(reqs ...corev1.NodeSelectorRequirement) func(*appsv1.DaemonSet) {
		return func(ds *appsv1.DaemonSet) {
			ds.Spec.Template.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
					NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: reqs}},
				},
			}}
		}
	}
	req := func(key string, op corev1.NodeSelectorOperator, values ...string) corev1.NodeSelectorRequirement {
		return corev1.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
	}
	tolerateAll := func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
	}
	tolerateMaintenance := func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Spec.Tolerations = []corev1.Toleration{{Key: maintenanceTaint, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
	}
	changes := [][]func(*appsv1.DaemonSet){
		{tolerateAll, unavailable(intstr.FromString("10%"))},
		{selector("zone", "z0"), unavailable(intstr.FromString("10%"))},
		{selector("gpu", "true"), unavailable(intstr.FromString("25%"))},
		{affinity(req("disk", corev1.NodeSelectorOpIn, "ssd"), req("zone", corev1.NodeSelectorOpIn, "z1")), surge(intstr.FromString("10%"))},
		{selector("tier", "b"), unavailable(intstr.FromString("20%")), tolerateMaintenance},
		{affinity(req("tier", corev1.NodeSelectorOpIn, "b"), req("zone", corev1.NodeSelectorOpIn, "z2")), onDelete},
	}
	for k := range 14 {
		pool := fmt.Sprintf("p%02d", k)
		switch k % 4 {
		case 0:
			changes = append(changes, []func(*appsv1.DaemonSet){selector("pool", pool)})
		case 1:
			changes = append(changes, []func(*appsv1.DaemonSet){
				affinity(req("pool", corev1.NodeSelectorOpIn, pool), req("gpu", corev1.NodeSelectorOpDoesNotExist)),
				unavailable(intstr.FromString("10%")), tolerateMaintenance,
			})
		case 2:
			changes = append(changes, []func(*appsv1.DaemonSet){selector("pool", pool), surge(intstr.FromInt32(1))})
		default:
			changes = append(changes, []func(*appsv1.DaemonSet){
				affinity(req("pool", corev1.NodeSelectorOpIn, pool), req("zone", corev1.NodeSelectorOpNotIn, "z2")), onDelete,
			})
		}
	}
	var out []*appsv1.DaemonSet
	for i, cs := range changes {
		ds := daemonSet(fmt.Sprintf("ds-%02d", i), "agent:v1")
		for _, c := range cs {
			c(ds)
		}
		out = append(out, ds)
	}
	return out
}

// expectedPods counts the pods the DaemonSets run at the start, by the
// plan's own reading of their selectors (for the log only: the runs are
// judged by the controllers' statuses and by each other).
func (p *scalePlan) expectedPods() int {
	n := 0
	for i := range p.nodes {
		l := scaleLabels(i)
		for _, ds := range p.daemonSets {
			ok := true
			for k, v := range ds.Spec.Template.Spec.NodeSelector {
				ok = ok && l[k] == v
			}
			if a := ds.Spec.Template.Spec.Affinity; a != nil {
				for _, r := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchExpressions {
					v, has := l[r.Key]
					switch r.Operator {
					case corev1.NodeSelectorOpIn:
						ok = ok && has && v == r.Values[0]
					case corev1.NodeSelectorOpNotIn:
						ok = ok && !(has && v == r.Values[0])
					case corev1.NodeSelectorOpDoesNotExist:
						ok = ok && !has
					}
				}
			}
			if ok {
				n++
			}
		}
	}
	return n
}

// scaleRun is what one controller did in TestScale.
type scaleRun struct {
	Final scaleFinal
	// Create and Settle are how long the DaemonSets took to converge
	// after their creation and after the steady window.
	Create, Settle time.Duration
	// Rollouts is each rolled DaemonSet's time to converge.
	Rollouts map[string]time.Duration
	// CPU is the process's CPU time in all; PhaseCPU per phase.
	CPU      time.Duration
	PhaseCPU map[string]time.Duration
	// PeakRSS is the most VmHWM seen, SteadyRSS the median VmRSS in the
	// steady window, in bytes.
	PeakRSS, SteadyRSS int64
	// Requests are the proxy's counts, by "verb resource".
	Requests map[string]int
	// RolloutRequests are the requests sent while the rollouts ran, and
	// RolloutPace how many of the rollouts' seconds saw how many requests
	// ("seconds with 0: ...", "... 1-9", "... 10-17", "... 18+": the
	// client's rate is 20 a second; pacer), so a slower rollout shows
	// whether the controller sent more, or idled, and why.
	RolloutRequests map[string]int
	RolloutPace     map[string]int
	// Phases are the syncs and writes of each phase, by
	// "phase: what" (phaseCounter).
	Phases map[string]int
	// Heartbeats counts the node status patches sent (and skipped when
	// the server fell behind).
	Heartbeats, HeartbeatsSkipped int64
	// Events are the Event objects of the namespace at the end, by
	// "reason" (objects) and "reason count" (the sum of their counts:
	// each repeat the recorder folded into an object is a patch).
	Events map[string]int
}

// scaleFinal is the state a run ends in: the pods, revisions and the
// first DaemonSet's status as every scenario compares them, and every
// DaemonSet's status.
type scaleFinal struct {
	Final    Final
	Statuses map[string]appsv1.DaemonSetStatus
}

// scalePhases name the phases of the CPU figures, in order.
var scalePhases = []string{"create", "steady", "rollout"}

func runScale(t *testing.T, kind controllerKind, plan *scalePlan) *scaleRun {
	var bin string
	var err error
	if kind == daemonplanKind {
		bin, err = BuildExample(binDir)
	} else {
		bin, err = BuildUpstream(binDir)
	}
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	b := startBed(t, fmt.Sprintf("scale-%d-%s", len(plan.nodes), kind), Options{PodReadyDelay: time.Second})
	s := &scen{t: t, b: b, ctx: ctx}
	start := time.Now()
	s.createNodes(plan.nodes, func(name string) map[string]string { return scaleLabels(plan.index[name]) })
	t.Logf("%s: %d nodes created in %v", kind, len(plan.nodes), time.Since(start).Round(time.Millisecond))
	hb, err := startHeartbeats(b, plan.nodes)
	if err != nil {
		t.Fatal(err)
	}
	defer hb.stop()
	rec, err := Record(b.Client, namespace, plan.nodes)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Stop()
	for _, ds := range plan.daemonSets {
		if _, err := b.Client.AppsV1().DaemonSets(namespace).Create(ctx, ds, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	proxy, err := StartFaultProxy(b, "controller", 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	// Both serve their metrics, for the syncs by phase (the work queue's
	// workqueue_work_duration_seconds_count, as kube-controller-manager
	// exports it).
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	metricsAddr := fmt.Sprintf("127.0.0.1:%d", port)
	args := []string{"--kubeconfig", proxy.Kubeconfig, "--metrics-bind-address", metricsAddr}
	var prof *profiler
	if kind == daemonplanKind {
		args = append(args, "--namespace", namespace)
		if dir := os.Getenv("TESTBED_SCALE_PROFILE"); dir != "" {
			prof = &profiler{dir: dir, addr: metricsAddr}
			args = append(args, "--profiling")
		}
	}
	ctrl, err := startProgram(filepath.Join(b.Dir, "controller.log"), bin, args...)
	if err != nil {
		t.Fatal(err)
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
	sampler := startSampler(ctrl.PID())
	defer sampler.stop()
	if prof != nil {
		prof.start(t, "create")
		defer prof.stop()
	}
	run := &scaleRun{Rollouts: map[string]time.Duration{}}
	phases := &phaseCounter{proxy: proxy, metricsAddr: metricsAddr}
	n := len(plan.nodes)
	// Generous: on an overloaded machine kwok, in the test process, was
	// seen to fall minutes behind in making pods Ready (a 10-minute window
	// at 1,000 nodes under load 20-24: 455 of 1,000 pods not Ready after
	// 7.5 minutes).
	converge := 10*time.Minute + time.Duration(n)*300*time.Millisecond

	// Created: every DaemonSet converged.
	images := map[string]string{}
	for _, ds := range plan.daemonSets {
		images[ds.Name] = "agent:v1"
	}
	start = time.Now()
	if _, err := rec.Wait(converge, allConverged(images)); err != nil {
		t.Fatalf("%s: create: %v\n%s", kind, err, notConverged(rec.state(), images))
	}
	run.Create = time.Since(start)
	sampler.mark("create")
	phases.mark(t, "create")
	t.Logf("%s: created, every DaemonSet converged in %v", kind, run.Create.Round(time.Millisecond))

	// The steady window.
	sampler.mark("steady start")
	prof.phase("steady")
	plan.window(s)
	sampler.mark("steady")
	start = time.Now()
	time.Sleep(3 * time.Second) // the window's last changes reach the watch
	if _, err := rec.Wait(converge, allConverged(images)); err != nil {
		t.Fatalf("%s: after the steady window: %v\n%s", kind, err, notConverged(rec.state(), images))
	}
	run.Settle = time.Since(start)
	t.Logf("%s: steady window over, every DaemonSet converged %v after", kind, run.Settle.Round(time.Millisecond))

	// Three rollouts at once.
	sampler.mark("rollout start")
	phases.mark(t, "steady")
	prof.phase("rollout")
	started := map[string]time.Time{}
	for _, name := range plan.rolled {
		images[name] = "agent:v2"
		updateDaemonSetImage(t, b, name, "agent:v2")
		started[name] = time.Now()
	}
	pace := startPacer(proxy, metricsAddr)
	var mu sync.Mutex
	_, err = rec.Wait(converge, func(st State) bool {
		mu.Lock()
		defer mu.Unlock()
		for _, name := range plan.rolled {
			if _, done := run.Rollouts[name]; !done && dsConverged(st, name, "agent:v2", podsByApp(st)) {
				run.Rollouts[name] = time.Since(started[name])
			}
		}
		return len(run.Rollouts) == len(plan.rolled)
	})
	if err != nil {
		t.Fatalf("%s: rollouts: %v\n%s", kind, err, notConverged(rec.state(), images))
	}
	run.RolloutRequests, run.RolloutPace = pace.stop()
	t.Logf("%s: rollouts converged in %v; requests while they ran: %s; seconds by requests sent in them: %s",
		kind, run.Rollouts, FormatCounts(run.RolloutRequests), FormatCounts(run.RolloutPace))
	if _, err := rec.Wait(converge, allConverged(images)); err != nil {
		t.Fatalf("%s: after the rollouts: %v\n%s", kind, err, notConverged(rec.state(), images))
	}
	sampler.mark("rollout")
	// Let late writes land before the final state is read.
	time.Sleep(2 * time.Second)
	phases.mark(t, "rollout")
	run.Final = scaleFinalState(t, b, plan)
	run.Events = eventCounts(t, b)
	hb.stop()
	run.Heartbeats, run.HeartbeatsSkipped = hb.sent.Load(), hb.skipped.Load()
	sampler.stop()
	prof.stop()
	stop()
	run.CPU = ctrl.CPU
	run.PhaseCPU = map[string]time.Duration{
		"create":  sampler.cpuAt("create"),
		"steady":  sampler.cpuAt("steady") - sampler.cpuAt("steady start"),
		"rollout": sampler.cpuAt("rollout") - sampler.cpuAt("rollout start"),
	}
	run.PeakRSS, run.SteadyRSS = sampler.peak(), sampler.medianRSS("steady start", "steady")
	run.Requests = proxy.Requests()
	run.Phases = phases.counts
	t.Logf("%s: syncs and writes by phase: %s", kind, FormatCounts(run.Phases))
	t.Logf("%s: CPU %.1f s (create %.1f s, steady %.1f s, rollout %.1f s), peak RSS %.0f MiB, steady RSS %.0f MiB", kind,
		run.CPU.Seconds(), run.PhaseCPU["create"].Seconds(), run.PhaseCPU["steady"].Seconds(), run.PhaseCPU["rollout"].Seconds(),
		float64(run.PeakRSS)/(1<<20), float64(run.SteadyRSS)/(1<<20))
	t.Logf("%s: %d heartbeats sent, %d skipped (the server behind)", kind, run.Heartbeats, run.HeartbeatsSkipped)
	return run
}

// phaseCounter counts a controller's syncs and writes by phase: create
// (until every DaemonSet converged), steady (the window and the settling
// after it) and rollout (from the image updates to the end), so that a
// difference in the run's totals shows where it arose.
type phaseCounter struct {
	proxy       *FaultProxy
	metricsAddr string
	// last are the totals at the last mark.
	last   map[string]int
	counts map[string]int
}

// mark ends the phase named phase: what the controller did since the
// last mark is that phase's.
func (c *phaseCounter) mark(t *testing.T, phase string) {
	now := map[string]int{}
	syncs, err := scrapeCounter(c.metricsAddr, syncsSeries)
	if err != nil {
		t.Errorf("%s: syncs: %v", phase, err)
	}
	now["syncs"] = syncs
	r := c.proxy.Requests()
	now["status writes"] = r["update daemonsets/status"]
	now["Event writes"], now["writes but Events"] = writeCount(r, true), writeCount(r, false)
	if c.counts == nil {
		c.counts = map[string]int{}
	}
	for k, n := range now {
		c.counts[phase+": "+k] = n - c.last[k]
	}
	c.last = now
}

// scrapeCounter reads the sample named series (name and labels as
// Prometheus' text format prints them) from the metrics served at addr.
func scrapeCounter(addr, series string) (int, error) {
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	n, err := sample(string(body), series)
	if err != nil {
		return 0, fmt.Errorf("%s: %v", addr, err)
	}
	return n, nil
}

// sample reads the value of series from metrics in Prometheus' text
// format (a counter's value, large ones printed as 1.2e+06 too).
func sample(metrics, series string) (int, error) {
	for line := range strings.Lines(metrics) {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				return 0, fmt.Errorf("%s: %v", series, err)
			}
			return int(f), nil
		}
	}
	return 0, fmt.Errorf("%s: not in the metrics", series)
}

// window runs the steady window's changes at evenly spread moments: each
// label node's zone moves to the next and its tier flips (pods of the
// DaemonSets that selected it go, others come); each taint node gets the
// NoSchedule maintenance taint and loses it a quarter window later (no
// pod changes: NoSchedule lets running pods be); each churn node loses
// one of its pods (the k-th by DaemonSet name), which its controller
// creates again. The taint, label and churn nodes are apart, so the end
// state does not depend on the order the controller takes the changes in.
func (p *scalePlan) window(s *scen) {
	type change struct {
		at time.Duration
		do func()
	}
	var cs []change
	w := p.steady
	spread := func(nodes []string, from, span float64, do func(string)) {
		for j, node := range nodes {
			at := time.Duration(float64(w) * (from + span*(float64(j)+0.5)/float64(len(nodes))))
			cs = append(cs, change{at, func() { do(node) }})
		}
	}
	spread(p.labelNodes, 0, 1, func(node string) {
		i := p.index[node]
		s.updateNode(node, func(n *corev1.Node) {
			n.Labels["zone"] = fmt.Sprintf("z%d", (i+1)%3)
			if n.Labels["tier"] == "a" {
				n.Labels["tier"] = "b"
			} else {
				n.Labels["tier"] = "a"
			}
		})
	})
	spread(p.taintNodes, 0, 0.7, func(node string) {
		s.updateNode(node, func(n *corev1.Node) {
			n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: maintenanceTaint, Value: "true", Effect: corev1.TaintEffectNoSchedule})
		})
	})
	spread(p.taintNodes, 0.25, 0.7, func(node string) {
		s.updateNode(node, func(n *corev1.Node) {
			var kept []corev1.Taint
			for _, t := range n.Spec.Taints {
				if t.Key != maintenanceTaint {
					kept = append(kept, t)
				}
			}
			n.Spec.Taints = kept
		})
	})
	spread(p.churnNodes, 0, 1, func(node string) {
		pods, err := s.b.Client.CoreV1().Pods(namespace).List(s.ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("spec.nodeName", node).String()})
		if err != nil {
			s.t.Fatal(err)
		}
		if len(pods.Items) == 0 {
			s.t.Fatalf("churn: no pod on %s", node)
		}
		sort.Slice(pods.Items, func(a, b int) bool { return pods.Items[a].Labels["app"] < pods.Items[b].Labels["app"] })
		pod := pods.Items[(p.index[node]/20)%len(pods.Items)]
		if err := s.b.Client.CoreV1().Pods(namespace).Delete(s.ctx, pod.Name, metav1.DeleteOptions{}); err != nil {
			s.t.Fatal(err)
		}
	})
	sort.SliceStable(cs, func(a, b int) bool { return cs[a].at < cs[b].at })
	start := time.Now()
	for _, c := range cs {
		time.Sleep(time.Until(start.Add(c.at)))
		c.do()
	}
	time.Sleep(time.Until(start.Add(w)))
}

func updateDaemonSetImage(t *testing.T, b *Bed, name, image string) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		ds, err := b.Client.AppsV1().DaemonSets(namespace).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		ds.Spec.Template.Spec.Containers[0].Image = image
		_, err = b.Client.AppsV1().DaemonSets(namespace).Update(context.Background(), ds, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func podsByApp(st State) map[string][]*corev1.Pod {
	out := map[string][]*corev1.Pod{}
	for _, p := range st.Pods {
		out[p.Labels["app"]] = append(out[p.Labels["app"]], p)
	}
	return out
}

// dsConverged says whether the DaemonSet name runs one ready pod of
// image on as many nodes as its status desires, no other pod, and its
// status says so for its generation.
func dsConverged(st State, name, image string, byApp map[string][]*corev1.Pod) bool {
	ds := st.DaemonSets[name]
	if ds == nil {
		return false
	}
	s := ds.Status
	d := s.DesiredNumberScheduled
	if s.ObservedGeneration != ds.Generation || d == 0 || s.CurrentNumberScheduled != d || s.UpdatedNumberScheduled != d ||
		s.NumberReady != d || s.NumberAvailable != d || s.NumberUnavailable != 0 || s.NumberMisscheduled != 0 {
		return false
	}
	pods := byApp[name]
	if len(pods) != int(d) {
		return false
	}
	nodes := map[string]bool{}
	for _, p := range pods {
		if p.DeletionTimestamp != nil || !isReady(p) || p.Spec.Containers[0].Image != image || nodes[p.Spec.NodeName] {
			return false
		}
		nodes[p.Spec.NodeName] = true
	}
	return true
}

// allConverged says whether every DaemonSet of images converged to its
// image.
func allConverged(images map[string]string) func(State) bool {
	return func(st State) bool {
		byApp := podsByApp(st)
		for name, image := range images {
			if !dsConverged(st, name, image, byApp) {
				return false
			}
		}
		return true
	}
}

// notConverged lists the DaemonSets that did not converge, with their
// status, for a failure's message.
func notConverged(st State, images map[string]string) string {
	byApp := podsByApp(st)
	var out []string
	for name, image := range images {
		if ds := st.DaemonSets[name]; ds != nil && !dsConverged(st, name, image, byApp) {
			s := ds.Status
			out = append(out, fmt.Sprintf("%s gen=%d observed=%d desired=%d current=%d updated=%d ready=%d available=%d unavailable=%d misscheduled=%d pods=%d",
				name, ds.Generation, s.ObservedGeneration, s.DesiredNumberScheduled, s.CurrentNumberScheduled, s.UpdatedNumberScheduled,
				s.NumberReady, s.NumberAvailable, s.NumberUnavailable, s.NumberMisscheduled, len(byApp[name])))
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

func scaleFinalState(t *testing.T, b *Bed, plan *scalePlan) scaleFinal {
	t.Helper()
	f := scaleFinal{Final: finalState(t, b, plan.daemonSets[0].Name), Statuses: map[string]appsv1.DaemonSetStatus{}}
	dss, err := b.Client.AppsV1().DaemonSets(namespace).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ds := range dss.Items {
		f.Statuses[ds.Name] = ds.Status
	}
	return f
}

// heartbeats patch every node's conditions' lastHeartbeatTime, each node
// once per heartbeatPeriod, evenly spread, as kubelets do; a patch whose
// moment comes while a second's worth wait for one of 8 senders is
// skipped and counted.
type heartbeats struct {
	cancel        context.CancelFunc
	done          chan struct{}
	once          sync.Once
	sent, skipped atomic.Int64
}

func startHeartbeats(b *Bed, nodes []string) (*heartbeats, error) {
	cfg := rest.CopyConfig(b.Config)
	cfg.UserAgent = "testbed-kubelet"
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &heartbeats{cancel: cancel, done: make(chan struct{})}
	// The condition types are kwok's, read from a node it made Ready.
	var condTypes []corev1.NodeConditionType
	deadline := time.Now().Add(time.Minute)
	for len(condTypes) == 0 {
		n, err := client.CoreV1().Nodes().Get(ctx, nodes[len(nodes)-1], metav1.GetOptions{})
		if err != nil {
			cancel()
			return nil, err
		}
		for _, c := range n.Status.Conditions {
			condTypes = append(condTypes, c.Type)
		}
		if len(condTypes) == 0 {
			if time.Now().After(deadline) {
				cancel()
				return nil, fmt.Errorf("heartbeats: node %s has no conditions a minute after its creation", n.Name)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	work := make(chan string, max(1, len(nodes)/int(heartbeatPeriod/time.Second)))
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for node := range work {
				now := metav1.Now()
				var conds []map[string]any
				for _, t := range condTypes {
					conds = append(conds, map[string]any{"type": t, "lastHeartbeatTime": now})
				}
				patch, _ := json.Marshal(map[string]any{"status": map[string]any{"conditions": conds}})
				if _, err := client.CoreV1().Nodes().Patch(ctx, node, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status"); err == nil {
					h.sent.Add(1)
				}
			}
		})
	}
	go func() {
		defer close(h.done)
		defer wg.Wait()
		defer close(work)
		tick := time.NewTicker(heartbeatPeriod / time.Duration(len(nodes)))
		defer tick.Stop()
		for i := 0; ; i = (i + 1) % len(nodes) {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			select {
			case work <- nodes[i]:
			default:
				h.skipped.Add(1)
			}
		}
	}()
	return h, nil
}

func (h *heartbeats) stop() {
	h.once.Do(func() {
		h.cancel()
		<-h.done
	})
}

// sampler reads a process's /proc status every second: VmRSS, VmHWM and
// its CPU time (utime + stime of /proc/PID/stat, in the kernel's 100
// ticks a second), and at each mark.
type sampler struct {
	pid     int
	mu      sync.Mutex
	samples []procSample
	marks   map[string]procSample
	cancel  context.CancelFunc
	done    chan struct{}
	once    sync.Once
}

type procSample struct {
	at       time.Time
	rss, hwm int64 // bytes
	cpu      time.Duration
	ok       bool
}

func startSampler(pid int) *sampler {
	ctx, cancel := context.WithCancel(context.Background())
	s := &sampler{pid: pid, marks: map[string]procSample{}, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			s.sample()
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return s
}

func (s *sampler) sample() procSample {
	p := readProc(s.pid)
	if p.ok {
		s.mu.Lock()
		s.samples = append(s.samples, p)
		s.mu.Unlock()
	}
	return p
}

func (s *sampler) mark(name string) {
	p := s.sample()
	s.mu.Lock()
	s.marks[name] = p
	s.mu.Unlock()
}

func (s *sampler) stop() {
	s.once.Do(func() {
		s.cancel()
		<-s.done
	})
}

func (s *sampler) cpuAt(mark string) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.marks[mark].cpu
}

func (s *sampler) peak() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var m int64
	for _, p := range s.samples {
		m = max(m, p.hwm)
	}
	return m
}

// medianRSS is the median VmRSS of the samples between two marks.
func (s *sampler) medianRSS(from, to string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, b := s.marks[from].at, s.marks[to].at
	var rss []int64
	for _, p := range s.samples {
		if !p.at.Before(a) && !p.at.After(b) {
			rss = append(rss, p.rss)
		}
	}
	if len(rss) == 0 {
		return 0
	}
	sort.Slice(rss, func(i, j int) bool { return rss[i] < rss[j] })
	return rss[len(rss)/2]
}

func readProc(pid int) procSample {
	p := procSample{at: time.Now()}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return p
	}
	for _, line := range strings.Split(string(status), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || (k != "VmRSS" && k != "VmHWM") {
			continue
		}
		f := strings.Fields(v) // "123456 kB"
		if len(f) != 2 || f[1] != "kB" {
			continue
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			continue
		}
		if k == "VmRSS" {
			p.rss = n << 10
		} else {
			p.hwm = n << 10
		}
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return p
	}
	// The fields after the command's closing parenthesis, from field 3:
	// utime and stime are fields 14 and 15.
	_, rest, ok := strings.Cut(string(stat), ") ")
	f := strings.Fields(rest)
	if !ok || len(f) < 13 {
		return p
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return p
	}
	p.cpu = time.Duration(utime+stime) * 10 * time.Millisecond
	p.ok = true
	return p
}

// byVerb sums requests by their verb.
func byVerb(requests map[string]int) map[string]int {
	out := map[string]int{}
	for k, n := range requests {
		verb, _, _ := strings.Cut(k, " ")
		out[verb] += n
	}
	return out
}

// writeCount sums the writes of requests (by "verb resource"): those to
// Events when events, all others otherwise.
func writeCount(requests map[string]int, events bool) int {
	n := 0
	for k, c := range requests {
		verb, res, _ := strings.Cut(k, " ")
		if verb != "get" && verb != "list" && verb != "watch" && (res == "events") == events {
			n += c
		}
	}
	return n
}

// scaleTable is the two runs side by side with the ratio daemonplan /
// upstream.
func scaleTable(plan *scalePlan, up, dp *scaleRun) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "\tupstream\tdaemonplan\tdaemonplan / upstream")
	ratio := func(u, d float64) string {
		if u == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f", d/u)
	}
	sec := func(name string, u, d time.Duration) {
		fmt.Fprintf(w, "%s\t%.1f s\t%.1f s\t%s\n", name, u.Seconds(), d.Seconds(), ratio(u.Seconds(), d.Seconds()))
	}
	sec("CPU, whole run", up.CPU, dp.CPU)
	for _, ph := range scalePhases {
		sec("CPU, "+ph, up.PhaseCPU[ph], dp.PhaseCPU[ph])
	}
	mib := func(name string, u, d int64) {
		fmt.Fprintf(w, "%s\t%.0f MiB\t%.0f MiB\t%s\n", name, float64(u)/(1<<20), float64(d)/(1<<20), ratio(float64(u), float64(d)))
	}
	mib("peak RSS (VmHWM)", up.PeakRSS, dp.PeakRSS)
	mib("steady RSS (median VmRSS)", up.SteadyRSS, dp.SteadyRSS)
	count := func(name string, u, d int) {
		fmt.Fprintf(w, "%s\t%d\t%d\t%s\n", name, u, d, ratio(float64(u), float64(d)))
	}
	uv, dv := byVerb(up.Requests), byVerb(dp.Requests)
	verbs := map[string]bool{}
	for v := range uv {
		verbs[v] = true
	}
	for v := range dv {
		verbs[v] = true
	}
	var vs []string
	for v := range verbs {
		vs = append(vs, v)
	}
	sort.Strings(vs)
	tu, td := 0, 0
	for _, v := range vs {
		count("requests: "+v, uv[v], dv[v])
		tu, td = tu+uv[v], td+dv[v]
	}
	count("requests in all", tu, td)
	count("writes in all", writeCount(up.Requests, false)+writeCount(up.Requests, true), writeCount(dp.Requests, false)+writeCount(dp.Requests, true))
	count("writes but Events", writeCount(up.Requests, false), writeCount(dp.Requests, false))
	count("status writes (update daemonsets/status)", up.Requests["update daemonsets/status"], dp.Requests["update daemonsets/status"])
	count("Event writes", writeCount(up.Requests, true), writeCount(dp.Requests, true))
	sec("create: all converged", up.Create, dp.Create)
	sec("after the window: all converged", up.Settle, dp.Settle)
	for _, name := range plan.rolled {
		sec("rollout "+name+": converged", up.Rollouts[name], dp.Rollouts[name])
	}
	w.Flush()
	return b.String()
}

// requestTable is every "verb resource" either controller sent.
func requestTable(up, dp *scaleRun) string {
	return countTable("request", up.Requests, dp.Requests)
}

// countTable lays out two runs' counts by key, sorted, under the column
// head what.
func countTable(what string, up, dp map[string]int) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "%s\tupstream\tdaemonplan\n", what)
	keys := map[string]bool{}
	for k := range up {
		keys[k] = true
	}
	for k := range dp {
		keys[k] = true
	}
	var ks []string
	for k := range keys {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	for _, k := range ks {
		fmt.Fprintf(w, "%s\t%d\t%d\n", k, up[k], dp[k])
	}
	w.Flush()
	return b.String()
}

// TestRequestKind checks the proxy's names for requests against the
// audit log's verbs and resources for the requests controllers send.
func TestRequestKind(t *testing.T) {
	for _, c := range []struct {
		name, method, url, want string
	}{
		{"a list is a GET of a collection", "GET", "/api/v1/namespaces/default/pods?limit=500", "list pods"},
		{"across namespaces too", "GET", "/api/v1/nodes", "list nodes"},
		{"a watch is a GET with watch=true", "GET", "/apis/apps/v1/daemonsets?watch=true&resourceVersion=1", "watch daemonsets"},
		{"watch=1 too", "GET", "/api/v1/pods?watch=1", "watch pods"},
		{"a get names the object", "GET", "/apis/apps/v1/namespaces/default/daemonsets/agent", "get daemonsets"},
		{"a status write is an update of the subresource", "PUT", "/apis/apps/v1/namespaces/default/daemonsets/agent/status", "update daemonsets/status"},
		{"a pod's creation", "POST", "/api/v1/namespaces/default/pods", "create pods"},
		{"a binding is the pod's subresource", "POST", "/api/v1/namespaces/default/pods/p/binding", "create pods/binding"},
		{"an Event's patch", "PATCH", "/apis/events.k8s.io/v1/namespaces/default/events/e", "patch events"},
		{"a delete names the object", "DELETE", "/api/v1/namespaces/default/pods/p", "delete pods"},
		{"a delete of a collection", "DELETE", "/api/v1/namespaces/default/pods", "deletecollection pods"},
		{"a namespace is a resource of its own", "GET", "/api/v1/namespaces/default", "get namespaces"},
		{"the namespaces listed", "GET", "/api/v1/namespaces", "list namespaces"},
		{"no resource: the path", "GET", "/apis", "get /apis"},
		{"discovery of a group version: the path", "GET", "/apis/apps/v1", "get /apis/apps/v1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, err := http.NewRequest(c.method, "http://127.0.0.1"+c.url, nil)
			if err != nil {
				t.Fatal(err)
			}
			verb, resource := requestKind(req)
			if got := verb + " " + resource; got != c.want {
				t.Errorf("%s %s: %q, want %q", c.method, c.url, got, c.want)
			}
		})
	}
}

// TestPaceOf names the rollouts' seconds as TestScale counts them: by
// the requests sent (the client's rate is 20 a second), and a second
// without one by what the controller did in it.
func TestPaceOf(t *testing.T) {
	for _, c := range []struct {
		name                   string
		requests, syncs, depth int
		unread                 bool
		want                   string
	}{
		{"no request, syncs that wrote nothing", 0, 3, 0, false, "seconds with 0: syncs ran"},
		{"no request, keys queued but no sync done", 0, 0, 2, false, "seconds with 0: queued, no sync done"},
		{"no request, waiting for an event", 0, 0, 0, false, "seconds with 0: nothing queued"},
		{"no request and no metrics: not guessed", 0, 3, 0, true, "seconds with 0: metrics not read"},
		{"a few requests", 9, 1, 0, false, "seconds with 1-9"},
		{"under the client's rate", 17, 0, 0, false, "seconds with 10-17"},
		{"at the client's rate, metrics or not", 20, 0, 0, true, "seconds with 18+"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := paceOf(c.requests, c.syncs, c.depth, c.unread); got != c.want {
				t.Errorf("paceOf(%d, %d, %d, %v) = %q, want %q", c.requests, c.syncs, c.depth, c.unread, got, c.want)
			}
		})
	}
}

// TestSample reads the syncs TestScale counts by phase as both
// controllers serve them.
func TestSample(t *testing.T) {
	const series = syncsSeries
	metrics := `# TYPE workqueue_work_duration_seconds histogram
workqueue_work_duration_seconds_bucket{name="daemonset",le="+Inf"} 1234
workqueue_work_duration_seconds_count{name="daemonset-other"} 7
workqueue_work_duration_seconds_count{name="daemonset"} 1234
workqueue_work_duration_seconds_sum{name="daemonset"} 5.5
`
	for _, c := range []struct {
		name, metrics string
		want          int
		err           bool
	}{
		{"the series, not a bucket or another queue's", metrics, 1234, false},
		{"a large count is printed with an exponent", series + " 1.234567e+06\n", 1234567, false},
		{"the last line without a newline", series + " 3", 3, false},
		{"not served: an error, not 0", "workqueue_depth{name=\"daemonset\"} 0\n", 0, true},
		{"not a number", series + " many\n", 0, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := sample(c.metrics, series)
			if (err != nil) != c.err || got != c.want {
				t.Errorf("sample: %d, %v; want %d, error %v", got, err, c.want, c.err)
			}
		})
	}
}

// TestReadProc reads this test process's own figures, which must be there
// and plausible: a Go test binary holds some MiB and has run for a while.
func TestReadProc(t *testing.T) {
	p := readProc(os.Getpid())
	if !p.ok || p.rss < 1<<20 || p.hwm < p.rss || p.cpu <= 0 {
		t.Errorf("readProc of this process: %+v", p)
	}
	if p := readProc(-1); p.ok {
		t.Errorf("readProc of no process: %+v, want not ok", p)
	}
}

// profiler takes the example controller's CPU profiles back to back, 15 s
// each, into dir as cpu-NNN-PHASE.pprof (the phase the profile began in),
// and its heap profile as each phase ends (heap-PHASE.pprof), from the
// controller's --profiling endpoint: TESTBED_SCALE_PROFILE=DIR. Merge a
// phase's profiles with go tool pprof -proto dir/cpu-*-create.pprof.
type profiler struct {
	dir, addr string
	t         *testing.T
	mu        sync.Mutex
	current   string
	done      chan struct{}
	wg        sync.WaitGroup
	once      sync.Once
}

func (p *profiler) start(t *testing.T, phase string) {
	p.t, p.current, p.done = t, phase, make(chan struct{})
	if err := os.MkdirAll(p.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p.wg.Go(func() {
		// The controller may not listen yet: a failed fetch is tried
		// again a second later, and logged once.
		logged := false
		for i := 0; ; {
			select {
			case <-p.done:
				return
			default:
			}
			p.mu.Lock()
			name := fmt.Sprintf("cpu-%03d-%s.pprof", i, p.current)
			p.mu.Unlock()
			if err := p.fetch("/debug/pprof/profile?seconds=15", name); err != nil {
				if !logged {
					t.Logf("profile %s: %v (trying again every second)", name, err)
					logged = true
				}
				time.Sleep(time.Second)
				continue
			}
			i++
		}
	})
}

// phase takes the heap profile of the phase that ends and names the next
// CPU profiles after phase; a nil profiler does nothing.
func (p *profiler) phase(phase string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	ended := p.current
	p.current = phase
	p.mu.Unlock()
	if err := p.fetch("/debug/pprof/heap", "heap-"+ended+".pprof"); err != nil {
		p.t.Logf("heap profile: %v", err)
	}
}

// stop takes the last heap profile and waits for the CPU profile under
// way; a nil profiler does nothing, and a second stop nothing more.
func (p *profiler) stop() {
	if p == nil {
		return
	}
	p.once.Do(func() {
		p.phase("end")
		close(p.done)
		p.wg.Wait()
	})
}

func (p *profiler) fetch(path, name string) error {
	resp, err := http.Get("http://" + p.addr + path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", path, resp.Status)
	}
	f, err := os.Create(filepath.Join(p.dir, name))
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
