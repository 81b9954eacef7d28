package cli

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	fakediscovery "k8s.io/client-go/discovery/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/daemonplan/daemonplan/kube/apply"
	"github.com/daemonplan/daemonplan/kube/internal/fakeclient"
	"github.com/daemonplan/daemonplan/kube/kubesync"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/kube/progressive"
)

// rolloutCluster is a fake API server with a DaemonSet controller on
// OnDelete (kubesync and apply) and a kubelet that makes pods Ready 1 s
// after their creation, unless their image is "agent:bad".
type rolloutCluster struct {
	t  *testing.T
	fc *fakeclient.Clientset
	// ticking is set while the controller and the kubelet run, whose
	// requests no injected fault reaches.
	ticking bool
}

func newRolloutCluster(t *testing.T, strategy string, nodes int) *rolloutCluster {
	t.Helper()
	var b strings.Builder
	b.WriteString(`apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: DaemonSet
  metadata: {name: agent, namespace: default, uid: ds-uid, generation: 1}
  spec:
    selector: {matchLabels: {app: agent}}
    template:
      metadata: {labels: {app: agent}}
      spec: {containers: [{name: agent, image: agent:v1}]}
    updateStrategy: {type: ` + strategy + `}
`)
	for i := range nodes {
		b.WriteString("- {apiVersion: v1, kind: Node, metadata: {name: node-" + string(rune('0'+i)) + "}}\n")
	}
	s, err := load.Read(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	rc := &rolloutCluster{t: t, fc: fakeclient.New(s, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))}
	rc.fc.Discovery().(*fakediscovery.FakeDiscovery).FakedServerVersion = &version.Info{Major: "1", Minor: "37"}
	for range 5 {
		rc.tick(time.Second)
	}
	return rc
}

// tick runs the controller and the kubelet, then moves the clock by d.
func (rc *rolloutCluster) tick(d time.Duration) {
	rc.ticking = true
	defer func() { rc.ticking = false }()
	t := rc.t
	ctx := context.Background()
	s, err := rc.fc.Snapshot(ctx, "default", "agent")
	if err != nil {
		t.Fatal(err)
	}
	p, err := kubesync.Sync(s, rc.fc.Now(), kubesync.State{}, kubesync.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := apply.Apply(ctx, rc.fc, s, p).Err(); err != nil {
		t.Fatal(err)
	}
	pods, err := rc.fc.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range pods.Items {
		pod := &pods.Items[i]
		if len(pod.Status.Conditions) > 0 || pod.Spec.Containers[0].Image == "agent:bad" || rc.fc.Now().Sub(pod.CreationTimestamp.Time) < time.Second {
			continue
		}
		pod.Status.Phase = corev1.PodRunning
		pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(rc.fc.Now())}}
		if _, err := rc.fc.CoreV1().Pods("default").UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	rc.fc.Advance(d)
}

func (rc *rolloutCluster) setImage(image string) {
	ctx := context.Background()
	ds, err := rc.fc.AppsV1().DaemonSets("default").Get(ctx, "agent", metav1.GetOptions{})
	if err != nil {
		rc.t.Fatal(err)
	}
	ds = ds.DeepCopy()
	ds.Spec.Template.Spec.Containers[0].Image = image
	ds.Generation++
	if _, err := rc.fc.AppsV1().DaemonSets("default").Update(ctx, ds, metav1.UpdateOptions{}); err != nil {
		rc.t.Fatal(err)
	}
	rc.tick(0)
}

// run runs the command as name against the cluster; --watch's sleeps run
// the cluster for that long.
func (rc *rolloutCluster) run(name string, args ...string) result {
	return rc.runFor(0, name, args...)
}

// runFor is run, whose 'rollout run' is stopped (as by SIGTERM) after
// passes sleeps.
func (rc *rolloutCluster) runFor(passes int, name string, args ...string) result {
	var out, errOut bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	c := &cli{name: name, stdin: strings.NewReader(""), stdout: &out, stderr: &errOut,
		now: rc.fc.Now,
		sleep: func(d time.Duration) {
			rc.tick(d)
			if n++; n == passes {
				cancel()
			}
		},
		runContext: func() (context.Context, context.CancelFunc) { return ctx, cancel },
		dial: func(*genericclioptions.ConfigFlags) (*conn, error) {
			return &conn{client: rc.fc, namespace: "default"}, nil
		}}
	code := c.run(args)
	return result{code, out.String(), errOut.String()}
}

