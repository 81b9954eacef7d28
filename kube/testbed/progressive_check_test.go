package testbed

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"

	"github.com/daemonplan/daemonplan/kube/progressive"
)

// This file holds what the fault and lifecycle scenarios of `daemonplan
// rollout` (progressive_faults_test.go) share: the CLI run as a program,
// the bed (the real DaemonSet controller, an OnDelete DaemonSet, pods of
// other owners), the checker that judges every recorded moment, and the
// reference run under RollingUpdate that the final states are compared
// with.

// ---------------------------------------------------------------------
// The CLI as a program.

// syncBuf is a buffer several goroutines write.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// dpCLI runs `daemonplan` (kube/cmd/daemonplan, built from this checkout)
// as a user would: a process of its own, with a kubeconfig and -n.
type dpCLI struct {
	t          *testing.T
	bin        string
	kubeconfig string
	dir        string
	mu         sync.Mutex
	n          int
	// exits counts the processes by how they ended: "exit N" or "killed".
	exits map[string]int
	// errLines are the distinct error lines the processes printed, with
	// how often.
	errLines map[string]int
}

func newCLI(t *testing.T, kubeconfig, dir string) *dpCLI {
	t.Helper()
	start := time.Now()
	bin, err := BuildDaemonplan(binDir)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > time.Second {
		t.Logf("daemonplan CLI built in %v", took.Round(time.Millisecond))
	}
	return &dpCLI{t: t, bin: bin, kubeconfig: kubeconfig, dir: dir, exits: map[string]int{}, errLines: map[string]int{}}
}

// cliProc is one run of the CLI.
type cliProc struct {
	c     *dpCLI
	args  []string
	cmd   *exec.Cmd
	out   *syncBuf
	log   string
	done  chan struct{}
	start time.Time
	// code is the exit status, -1 when killed.
	code int
}

// killed is cliProc.code of a process killed by a signal.
const killed = -1

// start runs daemonplan with args, -n and --kubeconfig.
func (c *dpCLI) start(args ...string) *cliProc {
	c.t.Helper()
	c.mu.Lock()
	c.n++
	n := c.n
	c.mu.Unlock()
	full := append(slices.Clone(args), "-n", namespace, "--kubeconfig", c.kubeconfig)
	p := &cliProc{c: c, args: args, out: &syncBuf{}, done: make(chan struct{}), start: time.Now(),
		log: filepath.Join(c.dir, fmt.Sprintf("daemonplan-%02d.log", n))}
	p.cmd = exec.Command(c.bin, full...)
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	go func() {
		defer close(p.done)
		p.cmd.Wait()
		p.code = p.cmd.ProcessState.ExitCode()
		os.WriteFile(p.log, []byte(p.out.String()), 0o644)
		c.mu.Lock()
		defer c.mu.Unlock()
		if p.code == killed {
			c.exits["killed"]++
		} else {
			c.exits[fmt.Sprintf("exit %d", p.code)]++
		}
		for _, line := range strings.Split(p.out.String(), "\n") {
			if strings.HasPrefix(line, "daemonplan: ") {
				c.errLines[line]++
			}
		}
	}()
	return p
}

// run runs daemonplan to its end (at most timeout) and returns its exit
// status.
func (c *dpCLI) run(timeout time.Duration, args ...string) int {
	c.t.Helper()
	p := c.start(args...)
	code, ok := p.wait(timeout)
	if !ok {
		p.kill()
		c.t.Fatalf("daemonplan %s: still running after %v:\n%s", strings.Join(args, " "), timeout, p.out.String())
	}
	return code
}

// wait waits for the process to exit, at most timeout.
func (p *cliProc) wait(timeout time.Duration) (int, bool) {
	select {
	case <-p.done:
		return p.code, true
	case <-time.After(timeout):
		return 0, false
	}
}

