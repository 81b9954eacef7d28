package testbed

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
)

var faultSeed = flag.Uint64("testbed.seed", 0, "seed of TestFaults and of TestProgressiveFaultsKill and TestProgressiveFaultsAPIServer (0: from the clock)")

// faultScenario is a rollout run under faults (TestFaults).
type faultScenario struct {
	name  string
	nodes []string
	ds    func(*appsv1.DaemonSet)
	// images are set one after the other under faults: the second, if
	// any, once a pod of the first is ready (a rollback).
	images []string
	// unavailable and perNode are the budget: the most nodes without an
	// available pod, the most pods on one node.
	unavailable, perNode int
}

// faultRun is what one controller did under the faults.
type faultRun struct {
	seed     uint64
	rate     float64
	faults   map[string]int // injected, by kind (FaultProxy.Counts, and kills)
	rollouts int
	survived int
	// writes are the controller's write requests by "verb resource
	// code", as kube-apiserver answered them (the audit log).
	writes                     map[string]int
	maxUnavailable, maxPerNode int
	violations                 []string
}

// Fault-suite timings: the faults last faultWindow per rollout; the
// controller is killed every 1 to 4 s of it (or the server is down for
// it for 1 to 2 s, one time in three), restarted 0 to 1 s later; and
// kube-apiserver itself is restarted once, 1 to 5 s into the window,
// etcd keeping the data.
const faultWindow = 12 * time.Second

// TestFaults runs rollouts under faults, under upstream's DaemonSet
// controller and under daemonplan's example controller, each as a
// program of its own on a fresh control plane, reaching kube-apiserver
// through a FaultProxy: a random 10-30 % of its writes fail (500, 429
// with Retry-After, 409, timeouts after the write), its watches are
// closed every 1 to 6 s, the server is down for it (every request 503,
// every watch closed) now and then, the controller is killed (SIGKILL)
// and restarted again and again, and kube-apiserver is restarted once per
// rollout (Bed.RestartAPIServer: the same port, certificates and etcd). Then the faults stop and the
// rollout must converge. Checked from watches, while it runs: never more
// pods on a node than the budget, never more nodes unavailable than
// maxUnavailable (or than upstream under the same faults), no revision a
// pod uses and not the newest deleted; at the end: the objects the
// DaemonSet does not control (decoys with its labels, owned by another
// controller) never written. The seed is logged; -testbed.seed repeats
// it (the rates and draws; the interleaving of goroutines varies).
func TestFaults(t *testing.T) {
	seed := *faultSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (go test -run TestFaults -testbed.seed %d)", seed, seed)
	four, six := nodeNames(0, 4), nodeNames(0, 6)
	scenarios := []faultScenario{
		{
			name: "faults-maxunavailable-2", nodes: six, images: []string{"agent:v2"}, unavailable: 2, perNode: 1,
			ds: func(ds *appsv1.DaemonSet) { ds.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = intOrString(2) },
		},
		{
			name: "faults-surge", nodes: four, images: []string{"agent:v2"}, unavailable: 0, perNode: 2,
			ds: func(ds *appsv1.DaemonSet) {
				ds.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{MaxSurge: intOrString(1), MaxUnavailable: intOrString(0)}
			},
		},
		{name: "faults-rollback", nodes: four, images: []string{"agent:v2", "agent:v1"}, unavailable: 1, perNode: 1},
	}
	all := map[controllerKind]*faultRun{upstreamKind: {faults: map[string]int{}, writes: map[string]int{}}, daemonplanKind: {faults: map[string]int{}, writes: map[string]int{}}}
	for i, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			runs := map[controllerKind]*faultRun{}
			for _, kind := range []controllerKind{upstreamKind, daemonplanKind} {
				t.Run(string(kind), func(t *testing.T) {
					runs[kind] = runFaults(t, kind, sc, seed+uint64(i))
				})
			}
			up, dp := runs[upstreamKind], runs[daemonplanKind]
			if up == nil || dp == nil {
				t.Fatal("a run did not finish")
			}
			for _, v := range up.violations {
				t.Logf("upstream (the anchor, not failed): %s", v)
			}
			for _, v := range dp.violations {
				t.Errorf("daemonplan: %s", v)
			}
			if dp.maxUnavailable > max(sc.unavailable, up.maxUnavailable) {
				t.Errorf("daemonplan: %d nodes unavailable at once; the budget is %d, upstream's most under the same faults %d", dp.maxUnavailable, sc.unavailable, up.maxUnavailable)
			} else if up.maxUnavailable > sc.unavailable {
				t.Logf("upstream (the anchor, not failed): %d nodes unavailable at once; the budget is %d", up.maxUnavailable, sc.unavailable)
			}
			if dp.survived < dp.rollouts {
				t.Errorf("daemonplan: %d of %d rollouts converged after the faults", dp.survived, dp.rollouts)
			}
			t.Logf("%s: faults\n%s", sc.name, faultSummary(up, dp))
			for kind, r := range runs {
				a := all[kind]
				a.rollouts += r.rollouts
				a.survived += r.survived
				a.maxUnavailable = max(a.maxUnavailable, r.maxUnavailable)
				a.maxPerNode = max(a.maxPerNode, r.maxPerNode)
				a.violations = append(a.violations, r.violations...)
				for k, n := range r.faults {
					a.faults[k] += n
				}
				for k, n := range r.writes {
					a.writes[k] += n
				}
			}
		})
	}
	t.Logf("all fault scenarios, seed %d\n%s", seed, faultSummary(all[upstreamKind], all[daemonplanKind]))
}

