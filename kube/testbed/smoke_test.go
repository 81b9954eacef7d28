package testbed

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"
)

var keep = flag.String("testbed.keep", "", "keep each control plane's files (logs, data) under this directory")

// binDir holds the example controller's binary for the whole run.
var binDir string

func TestMain(m *testing.M) {
	flag.Parse()
	// kube-apiserver and the controllers log through klog: to a file when
	// kept, else nowhere.
	klogFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(klogFlags)
	klogFlags.Set("logtostderr", "false")
	klogFlags.Set("alsologtostderr", "false")
	klogFlags.Set("stderrthreshold", "FATAL")
	var out io.Writer = io.Discard
	if *keep != "" {
		os.MkdirAll(*keep, 0o755)
		f, err := os.Create(filepath.Join(*keep, "klog.log"))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer f.Close()
		out = f
	}
	klog.SetOutput(out)
	var err error
	if binDir, err = os.MkdirTemp("", "testbed-bin-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(binDir)
	os.Exit(code)
}

// startBed starts a fresh control plane for the test and stops it at the
// test's end.
func startBed(t *testing.T, name string, opts Options) *Bed {
	t.Helper()
	if *keep != "" {
		opts.Dir = filepath.Join(*keep, name)
		os.RemoveAll(opts.Dir)
	}
	b, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: control plane ready in %v", name, b.Started.Round(time.Millisecond))
	t.Cleanup(func() {
		if err := b.Stop(); err != nil {
			t.Errorf("stopping the control plane: %v", err)
		}
	})
	return b
}

// controllerKind names the two controllers a scenario runs under.
type controllerKind string

const (
	upstreamKind   controllerKind = "upstream"
	daemonplanKind controllerKind = "daemonplan"
)

func startController(t *testing.T, kind controllerKind, b *Bed, namespace, name string) Controller {
	t.Helper()
	switch kind {
	case upstreamKind:
		c, err := StartUpstream(b.Config)
		if err != nil {
			t.Fatal(err)
		}
		return c
	default:
		bin, err := BuildExample(binDir)
		if err != nil {
			t.Fatal(err)
		}
		c, err := StartExample(bin, b, namespace, name, filepath.Join(b.Dir, "controller.log"))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
}

func createNodes(t *testing.T, b *Bed, names ...string) {
	t.Helper()
	for _, n := range names {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n, Labels: map[string]string{"type": "kwok", "kubernetes.io/hostname": n}}}
		if _, err := b.Client.CoreV1().Nodes().Create(context.Background(), node, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

func daemonSet(name, image string) *appsv1.DaemonSet {
	labels := map[string]string{"app": name}
	grace := int64(1)
	one := intstr.FromInt32(1)
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					Containers:                    []corev1.Container{{Name: name, Image: image}},
					TerminationGracePeriodSeconds: &grace,
				},
			},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{
				Type:          appsv1.RollingUpdateDaemonSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &one},
			},
		},
	}
}