// exited reports whether the process has ended.
func (p *cliProc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// kill sends SIGKILL (no cleanup, as an OOM kill or a lost node) and
// waits until the process is gone.
func (p *cliProc) kill() {
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// String is the command line and what it printed.
func (p *cliProc) String() string {
	return fmt.Sprintf("daemonplan %s (%v, %s):\n%s", strings.Join(p.args, " "), time.Since(p.start).Round(time.Millisecond), p.status(), p.out.String())
}

func (p *cliProc) status() string {
	switch {
	case !p.exited():
		return "running"
	case p.code == killed:
		return "killed"
	}
	return fmt.Sprintf("exit %d", p.code)
}

// summary renders how the processes ended and the errors they printed.
func (c *dpCLI) summary() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var lines []string
	for l, n := range c.errLines {
		lines = append(lines, fmt.Sprintf("  %d× %s", n, l))
	}
	sort.Strings(lines)
	s := fmt.Sprintf("%d daemonplan processes: %s", c.n, FormatCounts(c.exits))
	if len(lines) > 0 {
		s += "; errors printed:\n" + strings.Join(lines, "\n")
	}
	return s
}

// ---------------------------------------------------------------------
// The bed.

// zoneABC puts node-N in zone a, b or c by N's last digit mod 3.
func zoneABC(n string) string { return string("abc"[(int(n[len(n)-1])-'0')%3]) }

// pfBed is a control plane with the real DaemonSet controller, nodes in
// zones, the DaemonSet agent (agent:v1) and pods and a revision of other
// owners.
type pfBed struct {
	t     *testing.T
	b     *Bed
	s     *scen
	nodes []string
	// decoys are the pods of other owners, by name: decoy-other (another
	// owner's controller, labels the DaemonSet's selector does not match)
	// and decoy-owned (the DaemonSet's labels, another owner's
	// controller), each Running on a node.
	decoys map[string]types.UID
}

// startPFBed starts the bed: the DaemonSet on OnDelete, or on
// RollingUpdate with maxUnavailable (the reference run), until every
// node runs a ready pod of agent:v1 and the pods of other owners are
// ready. Pods are Ready 1 s after binding; the grace period is 1 s.
func startPFBed(t *testing.T, name string, nodes []string, rollingUpdate int) *pfBed {
	t.Helper()
	b := startBed(t, name, Options{PodReadyDelay: time.Second})
	s := &scen{t: t, b: b, ctx: context.Background()}
	s.createNodes(nodes, func(n string) map[string]string { return map[string]string{"topology.kubernetes.io/zone": zoneABC(n)} })
	pb := &pfBed{t: t, b: b, s: s, nodes: nodes, decoys: map[string]types.UID{}}
	ds := daemonSet(dsName, "agent:v1")
	if rollingUpdate > 0 {
		ds.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = intOrString(int32(rollingUpdate))
	} else {
		ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
	}
	if _, err := b.Client.AppsV1().DaemonSets(namespace).Create(s.ctx, ds, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	yes := true
	other := []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "other", UID: "other-uid", Controller: &yes}}
	grace := int64(1)
	for i, d := range []struct {
		name string
		app  string
	}{{"decoy-other", "other"}, {"decoy-owned", dsName}} {
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: d.name, Namespace: namespace, Labels: map[string]string{"app": d.app}, OwnerReferences: other},
			Spec: corev1.PodSpec{NodeName: nodes[i%len(nodes)], TerminationGracePeriodSeconds: &grace,
				Containers: []corev1.Container{{Name: "c", Image: "other:v1"}}},
		}
		out, err := b.Client.CoreV1().Pods(namespace).Create(s.ctx, p, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		pb.decoys[d.name] = out.UID
	}
	_, revs := decoys()
	for _, r := range revs {
		if _, err := b.Client.AppsV1().ControllerRevisions(namespace).Create(s.ctx, r, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	ctrl := startController(t, upstreamKind, b, namespace, dsName)
	t.Cleanup(func() {
		if err := ctrl.Stop(); err != nil {
			t.Error(err)
		}
	})
	if took, err := pb.waitConverged("agent:v1", nodes, 2*time.Minute); err != nil {
		t.Fatalf("create: %v", err)
	} else {
		t.Logf("%s: every node runs a ready agent:v1 %v after the DaemonSet's creation", name, took.Round(time.Millisecond))
	}
	return pb
}

// dsPods lists the pods the DaemonSet controls, and the others.
func (pb *pfBed) dsPods() (ours, others []corev1.Pod, ds *appsv1.DaemonSet) {
	pb.t.Helper()
	ctx := context.Background()
	ds, err := pb.b.Client.AppsV1().DaemonSets(namespace).Get(ctx, dsName, metav1.GetOptions{})
	if err != nil {
		pb.t.Fatal(err)
	}
	pods, err := pb.b.Client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		pb.t.Fatal(err)
	}
	for _, p := range pods.Items {
		if ref := metav1.GetControllerOf(&p); ref != nil && ref.UID == ds.UID {
			ours = append(ours, p)
		} else {
			others = append(others, p)
		}
	}
	return ours, others, ds
}