// faultSummary is a table of two runs side by side.
func faultSummary(up, dp *faultRun) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "\tupstream\tdaemonplan")
	if up.rate > 0 {
		fmt.Fprintf(w, "write failure rate\t%.0f%%\t%.0f%%\n", 100*up.rate, 100*dp.rate)
	}
	keys := func(ms ...map[string]int) []string {
		set := map[string]bool{}
		for _, m := range ms {
			for k := range m {
				set[k] = true
			}
		}
		out := make([]string, 0, len(set))
		for k := range set {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	for _, k := range keys(up.faults, dp.faults) {
		fmt.Fprintf(w, "injected: %s\t%d\t%d\n", k, up.faults[k], dp.faults[k])
	}
	fmt.Fprintf(w, "rollouts converged after the faults\t%d/%d\t%d/%d\n", up.survived, up.rollouts, dp.survived, dp.rollouts)
	fmt.Fprintf(w, "most nodes unavailable\t%d\t%d\n", up.maxUnavailable, dp.maxUnavailable)
	fmt.Fprintf(w, "most pods on one node\t%d\t%d\n", up.maxPerNode, dp.maxPerNode)
	fmt.Fprintf(w, "violations\t%d\t%d\n", len(up.violations), len(dp.violations))
	total := func(r *faultRun, failed bool) int {
		n := 0
		for k, c := range r.writes {
			if strings.Contains(k, " events") {
				continue
			}
			code := k[strings.LastIndex(k, " ")+1:]
			if (code >= "400") == failed {
				n += c
			}
		}
		return n
	}
	fmt.Fprintf(w, "writes answered 2xx (no Events)\t%d\t%d\n", total(up, false), total(dp, false))
	fmt.Fprintf(w, "writes the server answered with an error (no Events)\t%d\t%d\n", total(up, true), total(dp, true))
	for _, k := range keys(up.writes, dp.writes) {
		if code := k[strings.LastIndex(k, " ")+1:]; code >= "400" && !strings.Contains(k, " events") {
			fmt.Fprintf(w, "  %s\t%d\t%d\n", k, up.writes[k], dp.writes[k])
		}
	}
	w.Flush()
	return b.String()
}

// decoys are objects with the DaemonSet's labels that it does not
// control: a pod and a revision owned by another controller, and a pod
// without its labels. No controller may write them.
func decoys() (pods []*corev1.Pod, revs []*appsv1.ControllerRevision) {
	yes := true
	other := []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "other", UID: "other-uid", Controller: &yes}}
	labels := map[string]string{"app": dsName}
	pod := func(name string, labels map[string]string, owners []metav1.OwnerReference) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: labels, OwnerReferences: owners},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "other:v1"}}},
		}
	}
	pods = []*corev1.Pod{
		pod("decoy-owned", labels, other),
		pod("decoy-unlabelled", map[string]string{"app": "other"}, nil),
	}
	revs = []*appsv1.ControllerRevision{{
		ObjectMeta: metav1.ObjectMeta{Name: "decoy-revision", Namespace: namespace, Labels: labels,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "other", UID: "other-uid", Controller: &yes}}},
		Data:     runtime.RawExtension{Raw: []byte(`{}`)},
		Revision: 99,
	}}
	return pods, revs
}