// converged says whether the DaemonSet name runs, on each of nodes, one
// ready pod of image and nothing else, and its status says so for the
// current generation.
func converged(name, image string, nodes []string) func(State) bool {
	return func(s State) bool {
		ds := s.DaemonSets[name]
		if ds == nil {
			return false
		}
		st, n := ds.Status, int32(len(nodes))
		if st.ObservedGeneration != ds.Generation || st.DesiredNumberScheduled != n || st.CurrentNumberScheduled != n ||
			st.UpdatedNumberScheduled != n || st.NumberReady != n || st.NumberAvailable != n ||
			st.NumberUnavailable != 0 || st.NumberMisscheduled != 0 {
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

// Final is the state a scenario ends in, compared across controllers.
type Final struct {
	// PodsPerNode is node -> the revision hashes of its pods, sorted.
	PodsPerNode map[string][]string
	// Revisions are the ControllerRevisions: name and revision number.
	Revisions []string
	Status    appsv1.DaemonSetStatus
}

func finalState(t *testing.T, b *Bed, name string) Final {
	t.Helper()
	ctx := context.Background()
	f := Final{PodsPerNode: map[string][]string{}}
	pods, err := b.Client.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		f.PodsPerNode[p.Spec.NodeName] = append(f.PodsPerNode[p.Spec.NodeName], p.Labels[appsv1.ControllerRevisionHashLabelKey])
	}
	for _, hs := range f.PodsPerNode {
		sort.Strings(hs)
	}
	revs, err := b.Client.AppsV1().ControllerRevisions("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range revs.Items {
		f.Revisions = append(f.Revisions, fmt.Sprintf("%s=%d", r.Name, r.Revision))
	}
	sort.Strings(f.Revisions)
	ds, err := b.Client.AppsV1().DaemonSets("default").Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f.Status = ds.Status
	return f
}

// Run is what one controller did in a scenario.
type Run struct {
	Final    Final
	Phases   []string // phase: time to converge
	Recorder *Recorder
	Start    time.Duration
	// Writes counts the controller's writes by "verb resource code".
	Writes map[string]int
}

// controllerAgent is the client name (Bed.Writes) of each controller.
var controllerAgent = map[controllerKind]string{upstreamKind: "kube-controller-manager", daemonplanKind: "daemonplan-example-controller"}

// smoke runs the smoke scenario under one controller on a fresh control
// plane: three kwok nodes, a DaemonSet (maxUnavailable 1, pods ready 1s
// after binding, 1s grace period) until each node has a ready pod, then a
// new image until it converges again.
func smoke(t *testing.T, kind controllerKind) Run {
	if kind == daemonplanKind {
		start := time.Now()
		if _, err := BuildExample(binDir); err != nil {
			t.Fatal(err)
		}
		t.Logf("example controller built in %v", time.Since(start).Round(time.Millisecond))
	}
	b := startBed(t, "smoke-"+string(kind), Options{PodReadyDelay: time.Second})
	nodes := []string{"node-0", "node-1", "node-2"}
	createNodes(t, b, nodes...)
	rec, err := Record(b.Client, "default", nodes)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Stop()
	const name = "agent"
	ctx := context.Background()
	if _, err := b.Client.AppsV1().DaemonSets("default").Create(ctx, daemonSet(name, "agent:v1"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ctrl := startController(t, kind, b, "default", name)
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
	run := Run{Recorder: rec, Start: b.Started}
	dump := func() {
		t.Logf("%s: what the watch saw:\n%s", kind, strings.Join(rec.Log, "\n"))
	}
	took, err := rec.Wait(2*time.Minute, converged(name, "agent:v1", nodes))
	run.Phases = append(run.Phases, fmt.Sprintf("create: %v", took.Round(time.Millisecond)))
	if err != nil {
		dump()
		t.Fatalf("%s: create: %v", kind, err)
	}
	rec.Phase("rollout")
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		ds, err := b.Client.AppsV1().DaemonSets("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		ds.Spec.Template.Spec.Containers[0].Image = "agent:v2"
		_, err = b.Client.AppsV1().DaemonSets("default").Update(ctx, ds, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	took, err = rec.Wait(3*time.Minute, converged(name, "agent:v2", nodes))
	run.Phases = append(run.Phases, fmt.Sprintf("rollout: %v", took.Round(time.Millisecond)))
	if err != nil {
		dump()
		t.Fatalf("%s: rollout: %v", kind, err)
	}
	// Let late writes land before the final state is read.
	time.Sleep(2 * time.Second)
	run.Final = finalState(t, b, name)
	stop()
	if e, ok := ctrl.(*Example); ok {
		t.Logf("%s: controller process CPU %v", kind, e.CPU)
	}
	writes, err := b.Writes()
	if err != nil {
		t.Fatal(err)
	}
	run.Writes = writes[controllerAgent[kind]]
	if testing.Verbose() {
		dump()
	}
	return run
}

// TestSmoke runs the smoke scenario under the real DaemonSet controller
// and under daemonplan's example controller, each on a fresh control
// plane, and compares the final states; it reports, without failing, how
// the runs differ along the way.
func TestSmoke(t *testing.T) {
	runs := map[controllerKind]Run{}
	for _, kind := range []controllerKind{upstreamKind, daemonplanKind} {
		t.Run(string(kind), func(t *testing.T) {
			runs[kind] = smoke(t, kind)
		})
	}
	up, ok1 := runs[upstreamKind]
	dp, ok2 := runs[daemonplanKind]
	if !ok1 || !ok2 {
		t.Fatal("a run did not finish")
	}
	if d := cmp.Diff(up.Final, dp.Final); d != "" {
		t.Errorf("final state, upstream (-) vs daemonplan (+):\n%s", d)
	}
	for _, kind := range []controllerKind{upstreamKind, daemonplanKind} {
		r := runs[kind]
		t.Logf("%-10s control plane %v; converged %s; max unavailable %v; max pods per node %v; observedGeneration %v; DaemonSet updates seen %d",
			kind, r.Start.Round(time.Millisecond), strings.Join(r.Phases, ", "), r.Recorder.MaxUnavailable, r.Recorder.MaxPodsPerNode,
			r.Recorder.ObservedGenerations, r.Recorder.DaemonSetUpdates)
		t.Logf("%-10s writes: %s", kind, FormatCounts(r.Writes))
		for ds, seq := range r.Recorder.ObservedGenerations {
			for i := 1; i < len(seq); i++ {
				if seq[i] < seq[i-1] {
					t.Logf("%s: DaemonSet %s: status.observedGeneration went backwards: %v (issue 26, item 3)", kind, ds, seq)
					break
				}
			}
		}
		if r.Recorder.MaxUnavailable["rollout"] > 1 {
			t.Errorf("%s: %d nodes unavailable at once during the rollout; maxUnavailable is 1", kind, r.Recorder.MaxUnavailable["rollout"])
		}
	}
}