// waitConverged polls the server (each read at least as new as any write
// before it) until the DaemonSet's status has observed its generation
// and counts every one of nodes scheduled, updated, ready and available;
// each node runs one ready pod of image and no pod of the DaemonSet
// terminates; and the pods of other owners are Running.
func (pb *pfBed) waitConverged(image string, nodes []string, timeout time.Duration) (time.Duration, error) {
	start := time.Now()
	for {
		why := pb.converged(image, nodes)
		if why == "" {
			return time.Since(start), nil
		}
		if time.Since(start) > timeout {
			return time.Since(start), fmt.Errorf("not converged on %s after %v: %s", image, timeout, why)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func (pb *pfBed) converged(image string, nodes []string) string {
	ours, others, ds := pb.dsPods()
	st, n := ds.Status, int32(len(nodes))
	if st.ObservedGeneration != ds.Generation || st.DesiredNumberScheduled != n || st.CurrentNumberScheduled != n ||
		st.UpdatedNumberScheduled != n || st.NumberReady != n || st.NumberAvailable != n || st.NumberUnavailable != 0 || st.NumberMisscheduled != 0 {
		return fmt.Sprintf("status %+v at generation %d", st, ds.Generation)
	}
	perNode := map[string]int{}
	for _, p := range ours {
		if p.DeletionTimestamp != nil || !isReady(&p) || p.Spec.Containers[0].Image != image {
			return fmt.Sprintf("pod %s on %s: %s ready=%v terminating=%v", p.Name, p.Spec.NodeName, p.Spec.Containers[0].Image, isReady(&p), p.DeletionTimestamp != nil)
		}
		perNode[p.Spec.NodeName]++
	}
	for _, node := range nodes {
		if perNode[node] != 1 {
			return fmt.Sprintf("node %s runs %d pods", node, perNode[node])
		}
	}
	if len(ours) != len(nodes) {
		return fmt.Sprintf("%d pods on %d nodes", len(ours), len(nodes))
	}
	ready := 0
	for _, p := range others {
		if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
			ready++
		}
	}
	if ready != len(pb.decoys) {
		return fmt.Sprintf("%d of %d pods of other owners running", ready, len(pb.decoys))
	}
	return ""
}

// untouchedDecoys fails the test if a daemonplan client (the CLI's user
// agent, or the library driver's) wrote a pod or revision of another
// owner.
func (pb *pfBed) untouchedDecoys(clients ...string) {
	pb.t.Helper()
	for _, client := range clients {
		for _, key := range []string{"pods/decoy-other", "pods/decoy-owned", "controllerrevisions/decoy-revision"} {
			resource, name, _ := strings.Cut(key, "/")
			w, err := pb.b.WritesTo(client, namespace, resource, name)
			if err != nil {
				pb.t.Fatal(err)
			}
			if len(w) > 0 {
				pb.t.Errorf("%s wrote %s, which the DaemonSet does not control: %v", client, key, w)
			}
		}
	}
	ctx := context.Background()
	if _, err := pb.b.Client.AppsV1().ControllerRevisions(namespace).Get(ctx, "decoy-revision", metav1.GetOptions{}); err != nil {
		pb.t.Errorf("the revision of another owner: %v", err)
	}
}

// ---------------------------------------------------------------------
// The checker.

// checkSpec is what a rollout may do.
type checkSpec struct {
	// budget is maxUnavailable, resolved.
	budget int
	// canary is the most nodes one revision's canary may touch (0: the
	// policy has no canary, and no pod may be recorded in phase Canary
	// unless the rollout skips it).
	canary int
}

// rolloutChecker watches the namespace's pods and the DaemonSet and
// judges the rollout:
//
// At every moment the pod watch delivers (an event, or a relist taken as
// one moment, as the Recorder does): the nodes without a ready pod of
// the DaemonSet that is not terminating, less the nodes the test added
// that wait for their first pod, are at most the budget; the pods of
// other owners exist, unchanged in UID, not terminating.
//
// At the end (verify), every pod of the DaemonSet seen deleted or
// terminating (a "touch", at the resourceVersion of the write that
// deleted it: etcd's revisions order the pod and DaemonSet writes of one
// server) that the test did not delete itself must be explained by a
// version of the rollout annotation written before it that records the
// pod in flight; the first such version must be in phase Canary (the
// node then counts against the canary, per revision), in Zone Z with the
// node in Z, or Rest; not paused, done or aborted; and the pod must not
// be of the revision being rolled out. And no pod may be touched after a
// version that pauses, aborts or ends the rollout until a version lifts
// it, but a pod recorded in flight in the version just before (the
// window docs/progressive-live.md states: the step that recorded it may
// still issue it).
//
// The watches can miss versions only across a relist (kube-apiserver
// restarted): a touch with no record, after a relist of the DaemonSet
// began, is counted as unverified, not failed.
type rolloutChecker struct {
	mu    sync.Mutex
	t0    time.Time
	spec  checkSpec
	dsUID types.UID
	// nodes should run the DaemonSet's pod; added are nodes the test
	// added whose first pod is not ready yet; removed are nodes the test
	// deleted (their pods are the test's deletes).
	nodes, added, removed map[string]bool
	pods                  map[string]*corev1.Pod
	decoys                map[string]types.UID
	seenPods, seenDS      string
	dsListed, podsListed  bool
	gone                  map[types.UID]bool
	touches               []touch
	versions              []annVersion
	// gaps are the relists of the DaemonSet's watch and podGaps of the
	// pods' (after the first list): the versions and moments between
	// were not delivered; verify reads them from etcd.
	gaps    []gap
	podGaps []podGap
	// relists counts the gaps; replayed the moments and versions read
	// from etcd, from the revisions scanned.
	relists, replayedMoments, replayedVersions int
	scanned                                    []string
	lastRaw                                    string
	moments                                    int
	// maxUnavailable is the most nodes unavailable but those excused;
	// maxAll counts those too.
	maxUnavailable, maxAll int
	errs                   []string
	subs                   []chan struct{}
	cancel                 context.CancelFunc
}

// gap is a relist: the watch delivered from, then the list at to.
type gap struct{ from, to string }

// podGap is a relist of the pods, and the pods as they were at from.
type podGap struct {
	gap
	before map[string]*corev1.Pod
}

// touch is a pod of the DaemonSet seen deleted or terminating.
type touch struct {
	uid              types.UID
	pod, node, hash  string
	rv               string
	exact            bool
	at               time.Duration
	byTest, verified bool
}

// annVersion is one value of the rollout annotation, as the watch saw it.
type annVersion struct {
	rv  string
	raw string
	r   *progressive.Rollout
	at  time.Duration
}

func rvLess(a, b string) bool {
	n, err := resourceversion.CompareResourceVersion(a, b)
	return err == nil && n < 0
}

// watchRollout starts the checker; it returns once both watches listed.
func (pb *pfBed) watchRollout(spec checkSpec) *rolloutChecker {
	pb.t.Helper()
	_, _, ds := pb.dsPods()
	c := &rolloutChecker{t0: time.Now(), spec: spec, dsUID: ds.UID, nodes: map[string]bool{}, added: map[string]bool{}, removed: map[string]bool{},
		pods: map[string]*corev1.Pod{}, decoys: pb.decoys, gone: map[types.UID]bool{}}
	for _, n := range pb.nodes {
		c.nodes[n] = true
	}
	ctx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	client := pb.b.Client
	pods := &recordStore{apply: c.pod, replace: c.replacePods, listed: make(chan struct{})}
	dss := &recordStore{apply: c.ds, replace: c.replaceDS, listed: make(chan struct{})}
	byName := fields.OneTermEqualSelector("metadata.name", dsName).String()
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
			o.FieldSelector = byName
			return client.AppsV1().DaemonSets(namespace).List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.FieldSelector = byName
			return client.AppsV1().DaemonSets(namespace).Watch(ctx, o)
		},
	}
	go cache.NewReflector(podsLW, &corev1.Pod{}, pods, 0).RunWithContext(ctx)
	go cache.NewReflector(dssLW, &appsv1.DaemonSet{}, dss, 0).RunWithContext(ctx)
	for _, s := range []*recordStore{pods, dss} {
		select {
		case <-s.listed:
		case <-time.After(time.Minute):
			pb.t.Fatal("the checker's watches did not list within a minute")
		}
	}
	pb.t.Cleanup(cancel)
	return c
}

func (c *rolloutChecker) fail(format string, args ...any) {
	if len(c.errs) < 30 {
		c.errs = append(c.errs, fmt.Sprintf("%7.3fs ", time.Since(c.t0).Seconds())+fmt.Sprintf(format, args...))
	}
}

func (c *rolloutChecker) ours(p *corev1.Pod) bool {
	ref := metav1.GetControllerOf(p)
	return ref != nil && ref.UID == c.dsUID
}

func (c *rolloutChecker) touch(p *corev1.Pod, rv string, exact bool) {
	c.gone[p.UID] = true
	c.touches = append(c.touches, touch{uid: p.UID, pod: p.Name, node: p.Spec.NodeName, hash: p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey],
		rv: rv, exact: exact, at: time.Since(c.t0), byTest: c.removed[p.Spec.NodeName]})
}

func (c *rolloutChecker) pod(kind string, o any) {
	if d, ok := o.(cache.DeletedFinalStateUnknown); ok {
		o = d.Obj
	}
	p, ok := o.(*corev1.Pod)
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	see(&c.seenPods, p.ResourceVersion)
	if kind == "DEL" {
		delete(c.pods, p.Name)
	} else {
		c.pods[p.Name] = p
	}
	if c.ours(p) && !c.gone[p.UID] && (kind == "DEL" || p.DeletionTimestamp != nil) {
		c.touch(p, p.ResourceVersion, true)
	}
	c.measure(kind + " " + p.Name)
}