// notDecoy drops the decoys from s.
func notDecoy(s State) State {
	out := State{DaemonSets: s.DaemonSets}
	for _, p := range s.Pods {
		if !strings.HasPrefix(p.Name, "decoy-") {
			out.Pods = append(out.Pods, p)
		}
	}
	return out
}

func runFaults(t *testing.T, kind controllerKind, sc faultScenario, seed uint64) *faultRun {
	rng := rand.New(rand.NewPCG(seed, 1))
	run := &faultRun{seed: seed, rate: 0.10 + 0.20*rng.Float64(), faults: map[string]int{}}
	var mu sync.Mutex
	violate := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		run.violations = append(run.violations, fmt.Sprintf(format, args...))
	}
	b := startBed(t, sc.name+"-"+string(kind), Options{PodReadyDelay: time.Second})
	s := &scen{t: t, b: b, ctx: context.Background()}
	s.createNodes(sc.nodes, nil)
	decoyPods, decoyRevs := decoys()
	decoyRV := map[string]string{}
	for _, p := range decoyPods {
		out, err := b.Client.CoreV1().Pods(namespace).Create(s.ctx, p, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		decoyRV["pods/"+p.Name] = out.ResourceVersion
	}
	for _, r := range decoyRevs {
		out, err := b.Client.AppsV1().ControllerRevisions(namespace).Create(s.ctx, r, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		decoyRV["controllerrevisions/"+r.Name] = out.ResourceVersion
	}
	rec, err := Record(b.Client, namespace, sc.nodes)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Stop()
	s.rec = rec
	stopWatch := watchRevisions(t, s, violate)
	defer stopWatch()

	ds := daemonSet(dsName, "agent:v1")
	if sc.ds != nil {
		sc.ds(ds)
	}
	if _, err := b.Client.AppsV1().DaemonSets(namespace).Create(s.ctx, ds, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	proxy, err := StartFaultProxy(b, "controller", seed, run.rate)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	var bin string
	var args []string
	if kind == upstreamKind {
		bin, err = BuildUpstream(binDir)
		args = []string{"--kubeconfig", proxy.Kubeconfig}
	} else {
		bin, err = BuildExample(binDir)
		args = []string{"--kubeconfig", proxy.Kubeconfig, "--namespace", namespace, "--name", dsName}
	}
	if err != nil {
		t.Fatal(err)
	}
	starts := 0
	start := func() *Example {
		starts++
		e, err := startProgram(filepath.Join(b.Dir, fmt.Sprintf("controller-%d.log", starts)), bin, args...)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	ctrl := start()
	defer func() { ctrl.Stop() }()
	dump := func() { t.Logf("%s: what the watch saw:\n%s", kind, strings.Join(rec.Log, "\n")) }

	if _, err := rec.Wait(2*time.Minute, func(st State) bool { return converged("agent:v1", sc.nodes)(notDecoy(st)) }); err != nil {
		dump()
		t.Fatalf("create: %v", err)
	}
	kills, restarts := 0, 0
	for i, image := range sc.images {
		rec.Phase(fmt.Sprintf("rollout-%d", i+1))
		run.rollouts++
		proxy.SetFaults(true)
		s.wrote = write{}
		setImage(image)(s)
		if err := rec.WaitSeen(s.wrote.resource, s.wrote.rv, time.Minute); err != nil {
			t.Fatal(err)
		}
		// Chaos until the window ends (or, before a rollback, a pod of
		// the new image is ready).
		deadline := time.Now().Add(faultWindow)
		restartAt := time.Now().Add(time.Duration(1000+rng.IntN(4000)) * time.Millisecond)
		for time.Now().Before(deadline) {
			if i+1 < len(sc.images) && readyPod(notDecoy(rec.state()), "", image) != nil {
				break
			}
			time.Sleep(time.Duration(1000+rng.IntN(3000)) * time.Millisecond)
			if !restartAt.IsZero() && time.Now().After(restartAt) {
				restartAt = time.Time{}
				down, err := b.RestartAPIServer()
				if err != nil {
					t.Fatal(err)
				}
				restarts++
				t.Logf("kube-apiserver restarted, down %v", down.Round(time.Millisecond))
				deadline = deadline.Add(down) // the window is of faults, not of a server down
				continue
			}
			if rng.IntN(3) == 0 {
				proxy.Outage(time.Duration(1000+rng.IntN(1000)) * time.Millisecond)
				continue
			}
			ctrl.Kill()
			kills++
			time.Sleep(time.Duration(rng.IntN(1000)) * time.Millisecond)
			ctrl = start()
		}
	}
	proxy.SetFaults(false)
	last := sc.images[len(sc.images)-1]
	if _, err := rec.Wait(2*time.Minute, func(st State) bool { return converged(last, sc.nodes)(notDecoy(st)) }); err != nil {
		violate("the rollout to %s did not converge within 2 minutes after the faults stopped", last)
		dump()
	} else {
		run.survived = run.rollouts
	}
	time.Sleep(2 * time.Second) // late writes land
	if err := ctrl.Stop(); err != nil {
		t.Error(err)
	}
	stopWatch()

	// The decoys: never written, unchanged.
	agent := controllerAgent[kind]
	for key, rv := range decoyRV {
		resource, name, _ := strings.Cut(key, "/")
		w, err := b.WritesTo(agent, namespace, resource, name)
		if err != nil {
			t.Fatal(err)
		}
		if len(w) > 0 {
			violate("wrote %s, which the DaemonSet does not control: %v", key, w)
		}
		var now string
		if resource == "pods" {
			p, err := b.Client.CoreV1().Pods(namespace).Get(s.ctx, name, metav1.GetOptions{})
			if err == nil {
				now = p.ResourceVersion
			}
		} else {
			r, err := b.Client.AppsV1().ControllerRevisions(namespace).Get(s.ctx, name, metav1.GetOptions{})
			if err == nil {
				now = r.ResourceVersion
			}
		}
		if now != rv {
			violate("%s changed or gone: resourceVersion %s, was %s", key, now, rv)
		}
	}
	for phase, n := range rec.MaxUnavailable {
		if phase != "create" {
			run.maxUnavailable = max(run.maxUnavailable, n)
		}
	}
	for phase, n := range rec.MaxPodsPerNode {
		if phase != "create" {
			run.maxPerNode = max(run.maxPerNode, n)
		}
	}
	if run.maxPerNode > sc.perNode {
		violate("%d pods on one node at once; at most %d", run.maxPerNode, sc.perNode)
	}
	run.faults = proxy.Counts()
	run.faults["controller killed"] = kills
	run.faults["kube-apiserver restarted"] = restarts
	run.writes = s.writes(kind)
	t.Logf("%s: write failure rate %.0f%%, faults %s; writes %s", kind, 100*run.rate, FormatCounts(run.faults), FormatCounts(run.writes))
	if testing.Verbose() {
		dump()
	}
	return run
}

// watchRevisions checks every deletion of a ControllerRevision of the
// DaemonSet as it is seen: no pod that is not terminating may still use
// it, and it must not be the newest of the DaemonSet's revisions (the
// current one). Both are read from the API server at the event (quorum
// reads), so they are at least as new as the deletion.
func watchRevisions(t *testing.T, s *scen, violate func(string, ...any)) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	f := informers.NewSharedInformerFactoryWithOptions(s.b.Client, 0, informers.WithNamespace(namespace))
	inf := f.Apps().V1().ControllerRevisions().Informer()
	inf.AddEventHandler(cache.ResourceEventHandlerFuncs{DeleteFunc: func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		rev, ok := obj.(*appsv1.ControllerRevision)
		if !ok || strings.HasPrefix(rev.Name, "decoy-") {
			return
		}
		hash := rev.Labels[appsv1.ControllerRevisionHashLabelKey]
		pods, err := s.b.Client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return
		}
		for _, p := range pods.Items {
			if p.DeletionTimestamp == nil && hash != "" && p.Labels[appsv1.ControllerRevisionHashLabelKey] == hash && !strings.HasPrefix(p.Name, "decoy-") {
				violate("revision %s deleted while pod %s uses it", rev.Name, p.Name)
			}
		}
		revs, err := s.b.Client.AppsV1().ControllerRevisions(namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return
		}
		newest := true
		for _, r := range revs.Items {
			if ref := metav1.GetControllerOf(&r); ref != nil && ref.Kind == "DaemonSet" && ref.Name == dsName && r.Revision >= rev.Revision {
				newest = false
			}
		}
		if newest {
			violate("revision %s (number %d), the newest, deleted", rev.Name, rev.Revision)
		}
	}})
	f.Start(ctx.Done())
	f.WaitForCacheSync(ctx.Done())
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			f.Shutdown()
		})
	}
}