// TestRolloutCanaryPromote: start with a canary of one node, a new image,
// resume --watch stops at the canary (exit 5), status shows it (exit 0),
// promote --watch follows to the end (exit 0).
func TestRolloutCanaryPromote(t *testing.T) {
	rc := newRolloutCluster(t, "OnDelete", 3)
	if r := rc.run("daemonplan", "rollout", "start", "ds/agent", "--canary", "1"); r.code != 0 {
		t.Fatalf("start: exit %d: %s", r.code, r.stderr)
	}
	rc.setImage("agent:v2")
	r := rc.run("daemonplan", "rollout", "resume", "ds/agent", "--watch", "--interval", "1s")
	if r.code != exitWaiting || !strings.Contains(r.stdout, "waiting for 'rollout promote'") {
		t.Fatalf("resume --watch: exit %d, want %d; stdout:\n%s\nstderr:\n%s", r.code, exitWaiting, r.stdout, r.stderr)
	}
	t.Logf("resume --watch:\n%s", r.stdout)
	r = rc.run("daemonplan", "rollout", "status", "agent")
	t.Logf("status:\n%s", r.stdout)
	if r.code != 0 || !strings.Contains(r.stdout, "phase:     Canary") || strings.Count(r.stdout, "Updated") != 1 || strings.Count(r.stdout, "Outdated") != 2 {
		t.Errorf("status: exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	// One node replaced in 2 s (delete at 00:00:05, seen available at
	// 00:00:07): 2 nodes left, one at a time.
	if want := "eta:       4s for 2 nodes, 1 at a time, 2s per node (the mean of 1 replacements measured); not counting the waits for 'rollout promote' after the canary"; !strings.Contains(r.stdout, want) {
		t.Errorf("status: want %q:\n%s", want, r.stdout)
	}
	r = rc.run("daemonplan", "rollout", "promote", "ds/agent", "--watch", "--interval", "1s")
	if r.code != 0 || !strings.Contains(r.stdout, "phase Done") {
		t.Fatalf("promote --watch: exit %d; stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	t.Logf("promote --watch:\n%s", r.stdout)
	r = rc.run("daemonplan", "rollout", "status", "agent")
	t.Logf("status:\n%s", r.stdout)
	if r.code != 0 || !strings.Contains(r.stdout, "phase:     Done") || strings.Count(r.stdout, "Updated") != 3 {
		t.Errorf("status at the end: exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	// The Events on the DaemonSet, as kubectl describe would list them.
	evs, err := rc.fc.CoreV1().Events("default").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range evs.Items {
		if e.InvolvedObject.Kind == "DaemonSet" && e.InvolvedObject.Name == "agent" && e.Source.Component == progressive.EventSource && e.Reason != progressive.ReasonSuccessfulDelete {
			got = append(got, e.Reason)
		}
	}
	slices.Sort(got)
	want := []string{progressive.ReasonCanaryPromoted, progressive.ReasonRolloutComplete, progressive.ReasonRolloutStarted}
	if !slices.Equal(got, want) {
		t.Errorf("Events on the DaemonSet (but deletes): %q, want %q", got, want)
	}
}

// TestRolloutGateExit: a version whose pods never turn Ready: --watch
// stops with exit 3 once the gate pauses the rollout, and so does status.
func TestRolloutGateExit(t *testing.T) {
	rc := newRolloutCluster(t, "OnDelete", 3)
	if r := rc.run("daemonplan", "rollout", "start", "ds/agent", "--ready-deadline", "5s"); r.code != 0 {
		t.Fatalf("start: exit %d: %s", r.code, r.stderr)
	}
	rc.setImage("agent:bad")
	r := rc.run("daemonplan", "rollout", "resume", "ds/agent", "--watch", "--interval", "1s")
	if r.code != exitGate || !strings.Contains(r.stdout, "not Ready") {
		t.Fatalf("resume --watch: exit %d, want %d; stdout:\n%s\nstderr:\n%s", r.code, exitGate, r.stdout, r.stderr)
	}
	r = rc.run("daemonplan", "rollout", "status", "ds/agent")
	if r.code != exitGate || !strings.Contains(r.stdout, "paused:    by Gate") {
		t.Errorf("status: exit %d, want %d:\n%s%s", r.code, exitGate, r.stdout, r.stderr)
	}
	if r := rc.run("daemonplan", "rollout", "abort", "ds/agent"); r.code != 0 {
		t.Fatalf("abort: exit %d: %s", r.code, r.stderr)
	}
	if r := rc.run("daemonplan", "rollout", "status", "ds/agent"); r.code != exitAborted {
		t.Errorf("status after abort: exit %d, want %d", r.code, exitAborted)
	}
	r = rc.run("daemonplan", "rollout", "undo", "ds/agent", "--watch", "--interval", "1s")
	if r.code != 0 || !strings.Contains(r.stdout, "template set back to revision 1") {
		t.Errorf("undo --watch: exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestRolloutRefusals: a DaemonSet on RollingUpdate is refused with the
// kubectl patch that switches it; surge is refused with the reason; a
// policy flag out of range names the flag.
func TestRolloutRefusals(t *testing.T) {
	rc := newRolloutCluster(t, "RollingUpdate", 1)
	r := rc.run("kubectl daemonplan", "rollout", "start", "ds/agent")
	want := `kubectl patch daemonset agent -n default --type merge -p '{"spec":{"updateStrategy":{"type":"OnDelete","rollingUpdate":null}}}'`
	if r.code != exitError || !strings.Contains(r.stderr, want) {
		t.Errorf("start on RollingUpdate: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "or let 'kubectl daemonplan rollout start --switch-strategy' switch it") {
		t.Errorf("start on RollingUpdate: the refusal does not name --switch-strategy:\n%s", r.stderr)
	}
	r = rc.run("kubectl daemonplan", "rollout", "start", "ds/agent", "--max-surge", "1")
	if r.code != exitUsage || !strings.Contains(r.stderr, "no surge under updateStrategy OnDelete") ||
		!strings.Contains(r.stderr, "(run 'kubectl daemonplan rollout start --help' for usage)") {
		t.Errorf("--max-surge 1: exit %d, stderr (want the reason and the help of rollout start):\n%s", r.code, r.stderr)
	}
	for _, cmd := range []string{"status", "start", "pause", "resume", "promote", "abort", "undo"} {
		// A name that is not there: said as plan says it, whatever the
		// subcommand (status once said "load: no DaemonSet in input").
		r = rc.run("kubectl daemonplan", "rollout", cmd, "ds/nope")
		if r.code != exitError || !strings.Contains(r.stderr, `no DaemonSet "nope" in namespace default of the cluster`) &&
			!strings.Contains(r.stderr, `daemonsets.apps "nope" not found`) {
			t.Errorf("rollout %s ds/nope: exit %d, stderr:\n%s", cmd, r.code, r.stderr)
		}
	}
	r = rc.run("kubectl daemonplan", "rollout", "start", "ds/agent", "--canary", "0")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--canary: Invalid value: 0") {
		t.Errorf("--canary 0: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	r = rc.run("kubectl daemonplan", "rollout", "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "kubectl daemonplan rollout start ds/node-agent") {
		t.Errorf("rollout --help in the plugin: exit %d:\n%s", r.code, r.stdout)
	}
}

// TestRolloutRun: 'rollout run' steps the annotated DaemonSet once per
// interval, prints a line when its state changes, holds at the canary
// (it never exits by itself), takes up a promote given meanwhile at the
// next pass, and is stopped by its context (SIGINT, SIGTERM) with exit 0;
// the state is on the DaemonSet, so a second run goes on from there.
func TestRolloutRun(t *testing.T) {
	tests := []struct {
		name, reason string
		args         []string
		wantCode     int
		wantErr      string
	}{
		{"interval 0", "a pass every 0 s would spin", []string{"rollout", "run", "--interval", "0s"}, exitUsage, "--interval 0s: must be greater than 0"},
		{"argument", "run takes no DaemonSet: it finds them", []string{"rollout", "run", "ds/agent"}, exitUsage, `unexpected argument "ds/agent"`},
	}
	rc := newRolloutCluster(t, "OnDelete", 3)
	for _, tc := range tests {
		r := rc.run("kubectl daemonplan", tc.args...)
		if r.code != tc.wantCode || !strings.Contains(r.stderr, tc.wantErr) {
			t.Errorf("%s (%s): exit %d, stderr %q; want %d and %q", tc.name, tc.reason, r.code, r.stderr, tc.wantCode, tc.wantErr)
		}
	}
	if r := rc.run("daemonplan", "rollout", "start", "ds/agent", "--canary", "1"); r.code != 0 {
		t.Fatalf("start: exit %d: %s", r.code, r.stderr)
	}
	rc.setImage("agent:v2")
	r := rc.runFor(10, "daemonplan", "rollout", "run", "--interval", "1s")
	t.Logf("run:\n%s", r.stdout)
	if r.code != 0 || !strings.Contains(r.stdout, "default/agent phase Canary, 1/3 nodes updated") || !strings.Contains(r.stdout, "stopped") ||
		strings.Count(r.stdout, "waiting for 'rollout promote'") != 1 {
		t.Fatalf("run to the canary: exit %d; stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if r := rc.run("daemonplan", "rollout", "promote", "ds/agent"); r.code != 0 {
		t.Fatalf("promote: exit %d: %s", r.code, r.stderr)
	}
	r = rc.runFor(15, "daemonplan", "rollout", "run", "-A", "--interval", "1s")
	t.Logf("run -A:\n%s", r.stdout)
	if r.code != 0 || !strings.Contains(r.stdout, "in every namespace") || !strings.Contains(r.stdout, "default/agent phase Done, 3/3 nodes updated") {
		t.Fatalf("run -A after the promote: exit %d; stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestRolloutSwitchStrategy: start --switch-strategy on a RollingUpdate
// DaemonSet switches it to OnDelete, and --watch follows the rollout to the
// end, where it is switched back.
func TestRolloutSwitchStrategy(t *testing.T) {
	rc := newRolloutCluster(t, "RollingUpdate", 2)
	if r := rc.run("daemonplan", "rollout", "start", "ds/agent", "--switch-strategy"); r.code != 0 {
		t.Fatalf("start --switch-strategy: exit %d: %s", r.code, r.stderr)
	}
	strategy := func() string {
		ds, err := rc.fc.AppsV1().DaemonSets("default").Get(context.Background(), "agent", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return string(ds.Spec.UpdateStrategy.Type)
	}
	if got := strategy(); got != "OnDelete" {
		t.Fatalf("after start --switch-strategy: %s, want OnDelete", got)
	}
	rc.setImage("agent:v2")
	r := rc.run("daemonplan", "rollout", "resume", "ds/agent", "--watch", "--interval", "1s")
	if r.code != 0 || !strings.Contains(r.stdout, "phase Done") {
		t.Fatalf("resume --watch: exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	if got := strategy(); got != "RollingUpdate" {
		t.Errorf("at the end: %s, want RollingUpdate", got)
	}
	if r := rc.run("daemonplan", "rollout", "status", "ds/agent"); r.code != 0 || !strings.Contains(r.stdout, "phase:     Done") {
		t.Errorf("status after the switch back: exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestRolloutWatchRetries: --watch rides out what a restarting or
// overloaded kube-apiserver answers (each step's writes are held to
// preconditions and the state is on the DaemonSet, so the next step reads
// again), and stops at once on what a retry cannot cure.
func TestRolloutWatchRetries(t *testing.T) {
	tests := []struct {
		name, reason string
		fault        error
		wantCode     int
		wantStderr   string
	}{
		{name: "internal error", reason: "a 500 while kube-apiserver restarts: retried, the rollout goes on",
			fault: apierrors.NewInternalError(errors.New("etcd leader changed")), wantCode: exitWaiting, wantStderr: "retrying in 1s"},
		{name: "too many requests", reason: "a 429 from priority and fairness: retried",
			fault: apierrors.NewTooManyRequests("slow down", 1), wantCode: exitWaiting, wantStderr: "retrying in 2s"},
		{name: "forbidden", reason: "a right the user lacks: no retry cures it",
			fault: apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("no")), wantCode: exitError, wantStderr: "forbidden"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc := newRolloutCluster(t, "OnDelete", 3)
			if r := rc.run("daemonplan", "rollout", "start", "ds/agent", "--canary", "1"); r.code != 0 {
				t.Fatalf("start: exit %d: %s", r.code, r.stderr)
			}
			rc.setImage("agent:v2")
			faults := 3
			rc.fc.PrependReactor("list", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
				if faults == 0 || rc.ticking {
					return false, nil, nil
				}
				faults--
				return true, nil, tt.fault
			})
			r := rc.run("daemonplan", "rollout", "resume", "ds/agent", "--watch", "--interval", "1s")
			if r.code != tt.wantCode || !strings.Contains(r.stderr, tt.wantStderr) {
				t.Errorf("%s: resume --watch: exit %d, want %d, and stderr with %q:\n%s%s", tt.reason, r.code, tt.wantCode, tt.wantStderr, r.stdout, r.stderr)
			}
		})
	}
}

// TestRolloutWatchDeleteForbidden: a user without delete on pods; the
// step records the canary's pod in flight and its delete is refused
// (Forbidden): --watch stops with exit 1 at once, instead of asking again
// at every step forever; the pod is not deleted and stays in flight.
func TestRolloutWatchDeleteForbidden(t *testing.T) {
	rc := newRolloutCluster(t, "OnDelete", 3)
	if r := rc.run("daemonplan", "rollout", "start", "ds/agent", "--canary", "1"); r.code != 0 {
		t.Fatalf("start: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	rc.setImage("agent:v2")
	rc.fc.PrependReactor("delete", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(corev1.Resource("pods"), a.(k8stesting.DeleteAction).GetName(), errors.New(`User "u" cannot delete resource "pods"`))
	})
	r := rc.run("daemonplan", "rollout", "resume", "ds/agent", "--watch", "--timeout", "1m")
	if r.code != exitError || !strings.Contains(r.stderr, "forbidden") || !strings.Contains(r.stderr, "not allowed to delete pods") {
		t.Fatalf("resume --watch without delete on pods: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, "--timeout") {
		t.Errorf("resume --watch went on until its timeout:\n%s", r.stderr)
	}
	ds, err := rc.fc.AppsV1().DaemonSets("default").Get(context.Background(), "agent", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ro, err := progressive.Parse(ds)
	if err != nil || len(ro.Status.InFlight) != 1 {
		t.Errorf("the rollout: %+v (%v), want one pod in flight", ro, err)
	}
}

// TestRolloutRunDeleteForbiddenOnce: `rollout run` without delete on
// pods reports the refused delete once, not at every pass (each pass
// issues the recorded delete again), and goes on running.
func TestRolloutRunDeleteForbiddenOnce(t *testing.T) {
	rc := newRolloutCluster(t, "OnDelete", 3)
	if r := rc.run("daemonplan", "rollout", "start", "ds/agent"); r.code != 0 {
		t.Fatalf("start: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	rc.setImage("agent:v2")
	rc.fc.PrependReactor("delete", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(corev1.Resource("pods"), a.(k8stesting.DeleteAction).GetName(), errors.New(`User "u" cannot delete resource "pods"`))
	})
	r := rc.runFor(10, "daemonplan", "rollout", "run", "--interval", "1s")
	if r.code != exitOK {
		t.Fatalf("run: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if n := strings.Count(r.stderr, "forbidden"); n != 1 {
		t.Errorf("run printed the refused delete %d times in 10 passes, want once:\n%s", n, r.stderr)
	}
}

// TestRolloutTargetForms: the DaemonSet argument as kubectl rollout
// takes it: NAME, TYPE/NAME and TYPE NAME; anything else is a usage
// error that says what is wanted.
func TestRolloutTargetForms(t *testing.T) {
	rc := newRolloutCluster(t, "OnDelete", 1)
	if r := rc.run("daemonplan", "rollout", "start", "daemonset", "agent"); r.code != 0 {
		t.Fatalf("rollout start daemonset agent: exit %d: %s", r.code, r.stderr)
	}
	for _, args := range [][]string{{"agent"}, {"ds/agent"}, {"daemonsets.apps/agent"}, {"ds", "agent"}, {"DaemonSet", "agent"}} {
		if r := rc.run("daemonplan", append([]string{"rollout", "status"}, args...)...); r.code != exitOK || !strings.Contains(r.stdout, "daemonset default/agent") {
			t.Errorf("rollout status %v: exit %d:\n%s%s", args, r.code, r.stdout, r.stderr)
		}
	}
	for _, args := range [][]string{{"deploy", "agent"}, {"ds", "a", "b"}, {"ds", "x/agent"}, {}} {
		if r := rc.run("daemonplan", append([]string{"rollout", "status"}, args...)...); r.code != exitUsage {
			t.Errorf("rollout status %v: exit %d, want %d:\n%s", args, r.code, exitUsage, r.stderr)
		}
	}
}