// replacePods takes a relist as one moment; the pods gone or terminating
// since are touches at the list's resourceVersion at the latest.
func (c *rolloutChecker) replacePods(list []any, rv string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.pods
	c.pods = map[string]*corev1.Pod{}
	for _, o := range list {
		if p, ok := o.(*corev1.Pod); ok {
			c.pods[p.Name] = p
		}
	}
	if c.podsListed {
		c.podGaps = append(c.podGaps, podGap{gap{c.seenPods, rv}, old})
		c.relists++
	}
	see(&c.seenPods, rv)
	if c.podsListed {
		for name, p := range old {
			now := c.pods[name]
			if c.ours(p) && !c.gone[p.UID] && (now == nil || now.UID != p.UID || now.DeletionTimestamp != nil) {
				c.touch(p, rv, false)
			}
		}
		for _, p := range c.pods {
			if c.ours(p) && !c.gone[p.UID] && p.DeletionTimestamp != nil {
				c.touch(p, rv, false)
			}
		}
	}
	c.podsListed = true
	c.measure("LIST at " + rv)
}

// measure judges the moment the pods are in now.
func (c *rolloutChecker) measure(what string) { c.measureState(c.pods, what) }

// measureState judges a moment the pods were in.
func (c *rolloutChecker) measureState(pods map[string]*corev1.Pod, what string) {
	c.moments++
	ready := map[string]bool{}
	for _, p := range pods {
		if c.ours(p) && p.DeletionTimestamp == nil && isReady(p) {
			ready[p.Spec.NodeName] = true
		}
	}
	all, excused := 0, 0
	var down []string
	for n := range c.nodes {
		switch {
		case ready[n]:
			delete(c.added, n)
		case c.added[n]:
			all++
			excused++
		default:
			all++
			down = append(down, n)
		}
	}
	c.maxAll = max(c.maxAll, all)
	c.maxUnavailable = max(c.maxUnavailable, all-excused)
	if all-excused > c.spec.budget {
		sort.Strings(down)
		c.fail("moment %d (%s): %d nodes unavailable %v, budget %d (and %d nodes added by the test waiting for their first pod)", c.moments, what, all-excused, down, c.spec.budget, excused)
	}
	for name, uid := range c.decoys {
		if p := pods[name]; p == nil || p.UID != uid || p.DeletionTimestamp != nil {
			c.fail("moment %d (%s): the pod %s of another owner is gone or terminating", c.moments, what, name)
		}
	}
}

func (c *rolloutChecker) ds(kind string, o any) {
	if d, ok := o.(cache.DeletedFinalStateUnknown); ok {
		o = d.Obj
	}
	ds, ok := o.(*appsv1.DaemonSet)
	if !ok || ds.Name != dsName {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	see(&c.seenDS, ds.ResourceVersion)
	raw := ds.Annotations[progressive.Annotation]
	if kind == "DEL" || raw == c.lastRaw {
		return
	}
	c.lastRaw = raw
	v := annVersion{rv: ds.ResourceVersion, raw: raw, at: time.Since(c.t0)}
	if raw != "" {
		r, err := progressive.Decode([]byte(raw))
		if err != nil {
			c.fail("the annotation at resourceVersion %s does not decode: %v", ds.ResourceVersion, err)
			return
		}
		v.r = r
	}
	var before map[types.UID]bool
	if n := len(c.versions); n > 0 && c.versions[n-1].r != nil {
		before = inFlight(c.versions[n-1].r)
	}
	c.versions = append(c.versions, v)
	if v.r != nil {
		for _, f := range v.r.Status.InFlight {
			if !before[f.UID] {
				for _, ch := range c.subs {
					close(ch)
				}
				c.subs = nil
				break
			}
		}
	}
}

func (c *rolloutChecker) replaceDS(list []any, rv string) {
	c.mu.Lock()
	if c.dsListed {
		c.gaps = append(c.gaps, gap{c.seenDS, rv})
		c.relists++
	}
	c.dsListed = true
	see(&c.seenDS, rv)
	c.mu.Unlock()
	for _, o := range list {
		c.ds("LIST", o)
	}
}

func inFlight(r *progressive.Rollout) map[types.UID]bool {
	out := map[types.UID]bool{}
	for _, f := range r.Status.InFlight {
		out[f.UID] = true
	}
	return out
}

// nextRecord is closed when the watch next sees a version of the
// annotation that records a pod in flight it did not record before: a
// driver wrote its decision and is about to delete, or deleting.
func (c *rolloutChecker) nextRecord() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan struct{})
	c.subs = append(c.subs, ch)
	return ch
}

// addNode and removeNode tell the checker of the test's node changes,
// before they are made.
func (c *rolloutChecker) addNode(n string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nodes[n], c.added[n] = true, true
}

func (c *rolloutChecker) removeNode(n string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.nodes, n)
	delete(c.added, n)
	c.removed[n] = true
}

// replay reads from etcd what the watches did not deliver across their
// relists (kube-apiserver restarted): every revision between the last
// resourceVersion a watch delivered and its relist's. Each state of the
// pods that differs from the one before is a moment, measured, and the
// pods it shows deleted or terminating are touches at that revision
// (exact, where the relist only bounded them); each version of the
// annotation is added to the versions. The gaps are then closed.
func (c *rolloutChecker) replay(b *Bed) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	podsKey := "/registry/pods/" + namespace + "/"
	for _, g := range c.podGaps {
		from, to, err := gapRevisions(g.gap)
		if err != nil {
			return err
		}
		c.scanned = append(c.scanned, fmt.Sprintf("pods %d-%d", from, to))
		var prevRaw map[string][]byte
		var prev map[string]*corev1.Pod
		for r := from; r <= to; r++ {
			raw, err := b.EtcdAt(podsKey, r)
			if err != nil {
				return err
			}
			if r > from && maps.EqualFunc(raw, prevRaw, bytes.Equal) {
				continue
			}
			state := map[string]*corev1.Pod{}
			for key, v := range raw {
				p, err := decodeStored[*corev1.Pod](v)
				if err != nil {
					return fmt.Errorf("%s at revision %d: %w", key, r, err)
				}
				state[p.Name] = p
			}
			if r > from {
				rv := strconv.FormatInt(r, 10)
				for name, p := range prev {
					now := state[name]
					if c.ours(p) && p.DeletionTimestamp == nil && (now == nil || now.UID != p.UID || now.DeletionTimestamp != nil) {
						c.exactTouch(p, rv)
					}
				}
				c.replayedMoments++
				c.measureState(state, fmt.Sprintf("etcd revision %d, between the pod watch's %s and its relist at %s", r, g.from, g.to))
			}
			prev, prevRaw = state, raw
		}
	}
	dsKey := "/registry/daemonsets/" + namespace + "/" + dsName
	var found []annVersion
	for _, g := range c.gaps {
		from, to, err := gapRevisions(g)
		if err != nil {
			return err
		}
		c.scanned = append(c.scanned, fmt.Sprintf("daemonset %d-%d", from, to))
		prevRaw := ""
		for r := from; r <= to; r++ {
			vals, err := b.EtcdAt(dsKey, r)
			if err != nil {
				return err
			}
			v, ok := vals[dsKey]
			if !ok {
				continue
			}
			ds, err := decodeStored[*appsv1.DaemonSet](v)
			if err != nil {
				return fmt.Errorf("%s at revision %d: %w", dsKey, r, err)
			}
			raw := ds.Annotations[progressive.Annotation]
			if r == from || raw == prevRaw {
				prevRaw = raw
				continue
			}
			prevRaw = raw
			av := annVersion{rv: strconv.FormatInt(r, 10), raw: raw}
			if raw != "" {
				if av.r, err = progressive.Decode([]byte(raw)); err != nil {
					return fmt.Errorf("%s at revision %d: the annotation: %w", dsKey, r, err)
				}
			}
			found = append(found, av)
			c.replayedVersions++
		}
	}
	all := append(c.versions, found...)
	slices.SortStableFunc(all, func(a, b annVersion) int {
		n, _ := resourceversion.CompareResourceVersion(a.rv, b.rv)
		return n
	})
	c.versions = c.versions[:0:0]
	for _, v := range all {
		if n := len(c.versions); n > 0 && (c.versions[n-1].rv == v.rv || c.versions[n-1].raw == v.raw) {
			continue
		}
		c.versions = append(c.versions, v)
	}
	c.gaps, c.podGaps = nil, nil
	return nil
}

// exactTouch makes the touch of p (a relist's, bounded) exact at rv, or
// adds it (a pod the relist never showed).
func (c *rolloutChecker) exactTouch(p *corev1.Pod, rv string) {
	for i := range c.touches {
		if c.touches[i].uid == p.UID {
			c.touches[i].rv, c.touches[i].exact = rv, true
			return
		}
	}
	c.touch(p, rv, true)
}

func gapRevisions(g gap) (int64, int64, error) {
	from, err := strconv.ParseInt(g.from, 10, 64)
	if err != nil {
		return 0, 0, err
	}
	to, err := strconv.ParseInt(g.to, 10, 64)
	return from, to, err
}

// decodeStored decodes an object as kube-apiserver stored it in etcd.
func decodeStored[T runtime.Object](v []byte) (T, error) {
	var zero T
	obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(v, nil, nil)
	if err != nil {
		return zero, err
	}
	out, ok := obj.(T)
	if !ok {
		return zero, fmt.Errorf("decoded a %T", obj)
	}
	return out, nil
}

// touched counts the pods of the DaemonSet touched so far (the test's
// deletes not counted).
func (c *rolloutChecker) touched() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, t := range c.touches {
		if !t.byTest {
			n++
		}
	}
	return n
}

// waitTouched waits until the watch has seen n touches.
func (c *rolloutChecker) waitTouched(t *testing.T, n int, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for c.touched() < n {
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %d pods of the DaemonSet to be deleted: %d after %v", n, c.touched(), timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// catchUp waits until both watches have delivered every write made
// before the call. A list's resourceVersion is the server's newest
// revision, which a watch of the namespace's pods need not reach (the
// newest write may be another resource's): the checker writes a pod of
// its own (never bound, deleted at once) and waits for its deletion, and
// waits for the DaemonSet's current resourceVersion.
func (c *rolloutChecker) catchUp(t *testing.T, client kubernetes.Interface) {
	t.Helper()
	ctx := context.Background()
	marker := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "checker-sync-", Namespace: namespace, Labels: map[string]string{"app": "checker-sync"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "none"}}},
	}
	p, err := client.CoreV1().Pods(namespace).Create(ctx, marker, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	zero := int64(0)
	if err := client.CoreV1().Pods(namespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatal(err)
	}
	ds, err := client.AppsV1().DaemonSets(namespace).Get(ctx, dsName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		c.mu.Lock()
		ok := !rvLess(c.seenPods, p.ResourceVersion) && c.pods[p.Name] == nil && !rvLess(c.seenDS, ds.ResourceVersion)
		c.mu.Unlock()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the checker's watches did not catch up within a minute")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// checkReport is what verify found.
type checkReport struct {
	moments, touches, explained, unverified, window, byTest int
	maxUnavailable, maxAll                                  int
	order                                                   string
	// windowed describes the deletes in the window.
	windowed []string
	// relists counts the watches' relists; replayedMoments and
	// replayedVersions the moments and annotation versions read from
	// etcd in between.
	relists, replayedMoments, replayedVersions int
	// scanned are the revisions read from etcd, per relist: "pods
	// FROM-TO" or "daemonset FROM-TO".
	scanned []string
}

func (r checkReport) String() string {
	replayed := ""
	if r.relists > 0 {
		replayed = fmt.Sprintf(" (%d of them read from etcd, and %d versions of the annotation: the watches relisted %d times; revisions read %s)", r.replayedMoments, r.replayedVersions, r.relists, strings.Join(r.scanned, ", "))
	}
	return fmt.Sprintf("%d moments checked%s; most nodes unavailable %d (%d with the nodes the test added); %d pods deleted by the rollout, %d explained by an in-flight record of the phase, %d unverified (a relist hid the annotation's versions), %d in the pause/abort window, %d deleted by the test; in order: %s",
		r.moments, replayed, r.maxUnavailable, r.maxAll, r.touches, r.explained, r.unverified, r.window, r.byTest, r.order)
}

// verify stops the checker, catches up, and fails the test on every
// violation (see rolloutChecker).
func (c *rolloutChecker) verify(t *testing.T, b *Bed, zone func(string) string) checkReport {
	client := b.Client
	t.Helper()
	c.catchUp(t, client)
	c.cancel()
	if b != nil {
		if err := c.replay(b); err != nil {
			t.Errorf("reading the states the watches missed from etcd: %v", err)
		}
	}
	rep, errs := c.judge(zone)
	for _, w := range rep.windowed {
		t.Log(w)
	}
	for _, e := range errs {
		t.Error(e)
	}
	return rep
}

// judge judges what the watches delivered (see rolloutChecker): the
// report, and every violation, those of the moments included.
func (c *rolloutChecker) judge(zone func(string) string) (checkReport, []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	rep := checkReport{moments: c.moments, maxUnavailable: c.maxUnavailable, maxAll: c.maxAll,
		replayedMoments: c.replayedMoments, replayedVersions: c.replayedVersions, relists: c.relists, scanned: c.scanned}
	slices.SortStableFunc(c.touches, func(a, b touch) int {
		n, _ := resourceversion.CompareResourceVersion(a.rv, b.rv)
		return n
	})
	canaries := map[string]map[string]bool{}
	var order []string
	for i := range c.touches {
		tc := &c.touches[i]
		if tc.byTest {
			rep.byTest++
			continue
		}
		rep.touches++
		order = append(order, fmt.Sprintf("%s/%s@%.1fs", tc.node, zone(tc.node), tc.at.Seconds()))
		var rec *annVersion
		for j := range c.versions {
			v := &c.versions[j]
			if v.r != nil && rvLess(v.rv, tc.rv) && inFlight(v.r)[tc.uid] {
				rec = v
				break
			}
		}
		if rec == nil {
			if slices.ContainsFunc(c.gaps, func(g gap) bool { return rvLess(g.from, tc.rv) }) {
				rep.unverified++
				continue
			}
			c.fail("pod %s on node %s deleted at resourceVersion %s, and no version of the annotation before recorded it in flight", tc.pod, tc.node, tc.rv)
			continue
		}
		tc.verified = true
		rep.explained++
		st := rec.r.Status
		where := fmt.Sprintf("pod %s on node %s (zone %s), recorded in flight at resourceVersion %s in phase %s %s", tc.pod, tc.node, zone(tc.node), rec.rv, st.Phase, st.Zone)
		switch {
		case st.Paused != nil:
			c.fail("%s: recorded while paused (%s)", where, st.Paused.Reason)
		case st.Phase == progressive.PhaseCanary:
			if canaries[st.Revision] == nil {
				canaries[st.Revision] = map[string]bool{}
			}
			canaries[st.Revision][tc.node] = true
			if n := len(canaries[st.Revision]); n > c.spec.canary {
				c.fail("%s: the %d-th node of revision %s's canary, the canary is %d", where, n, st.Revision, c.spec.canary)
			}
		case st.Phase == progressive.PhaseZone:
			if zone(tc.node) != st.Zone {
				c.fail("%s: outside the zone of the phase", where)
			}
		case st.Phase == progressive.PhaseRemaining:
		default:
			c.fail("%s: recorded in a phase that deletes nothing", where)
		}
		if tc.hash == st.Revision {
			c.fail("%s: the pod is of the revision being rolled out", where)
		}
	}
	rep.order = strings.Join(order, " ")
	// No touch while paused, aborted or done, but the window.
	stopped := func(v annVersion) bool {
		return v.r != nil && (v.r.Status.Paused != nil || v.r.Status.Phase == progressive.PhaseAborted || v.r.Status.Phase == progressive.PhaseDone)
	}
	for i := 0; i < len(c.versions); i++ {
		if !stopped(c.versions[i]) || (i > 0 && stopped(c.versions[i-1])) {
			continue
		}
		from := c.versions[i]
		var before map[types.UID]bool
		if i > 0 && c.versions[i-1].r != nil {
			before = inFlight(c.versions[i-1].r)
		}
		until := ""
		for j := i + 1; j < len(c.versions); j++ {
			if !stopped(c.versions[j]) {
				until = c.versions[j].rv
				break
			}
		}
		why := "done"
		switch {
		case from.r.Status.Paused != nil:
			why = "paused: " + from.r.Status.Paused.Reason
		case from.r.Status.Phase == progressive.PhaseAborted:
			why = "aborted"
		}
		for _, tc := range c.touches {
			if tc.byTest || !rvLess(from.rv, tc.rv) || (until != "" && !rvLess(tc.rv, until)) {
				continue
			}
			switch {
			case before[tc.uid]:
				rep.window++
				rep.windowed = append(rep.windowed, fmt.Sprintf("pod %s on node %s deleted at resourceVersion %s, after the rollout was %s at %s: recorded in flight before (the documented window)", tc.pod, tc.node, tc.rv, why, from.rv))
			case !tc.exact:
				rep.unverified++
			default:
				c.fail("pod %s on node %s deleted at resourceVersion %s, after the rollout was %s at resourceVersion %s", tc.pod, tc.node, tc.rv, why, from.rv)
			}
		}
	}
	return rep, slices.Clone(c.errs)
}

// phases lists the phases the annotation went through, for the log.
func (c *rolloutChecker) phases() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, v := range c.versions {
		if v.r == nil {
			continue
		}
		st := v.r.Status
		s := string(st.Phase)
		if st.Zone != "" {
			s += " " + st.Zone
		}
		if st.Paused != nil {
			s += " (paused by " + string(st.Paused.By) + ")"
		}
		if len(out) == 0 || out[len(out)-1] != s {
			out = append(out, s)
		}
	}
	return strings.Join(out, " → ")
}

// ---------------------------------------------------------------------
// The reference: the same DaemonSet under RollingUpdate.

var (
	referenceMu    sync.Mutex
	referenceFinal = map[string]Final{}
)

// nodeChurn is nodes the test adds and one it deletes in the middle of a
// rollout.
type nodeChurn struct {
	add    []string
	remove string
}

// after is the nodes once the churn is done.
func (ch *nodeChurn) after(nodes []string) []string {
	if ch == nil {
		return nodes
	}
	out := slices.DeleteFunc(slices.Clone(nodes), func(n string) bool { return n == ch.remove })
	return append(out, ch.add...)
}

// apply adds and deletes the nodes (the pods of the deleted node
// force-deleted, as the pod garbage collector would).
func (ch *nodeChurn) apply(s *scen) {
	s.createNodes(ch.add, func(n string) map[string]string { return map[string]string{"topology.kubernetes.io/zone": zoneABC(n)} })
	s.deleteNode(ch.remove)
}

// reference runs the scenario's DaemonSet on nodes under RollingUpdate
// (maxUnavailable budget) with the real controller: agent:v1, then each
// of images until it converges, with the churn, if any, once a pod of
// the last image is ready; it returns the final state. Runs are kept per
// process by nodes, budget, churn and images.
func reference(t *testing.T, nodes []string, budget int, churn *nodeChurn, images ...string) Final {
	t.Helper()
	key := fmt.Sprintf("%d %v %d %+v", len(nodes), images, budget, churn)
	referenceMu.Lock()
	defer referenceMu.Unlock()
	if f, ok := referenceFinal[key]; ok {
		return f
	}
	start := time.Now()
	var f Final
	ok := t.Run("rollingupdate-reference", func(t *testing.T) {
		// A subtest: its control plane stops when it ends.
		pb := startPFBed(t, fmt.Sprintf("rollingupdate-reference-%d", len(referenceFinal)), nodes, budget)
		for i, image := range images {
			pb.s.updateDaemonSet(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.Containers[0].Image = image })
			on := nodes
			if i == len(images)-1 && churn != nil {
				deadline := time.Now().Add(time.Minute)
				for !pb.anyReady(image) {
					if time.Now().After(deadline) {
						t.Fatalf("reference under RollingUpdate: no pod of %s ready after a minute", image)
					}
					time.Sleep(20 * time.Millisecond)
				}
				churn.apply(pb.s)
				on = churn.after(nodes)
			}
			if took, err := pb.waitConverged(image, on, 2*time.Minute); err != nil {
				t.Fatalf("reference under RollingUpdate: %v", err)
			} else {
				t.Logf("reference under RollingUpdate: %s converged in %v", image, took.Round(time.Millisecond))
			}
		}
		time.Sleep(time.Second) // late writes land
		f = finalState(t, pb.b, dsName)
	})
	if !ok {
		t.FailNow()
	}
	referenceFinal[key] = f
	what := ""
	if churn != nil {
		what = fmt.Sprintf(", nodes %v added and %s deleted in the last", churn.add, churn.remove)
	}
	t.Logf("reference under RollingUpdate (maxUnavailable %d, %d nodes, agent:v1 → %s%s) took %v", budget, len(nodes), strings.Join(images, " → "), what, time.Since(start).Round(time.Millisecond))
	return f
}

// anyReady reports whether a pod of the DaemonSet of image is ready.
func (pb *pfBed) anyReady(image string) bool {
	ours, _, _ := pb.dsPods()
	return slices.ContainsFunc(ours, func(p corev1.Pod) bool {
		return p.DeletionTimestamp == nil && isReady(&p) && p.Spec.Containers[0].Image == image
	})
}

// compareFinal compares the final state of a progressive rollout with
// the reference's: per node, each pod's revision hash, labels (the
// pod-template-generation label apart), controller, phase and spec; the
// ControllerRevisions (name and number); the DaemonSet's status. The
// pod-template-generation label is compared as counts when generations
// says each node went through the same templates (else only logged:
// after an abort and undo, the nodes the rollout never reached keep the
// pods of the first generation).
func compareFinal(t *testing.T, ref, got Final, generations bool) {
	t.Helper()
	r, g := ref, got
	r.Generations, g.Generations = nil, nil
	if d := cmp.Diff(r, g); d != "" {
		t.Errorf("final state, RollingUpdate by the real controller (-) vs the progressive rollout (+):\n%s", d)
	} else {
		t.Logf("final state equal to RollingUpdate's: %d nodes' pods (hash, labels, controller, phase, spec), revisions %v, status %+v", len(got.Pods), got.Revisions, got.Status)
	}
	if d := cmp.Diff(ref.Generations, got.Generations); d != "" {
		if generations {
			t.Errorf("pods by pod-template-generation, RollingUpdate (-) vs progressive (+):\n%s", d)
		} else {
			t.Logf("pods by pod-template-generation (not compared here): RollingUpdate %v, progressive %v", ref.Generations, got.Generations)
		}
	}
}

// TestRolloutChecker feeds the checker made-up watch events (no control
// plane) and checks that it fails each kind of violation and passes a
// rollout that keeps the rules: a check that cannot fail proves nothing.
func TestRolloutChecker(t *testing.T) {
	const dsUID = types.UID("ds-uid")
	yes := true
	pod := func(name, node string, uid types.UID, rv string, ready, terminating bool) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, UID: uid, ResourceVersion: rv,
			Labels:          map[string]string{appsv1.DefaultDaemonSetUniqueLabelKey: "old"},
			OwnerReferences: []metav1.OwnerReference{{Kind: "DaemonSet", Name: dsName, UID: dsUID, Controller: &yes}}},
			Spec: corev1.PodSpec{NodeName: node}}
		if ready {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
		}
		if terminating {
			now := metav1.Now()
			p.DeletionTimestamp = &now
		}
		return p
	}
	decoy := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "decoy-other", UID: "decoy-uid", ResourceVersion: "5"}, Spec: corev1.PodSpec{NodeName: "node-0"}}
	ds := func(rv string, phase progressive.Phase, zone string, paused bool, inFlight ...string) *appsv1.DaemonSet {
		r := progressive.Rollout{Status: progressive.RolloutState{Revision: "new", Phase: phase, Zone: zone}}
		if paused {
			r.Status.Paused = &progressive.PauseState{By: progressive.ByUser, Reason: "test"}
		}
		for _, name := range inFlight {
			r.Status.InFlight = append(r.Status.InFlight, progressive.InFlight{Pod: name, UID: types.UID("uid-" + name)})
		}
		doc, err := r.Encode()
		if err != nil {
			t.Fatal(err)
		}
		return &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: dsName, UID: dsUID, ResourceVersion: rv, Annotations: map[string]string{progressive.Annotation: doc}}}
	}
	// zone: node-0 and node-2 in a, node-1 in b.
	zone := func(n string) string { return map[string]string{"node-0": "a", "node-1": "b", "node-2": "a"}[n] }
	type event struct {
		kind string // ADD UPD DEL of a pod, DS a DaemonSet, DSLIST a relist of it
		pod  *corev1.Pod
		ds   *appsv1.DaemonSet
	}
	start := func(spec checkSpec) *rolloutChecker {
		c := &rolloutChecker{t0: time.Now(), spec: spec, dsUID: dsUID, nodes: map[string]bool{"node-0": true, "node-1": true, "node-2": true},
			added: map[string]bool{}, removed: map[string]bool{}, pods: map[string]*corev1.Pod{},
			decoys: map[string]types.UID{"decoy-other": "decoy-uid"}, gone: map[types.UID]bool{}, cancel: func() {}}
		c.replacePods([]any{decoy, pod("p0", "node-0", "uid-p0", "6", true, false), pod("p1", "node-1", "uid-p1", "7", true, false),
			pod("p2", "node-2", "uid-p2", "8", true, false)}, "10")
		c.replaceDS([]any{ds("10", progressive.PhaseCanary, "", false)}, "10")
		return c
	}
	for _, tc := range []struct {
		name   string
		spec   checkSpec
		events []event
		// want is a part of each violation expected, none when empty.
		want []string
		// window and unverified are the deletes expected so counted.
		window, unverified int
	}{
		{
			name: "keeps the rules", spec: checkSpec{budget: 1},
			events: []event{
				{kind: "DS", ds: ds("11", progressive.PhaseZone, "a", false, "p0")},
				{kind: "UPD", pod: pod("p0", "node-0", "uid-p0", "12", true, true)},
				{kind: "DEL", pod: pod("p0", "node-0", "uid-p0", "13", true, true)},
				{kind: "ADD", pod: pod("p0b", "node-0", "uid-p0b", "14", false, false)},
				{kind: "UPD", pod: pod("p0b", "node-0", "uid-p0b", "15", true, false)},
				{kind: "DS", ds: ds("16", progressive.PhaseZone, "a", false, "p2")},
				{kind: "DEL", pod: pod("p2", "node-2", "uid-p2", "17", true, true)},
			},
		},
		{
			name: "a delete no version recorded", spec: checkSpec{budget: 1},
			events: []event{{kind: "UPD", pod: pod("p1", "node-1", "uid-p1", "12", true, true)}},
			want:   []string{"no version of the annotation before recorded it"},
		},
		{
			name: "recorded after the delete", spec: checkSpec{budget: 1},
			events: []event{
				{kind: "UPD", pod: pod("p0", "node-0", "uid-p0", "12", true, true)},
				{kind: "DS", ds: ds("13", progressive.PhaseZone, "a", false, "p0")},
			},
			want: []string{"no version of the annotation before recorded it"},
		},
		{
			name: "a node outside the zone", spec: checkSpec{budget: 1},
			events: []event{
				{kind: "DS", ds: ds("11", progressive.PhaseZone, "a", false, "p1")},
				{kind: "UPD", pod: pod("p1", "node-1", "uid-p1", "12", true, true)},
			},
			want: []string{"outside the zone of the phase"},
		},
		{
			name: "over the budget", spec: checkSpec{budget: 1},
			events: []event{
				{kind: "DS", ds: ds("11", progressive.PhaseRemaining, "", false, "p0", "p1")},
				{kind: "UPD", pod: pod("p0", "node-0", "uid-p0", "12", true, true)},
				{kind: "UPD", pod: pod("p1", "node-1", "uid-p1", "13", true, true)},
			},
			want: []string{"2 nodes unavailable [node-0 node-1], budget 1"},
		},
		{
			name: "a canary too many", spec: checkSpec{budget: 2, canary: 1},
			events: []event{
				{kind: "DS", ds: ds("11", progressive.PhaseCanary, "", false, "p0", "p1")},
				{kind: "UPD", pod: pod("p0", "node-0", "uid-p0", "12", true, true)},
				{kind: "UPD", pod: pod("p1", "node-1", "uid-p1", "13", true, true)},
			},
			want: []string{"the 2-th node of revision new's canary, the canary is 1"},
		},
		{
			name: "recorded while paused", spec: checkSpec{budget: 1},
			events: []event{
				{kind: "DS", ds: ds("11", progressive.PhaseZone, "a", true, "p0")},
				{kind: "UPD", pod: pod("p0", "node-0", "uid-p0", "12", true, true)},
			},
			want: []string{"recorded while paused", "after the rollout was paused"},
		},
		{
			name: "after the abort: the window, and a delete not recorded before it", spec: checkSpec{budget: 2},
			events: []event{
				{kind: "DS", ds: ds("11", progressive.PhaseRemaining, "", false, "p0")},
				{kind: "DS", ds: ds("12", progressive.PhaseAborted, "", false)},
				{kind: "UPD", pod: pod("p0", "node-0", "uid-p0", "13", true, true)},
				{kind: "DS", ds: ds("14", progressive.PhaseAborted, "", false, "p1")},
				{kind: "UPD", pod: pod("p1", "node-1", "uid-p1", "15", true, true)},
			},
			window: 1,
			want:   []string{"recorded in a phase that deletes nothing", "after the rollout was aborted at resourceVersion 12"},
		},
		{
			name: "the pod of another owner deleted", spec: checkSpec{budget: 1},
			events: []event{{kind: "DEL", pod: decoy}},
			want:   []string{"the pod decoy-other of another owner is gone or terminating"},
		},
		{
			name: "a relist hid the record", spec: checkSpec{budget: 1},
			events: []event{
				{kind: "DSLIST", ds: ds("20", progressive.PhaseZone, "a", false)},
				{kind: "UPD", pod: pod("p0", "node-0", "uid-p0", "18", true, true)},
			},
			unverified: 1,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := start(tc.spec)
			for _, e := range tc.events {
				switch e.kind {
				case "DS":
					c.ds("UPD", e.ds)
				case "DSLIST":
					c.replaceDS([]any{e.ds}, e.ds.ResourceVersion)
				default:
					c.pod(e.kind, e.pod)
				}
			}
			rep, errs := c.judge(zone)
			for _, w := range tc.want {
				if !slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, w) }) {
					t.Errorf("no violation %q; got %q", w, errs)
				}
			}
			if len(tc.want) == 0 && len(errs) > 0 {
				t.Errorf("violations %q, want none", errs)
			}
			if rep.window != tc.window || rep.unverified != tc.unverified {
				t.Errorf("window %d, unverified %d; want %d, %d", rep.window, rep.unverified, tc.window, tc.unverified)
			}
		})
	}
}
