package testbed

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/util/retry"

	"github.com/daemonplan/daemonplan/kube/internal/cli"
	"github.com/daemonplan/daemonplan/kube/progressive"
)

// The rollout commands on the real control plane, as users of
// kube/rbac/daemonplan-rollout.yaml: the CLI (kube/internal/cli) runs
// in-process with a user's kubeconfig, or, for `rollout run`, as a
// program.

// rolloutRights reads the ClusterRole daemonplan-rollout and splits it
// into its rights, one verb on one resource each.
func rolloutRights(t *testing.T) (*rbacv1.ClusterRole, []rbacv1.PolicyRule) {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "rbac", "daemonplan-rollout.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var role rbacv1.ClusterRole
	if err := utilyaml.NewYAMLOrJSONDecoder(f, 4096).Decode(&role); err != nil || role.Name != "daemonplan-rollout" {
		t.Fatalf("kube/rbac/daemonplan-rollout.yaml: %v (role %q)", err, role.Name)
	}
	var rights []rbacv1.PolicyRule
	for _, r := range role.Rules {
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				for _, v := range r.Verbs {
					rights = append(rights, rbacv1.PolicyRule{APIGroups: []string{g}, Resources: []string{res}, Verbs: []string{v}})
				}
			}
		}
	}
	return &role, rights
}

// bindRole creates the ClusterRole (unless it exists) and binds user to
// it cluster-wide.
func bindRole(t *testing.T, b *Bed, user string, role *rbacv1.ClusterRole) {
	t.Helper()
	ctx := context.Background()
	role = role.DeepCopy()
	role.ResourceVersion = ""
	if _, err := b.Client.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil && !strings.Contains(err.Error(), "already exists") {
		t.Fatal(err)
	}
	_, err := b.Client.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: user + "-" + role.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
}

// rolloutBed starts a control plane with opts, the real DaemonSet
// controller, the nodes (labels: more labels per node, or nil), and the
// DaemonSets names (image NAME:v1) on strategy, and waits until each runs
// a ready pod on every node.
func rolloutBed(t *testing.T, name string, opts Options, nodes []string, labels func(string) map[string]string, strategy appsv1.DaemonSetUpdateStrategyType, names ...string) *Bed {
	t.Helper()
	opts.PodReadyDelay = time.Second
	b := startBed(t, name, opts)
	s := &scen{t: t, b: b, ctx: context.Background()}
	s.createNodes(nodes, labels)
	for _, n := range names {
		ds := daemonSet(n, n+":v1")
		if strategy == appsv1.OnDeleteDaemonSetStrategyType {
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
	waitPods(t, b, 2*time.Minute, "every DaemonSet ready on every node", func(pods []corev1.Pod) bool {
		n := 0
		for i := range pods {
			if isReady(&pods[i]) && pods[i].DeletionTimestamp == nil {
				n++
			}
		}
		return n == len(names)*len(nodes)
	})
	return b
}

// waitPods waits until cond holds for the namespace's pods.
func waitPods(t *testing.T, b *Bed, timeout time.Duration, what string, cond func([]corev1.Pod) bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		pods, err := b.Client.CoreV1().Pods(namespace).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if cond(pods.Items) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: not after %v", what, timeout)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// imagesOf counts the named DaemonSet's live ready pods by image.
func imagesOf(t *testing.T, b *Bed, ds string) map[string]int {
	t.Helper()
	pods, err := b.Client.CoreV1().Pods(namespace).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.Labels["app"] == ds && p.DeletionTimestamp == nil {
			img := p.Spec.Containers[0].Image
			if !isReady(p) {
				img += " (not ready)"
			}
			out[img]++
		}
	}
	return out
}

// podUIDs is the set of the namespace's pods that are not terminating.
func podUIDs(t *testing.T, b *Bed) map[types.UID]string {
	t.Helper()
	pods, err := b.Client.CoreV1().Pods(namespace).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[types.UID]string{}
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil {
			out[p.UID] = p.Name
		}
	}
	return out
}

// rolloutOf reads the DaemonSet's annotation.
func rolloutOf(t *testing.T, b *Bed, name string) *progressive.Rollout {
	t.Helper()
	ds, err := b.Client.AppsV1().DaemonSets(namespace).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := progressive.Parse(ds)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

type cliResult struct {
	code           int
	stdout, stderr string
	took           time.Duration
}

func (r cliResult) String() string {
	return fmt.Sprintf("exit %d after %v\nstdout:\n%s\nstderr:\n%s", r.code, r.took.Round(time.Millisecond), r.stdout, r.stderr)
}

// runCLI runs the CLI in-process with the kubeconfig.
func runCLI(kubeconfig string, args ...string) cliResult {
	var out, errOut bytes.Buffer
	start := time.Now()
	code := cli.Run("daemonplan", append(args, "--kubeconfig", kubeconfig), strings.NewReader(""), &out, &errOut)
	return cliResult{code, out.String(), errOut.String(), time.Since(start)}
}

// TestProgressiveRBAC: a user bound to exactly
// kube/rbac/daemonplan-rollout.yaml runs a whole rollout (start, a new
// image, resume --watch to the canary, promote --watch to done); its
// Events are on the DaemonSet (TestProgressiveEvents's check). Then, on a
// second rollout, a user per right of the role, bound to the role without
// it, runs the step that needs it: it fails with the API server's
// Forbidden for that verb and resource, and does no harm (no pod
// deleted; without delete on pods, the pod is recorded in flight, and
// the next driver with the right deletes it). Without create on events,
// the rollout runs and each Event is a warning. Without list on
// daemonsets, only `rollout run` fails (rolloutRunForbidden).
func TestProgressiveRBAC(t *testing.T) {
	role, rights := rolloutRights(t)
	without := func(i int) string { return fmt.Sprintf("rollout-without-%d", i) }
	users := []User{{Name: "roller", Token: "roller-token"}, {Name: "ns-runner", Token: "ns-runner-token"}}
	for i := range rights {
		users = append(users, User{Name: without(i), Token: without(i) + "-token"})
	}
	b := rolloutBed(t, "progressive-rbac", Options{RBAC: true, Users: users}, nodeNames(0, 3), nil, appsv1.OnDeleteDaemonSetStrategyType, dsName, "other")
	kubeconfig := map[string]string{}
	for _, u := range users {
		var err error
		if kubeconfig[u.Name], err = b.KubeconfigFor(u); err != nil {
			t.Fatal(err)
		}
	}
	for i := range rights {
		less := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "daemonplan-rollout-" + without(i)},
			Rules: slices.Delete(slices.Clone(rights), i, i+1)}
		bindRole(t, b, without(i), less)
	}
	bindRole(t, b, "roller", role)
	// ns-runner: the role through a RoleBinding in the namespace, and
	// the node list alone through a ClusterRoleBinding, as the role's
	// comment says `rollout run -n NS` may be granted.
	nodeList := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "daemonplan-node-list"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"list"}}}}
	bindRole(t, b, "ns-runner", nodeList)
	if _, err := b.Client.RbacV1().RoleBindings(namespace).Create(context.Background(), &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "ns-runner-daemonplan-rollout"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "ns-runner"}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	roller := kubeconfig["roller"]
	ds := "ds/" + dsName
	watch := []string{"--watch", "--interval", "500ms", "--timeout", "90s"}

	// The whole rollout as roller.
	start := time.Now()
	if r := runCLI(roller, "rollout", "start", ds, "-n", namespace, "--canary", "1", "--max-unavailable", "1"); r.code != 0 {
		t.Fatalf("rollout start as roller: %s", r)
	}
	setTemplateImage(t, b, "agent:v2")
	if r := runCLI(roller, append([]string{"rollout", "resume", ds, "-n", namespace}, watch...)...); r.code != 5 || r.stderr != "" {
		t.Fatalf("rollout resume --watch as roller: %s; want exit 5 (waiting for promote), no stderr", r)
	}
	if got := imagesOf(t, b, dsName); got["agent:v2"] != 1 || got["agent:v1"] != 2 {
		t.Errorf("at the canary, images %v, want 1 agent:v2 and 2 agent:v1", got)
	}
	r := runCLI(roller, append([]string{"rollout", "promote", ds, "-n", namespace}, watch...)...)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("rollout promote --watch as roller: %s; want exit 0, no stderr", r)
	}
	t.Logf("the rollout as roller: %v\n%s", time.Since(start).Round(time.Millisecond), r.stdout)
	if got := imagesOf(t, b, dsName); got["agent:v2"] != 3 || len(got) != 1 {
		t.Errorf("at the end, images %v, want agent:v2 on the 3 nodes", got)
	}
	if got := imagesOf(t, b, "other"); got["other:v1"] != 3 || len(got) != 1 {
		t.Errorf("the other DaemonSet's images %v, want other:v1 on the 3 nodes", got)
	}
	if st := rolloutOf(t, b, dsName).Status; st.Phase != progressive.PhaseDone {
		t.Errorf("phase %s, want Done", st.Phase)
	}
	if r := runCLI(roller, "rollout", "status", ds, "-n", namespace); r.code != 0 || !strings.Contains(r.stdout, "phase:     Done") {
		t.Errorf("rollout status as roller: %s", r)
	}
	// The canary phase is where a rollout begins: RolloutStarted says
	// it; PhaseChanged is the move past it.
	checkEvents(t, b, []string{progressive.ReasonRolloutStarted, progressive.ReasonSuccessfulDelete, progressive.ReasonCanaryPromoted,
		progressive.ReasonPhaseChanged, progressive.ReasonRolloutComplete})

	// A second rollout; each user without one right steps it.
	setTemplateImage(t, b, "agent:v3")
	waitObserved(t, b, dsName)
	needed := make([]bool, len(rights))
	var noEvents, noDelete = -1, -1
	for i, right := range rights {
		verb, res := right.Verbs[0], right.Resources[0]
		switch {
		case verb == "create" && res == "events":
			noEvents = i
			continue // last: it moves the rollout on
		case verb == "delete" && res == "pods":
			noDelete = i
		case verb == "list" && res == "daemonsets":
			continue // rollout run only: rolloutRunForbidden
		}
		before := podUIDs(t, b)
		annotation := rolloutOf(t, b, dsName)
		r := runCLI(kubeconfig[without(i)], append([]string{"rollout", "resume", ds, "-n", namespace}, watch...)...)
		t.Logf("without %s %s: exit %d after %v", verb, res, r.code, r.took.Round(time.Millisecond))
		want := fmt.Sprintf("cannot %s resource %q", verb, res)
		if r.code != 1 || !strings.Contains(r.stderr, "forbidden") || !strings.Contains(r.stderr, want) {
			t.Errorf("rollout resume --watch without %s %s: %s; want exit 1 and a Forbidden (%s)", verb, res, r, want)
		} else {
			needed[i] = true
		}
		if r.took > 30*time.Second {
			t.Errorf("without %s %s: the command took %v: it should stop at the Forbidden", verb, res, r.took)
		}
		if after := podUIDs(t, b); len(after) != len(before) || !equalKeys(before, after) {
			t.Errorf("without %s %s: pods changed: %v, then %v", verb, res, before, after)
		}
		got := rolloutOf(t, b, dsName)
		if i == noDelete {
			// The step wrote its decision, then its delete was refused:
			// the pod is in flight, still running.
			if len(got.Status.InFlight) != 1 || before[got.Status.InFlight[0].UID] == "" {
				t.Errorf("without delete on pods: in flight %+v, want the one running canary pod", got.Status.InFlight)
			}
		} else if got.Status.Revision != annotation.Status.Revision || got.Status.Phase != annotation.Status.Phase || len(got.Status.InFlight) != 0 {
			t.Errorf("without %s %s: the rollout changed: %+v, then %+v", verb, res, annotation.Status, got.Status)
		}
	}
	// Without create on events: the rollout runs (it deletes the pod left
	// in flight), every Event a warning.
	if noEvents >= 0 {
		r := runCLI(kubeconfig[without(noEvents)], append([]string{"rollout", "resume", ds, "-n", namespace}, watch...)...)
		if r.code != 5 || !strings.Contains(r.stderr, "warning: Event") || !strings.Contains(r.stderr, `cannot create resource "events"`) {
			t.Errorf("rollout resume --watch without create events: %s; want exit 5 with the Events' warnings", r)
		} else {
			needed[noEvents] = true
		}
		if got := imagesOf(t, b, dsName); got["agent:v3"] != 1 || got["agent:v2"] != 2 {
			t.Errorf("at the second canary, images %v, want 1 agent:v3 and 2 agent:v2", got)
		}
	}
	if r := runCLI(roller, append([]string{"rollout", "promote", ds, "-n", namespace}, watch...)...); r.code != 0 {
		t.Fatalf("rollout promote --watch as roller, second rollout: %s", r)
	}
	if got := imagesOf(t, b, dsName); got["agent:v3"] != 3 || len(got) != 1 {
		t.Errorf("at the end of the second rollout, images %v, want agent:v3 on the 3 nodes", got)
	}

	// The second rollout's first step (the user without delete on pods)
	// recorded the new revision and the refused delete.
	checkEvents(t, b, []string{progressive.ReasonNewRevision, progressive.ReasonFailedDelete})

	// Without list on daemonsets: `rollout run` fails, as a program.
	for i, right := range rights {
		if right.Verbs[0] == "list" && right.Resources[0] == "daemonsets" {
			needed[i] = rolloutRunForbidden(t, b, kubeconfig[without(i)])
		}
	}
	// A third rollout, driven by `rollout run -n default` as ns-runner
	// (the role bound in the namespace only): to done, nothing refused.
	setTemplateImage(t, b, "agent:v4")
	prev := rolloutOf(t, b, dsName).Status.Revision
	logFile := filepath.Join(b.Dir, "run-ns-runner.log")
	cmd := startRun(t, b, kubeconfig["ns-runner"], logFile, "-n", namespace, "--interval", "500ms")
	deadline := time.Now().Add(time.Minute)
	for {
		if st := rolloutOf(t, b, dsName).Status; st.Revision != prev && st.Revision != "" && st.Phase == progressive.PhaseCanary && st.InFlight == nil && imagesOf(t, b, dsName)["agent:v4"] == 1 {
			break
		}
		if time.Now().After(deadline) {
			data, _ := os.ReadFile(logFile)
			t.Fatalf("rollout run as ns-runner: no canary in a minute:\n%s", data)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if r := runCLI(kubeconfig["ns-runner"], "rollout", "promote", ds, "-n", namespace); r.code != 0 {
		t.Errorf("rollout promote as ns-runner: %s", r)
	}
	for deadline := time.Now().Add(time.Minute); rolloutOf(t, b, dsName).Status.Phase != progressive.PhaseDone; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			data, _ := os.ReadFile(logFile)
			t.Fatalf("rollout run as ns-runner: not done a minute after the promote:\n%s", data)
		}
	}
	stopRun(t, cmd, logFile)
	if data, _ := os.ReadFile(logFile); strings.Contains(string(data), "forbidden") || strings.Contains(string(data), "warning") {
		t.Errorf("rollout run as ns-runner:\n%s", data)
	}
	if got := imagesOf(t, b, dsName); got["agent:v4"] != 3 || len(got) != 1 {
		t.Errorf("at the end of the third rollout, images %v, want agent:v4 on the 3 nodes", got)
	}

	for i, n := range needed {
		if !n {
			t.Errorf("daemonplan-rollout grants %s %s/%s, and nothing was refused without it", rights[i].Verbs[0], rights[i].APIGroups[0], rights[i].Resources[0])
		}
	}
}

func equalKeys[K comparable, V any](a, b map[K]V) bool {
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return len(a) == len(b)
}

// waitObserved waits until the DaemonSet controller observed the
// DaemonSet's generation.
func waitObserved(t *testing.T, b *Bed, name string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		ds, err := b.Client.AppsV1().DaemonSets(namespace).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if ds.Status.ObservedGeneration >= ds.Generation {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("daemonset %s: generation %d not observed in a minute", name, ds.Generation)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// checkEvents checks that the DaemonSet's Events, recorded by
// daemonplan-rollout, include each reason.
func checkEvents(t *testing.T, b *Bed, reasons []string) {
	t.Helper()
	evs, err := b.Client.CoreV1().Events(namespace).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	var lines []string
	for _, e := range evs.Items {
		if e.Source.Component != progressive.EventSource {
			continue
		}
		if e.InvolvedObject.Kind != "DaemonSet" || e.InvolvedObject.Name != dsName {
			t.Errorf("event %s %s on %s %s", e.Reason, e.Message, e.InvolvedObject.Kind, e.InvolvedObject.Name)
		}
		got[e.Reason]++
		lines = append(lines, fmt.Sprintf("%s %s %s %s", e.FirstTimestamp.UTC().Format(time.TimeOnly), e.Type, e.Reason, e.Message))
	}
	slices.Sort(lines)
	t.Logf("Events of %s on the DaemonSet:\n%s", progressive.EventSource, strings.Join(lines, "\n"))
	for _, r := range reasons {
		if got[r] == 0 {
			t.Errorf("no Event %s from %s", r, progressive.EventSource)
		}
	}
}

// cliBuild is the daemonplan command, built once per process.
var cliBuild built

// startRun starts `daemonplan rollout run ARGS` as a program with the
// kubeconfig; its output goes to logFile.
func startRun(t *testing.T, b *Bed, kubeconfig, logFile string, args ...string) *exec.Cmd {
	t.Helper()
	bin, err := cliBuild.build(binDir, "daemonplan", "github.com/daemonplan/daemonplan/kube/cmd/daemonplan")
	if err != nil {
		t.Fatal(err)
	}
	log, err := os.Create(logFile)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append(append([]string{"rollout", "run"}, args...), "--kubeconfig", kubeconfig)...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
		log.Close()
	})
	return cmd
}

// waitLog waits until the file holds s.
func waitLog(t *testing.T, file, s string, timeout time.Duration) bool {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		data, _ := os.ReadFile(file)
		if strings.Contains(string(data), s) {
			return true
		}
		time.Sleep(200 * time.Millisecond)
	}
	return false
}

// stopRun sends SIGTERM and waits for a clean exit (status 0, the
// stopped line).
func stopRun(t *testing.T, cmd *exec.Cmd, logFile string) {
	t.Helper()
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("rollout run after SIGTERM: %v", err)
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Errorf("rollout run: still running 30 s after SIGTERM")
	}
	data, _ := os.ReadFile(logFile)
	if !strings.Contains(string(data), "stopped; the rollouts' state is on their DaemonSets") {
		t.Errorf("rollout run after SIGTERM: no stop line:\n%s", data)
	}
}

// rolloutRunForbidden runs `rollout run -n NS` as a user without list
// on daemonsets: it reports the Forbidden, deletes nothing, and stops
// cleanly on SIGTERM.
func rolloutRunForbidden(t *testing.T, b *Bed, kubeconfig string) bool {
	t.Helper()
	before := podUIDs(t, b)
	logFile := filepath.Join(b.Dir, "run-without-list.log")
	cmd := startRun(t, b, kubeconfig, logFile, "-n", namespace, "--interval", "500ms")
	ok := waitLog(t, logFile, `cannot list resource "daemonsets"`, time.Minute)
	stopRun(t, cmd, logFile)
	data, _ := os.ReadFile(logFile)
	if !ok || !strings.Contains(string(data), "forbidden") {
		t.Errorf("rollout run without list on daemonsets: no Forbidden:\n%s", data)
		return false
	}
	if after := podUIDs(t, b); !equalKeys(before, after) {
		t.Errorf("rollout run without list on daemonsets: pods changed")
	}
	return true
}

// TestProgressiveEvents: 4 nodes in zones a and b, a canary of 1, then
// zone a, a pause between the zones, zone b, through the CLI: the
// DaemonSet's Events, from daemonplan-rollout, tell the start, the
// promote, each phase change, the pause and the resume, and
// RolloutComplete, in that order (to the second).
func TestProgressiveEvents(t *testing.T) {
	zoneOf := func(n string) map[string]string {
		return map[string]string{"topology.kubernetes.io/zone": string("ab"[(int(n[len(n)-1])-'0')%2])}
	}
	b := rolloutBed(t, "progressive-events", Options{}, nodeNames(0, 4), zoneOf, appsv1.OnDeleteDaemonSetStrategyType, dsName)
	ds := "ds/" + dsName
	watch := []string{"--watch", "--interval", "500ms", "--timeout", "90s"}
	start := time.Now()
	if r := runCLI(b.Kubeconfig, "rollout", "start", ds, "-n", namespace, "--canary", "1", "--zones", "a,b", "--pause-between-zones", "--max-unavailable", "1"); r.code != 0 {
		t.Fatalf("rollout start: %s", r)
	}
	setTemplateImage(t, b, "agent:v2")
	for _, step := range []struct {
		args []string
		code int
	}{
		{[]string{"rollout", "resume", ds}, 5},  // to the canary
		{[]string{"rollout", "promote", ds}, 5}, // zone a, then the pause
		{[]string{"rollout", "resume", ds}, 0},  // zone b, done
	} {
		if r := runCLI(b.Kubeconfig, append(append(step.args, "-n", namespace), watch...)...); r.code != step.code {
			t.Fatalf("%s: %s; want exit %d", strings.Join(step.args, " "), r, step.code)
		}
	}
	t.Logf("rollout: %v", time.Since(start).Round(time.Millisecond))
	if got := imagesOf(t, b, dsName); got["agent:v2"] != 4 || len(got) != 1 {
		t.Errorf("at the end, images %v, want agent:v2 on the 4 nodes", got)
	}
	evs, err := b.Client.CoreV1().Events(namespace).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	at := map[string]time.Time{} // the first Event of each reason and message prefix below
	want := []string{
		progressive.ReasonRolloutStarted + " progressive rollout started",
		progressive.ReasonCanaryPromoted,
		progressive.ReasonPhaseChanged + " phase Zone a (was Canary)",
		// The step that finds zone a done enters zone b and stops at
		// the pause point before it.
		progressive.ReasonPhaseChanged + " phase Zone b (was Zone a)",
		progressive.ReasonRolloutPaused,
		progressive.ReasonRolloutResumed,
		progressive.ReasonRolloutComplete,
	}
	for _, e := range evs.Items {
		if e.Source.Component != progressive.EventSource {
			continue
		}
		lines = append(lines, fmt.Sprintf("%s %s %s %s", e.FirstTimestamp.UTC().Format(time.TimeOnly), e.Type, e.Reason, e.Message))
		if e.InvolvedObject.Kind != "DaemonSet" || e.InvolvedObject.Name != dsName || e.InvolvedObject.Namespace != namespace {
			t.Errorf("Event %s on %s %s/%s", e.Reason, e.InvolvedObject.Kind, e.InvolvedObject.Namespace, e.InvolvedObject.Name)
		}
		for _, w := range want {
			if _, seen := at[w]; !seen && strings.HasPrefix(e.Reason+" "+e.Message, w) {
				at[w] = e.FirstTimestamp.Time
			}
		}
	}
	t.Logf("Events:\n%s", strings.Join(lines, "\n"))
	// Events are stamped to the second: each is checked to be no earlier
	// than the one before it.
	var last time.Time
	for _, w := range want {
		ts, ok := at[w]
		switch {
		case !ok:
			t.Errorf("no Event %q from %s", w, progressive.EventSource)
		case ts.Before(last):
			t.Errorf("Event %q at %v, before the one it follows (%v)", w, ts, last)
		default:
			last = ts
		}
	}
}

// TestProgressiveRun: `rollout run -n default` as a program against the
// real control plane drives two annotated DaemonSets to done at once,
// and SIGTERM ends it cleanly (exit 0, its stop line).
func TestProgressiveRun(t *testing.T) {
	nodes := nodeNames(0, 4)
	names := []string{dsName, "other"}
	b := rolloutBed(t, "progressive-run", Options{}, nodes, nil, appsv1.OnDeleteDaemonSetStrategyType, names...)
	ctx := context.Background()
	for _, n := range names {
		if r := runCLI(b.Kubeconfig, "rollout", "start", "ds/"+n, "-n", namespace, "--max-unavailable", "1"); r.code != 0 {
			t.Fatalf("rollout start ds/%s: %s", n, r)
		}
	}
	// The program runs before the images change: its first pass finds
	// each rollout's revision (agent:v1's) already on every node, done;
	// then it takes each new template up.
	logFile := filepath.Join(b.Dir, "run.log")
	cmd := startRun(t, b, b.Kubeconfig, logFile, "-n", namespace, "--interval", "500ms")
	first := map[string]string{}
	for _, n := range names {
		if !waitLog(t, logFile, "default/"+n+" phase Done", time.Minute) {
			data, _ := os.ReadFile(logFile)
			t.Fatalf("rollout run did not step ds/%s:\n%s", n, data)
		}
		first[n] = rolloutOf(t, b, n).Status.Revision
	}
	start := time.Now()
	for _, n := range names {
		s := &scen{t: t, b: b, ctx: ctx}
		err := retryUpdate(s, n, func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.Containers[0].Image = n + ":v2" })
		if err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		done := 0
		for _, n := range names {
			if st := rolloutOf(t, b, n).Status; st.Phase == progressive.PhaseDone && st.Revision != first[n] {
				done++
			}
		}
		if done == len(names) {
			break
		}
		if time.Now().After(deadline) {
			data, _ := os.ReadFile(logFile)
			t.Fatalf("rollout run: not both done in 2 minutes:\n%s", data)
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("both rollouts done in %v", time.Since(start).Round(time.Millisecond))
	for _, n := range names {
		if got := imagesOf(t, b, n); got[n+":v2"] != len(nodes) || len(got) != 1 {
			t.Errorf("%s: images %v, want %s:v2 on the %d nodes", n, got, n, len(nodes))
		}
	}
	stopRun(t, cmd, logFile)
	data, _ := os.ReadFile(logFile)
	t.Logf("rollout run's output:\n%s", data)
	for _, n := range names {
		if c := strings.Count(string(data), "default/"+n+" phase Done"); c != 2 {
			t.Errorf("rollout run printed %d Done lines for %s, want 2 (agent:v1's revision, then v2's)", c, n)
		}
	}
}

// retryUpdate changes the DaemonSet name, again after a Conflict.
func retryUpdate(s *scen, name string, change func(*appsv1.DaemonSet)) error {
	for range 10 {
		ds, err := s.b.Client.AppsV1().DaemonSets(namespace).Get(s.ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		change(ds)
		if _, err = s.b.Client.AppsV1().DaemonSets(namespace).Update(s.ctx, ds, metav1.UpdateOptions{}); err == nil || !strings.Contains(err.Error(), "the object has been modified") {
			return err
		}
	}
	return fmt.Errorf("daemonset %s: 10 conflicts", name)
}

// TestProgressiveSwitch: `rollout start --switch-strategy` on a
// DaemonSet on RollingUpdate (maxUnavailable 1), 4 nodes, a canary of 1:
// it is on OnDelete during the rollout; the real controller replaces no
// pod itself (the pod watch: no node but the canary's touched before the
// promote, also 5 s after the canary is reached); at the end RollingUpdate
// with its maxUnavailable is back, with the Event UpdateStrategyRestored.
func TestProgressiveSwitch(t *testing.T) {
	sc := progressiveScenario{name: "progressive-switch", nodes: nodeNames(0, 4), budget: 1, canary: 1}
	b := rolloutBed(t, sc.name, Options{}, sc.nodes, nil, appsv1.RollingUpdateDaemonSetStrategyType, dsName)
	ctx := context.Background()
	ds := "ds/" + dsName
	watch := []string{"--watch", "--interval", "500ms", "--timeout", "90s"}
	if r := runCLI(b.Kubeconfig, "rollout", "start", ds, "-n", namespace, "--canary", "1", "--max-unavailable", "1"); r.code != 1 || !strings.Contains(r.stderr, "--switch-strategy") {
		t.Fatalf("rollout start on RollingUpdate without --switch-strategy: %s; want exit 1 naming the flag", r)
	}
	if r := runCLI(b.Kubeconfig, "rollout", "start", ds, "-n", namespace, "--canary", "1", "--max-unavailable", "1", "--switch-strategy"); r.code != 0 {
		t.Fatalf("rollout start --switch-strategy: %s", r)
	}
	got, err := b.Client.AppsV1().DaemonSets(namespace).Get(ctx, dsName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.UpdateStrategy.Type != appsv1.OnDeleteDaemonSetStrategyType {
		t.Fatalf("after start --switch-strategy: updateStrategy %+v, want OnDelete", got.Spec.UpdateStrategy)
	}
	iv, stopWatch := watchInvariants(t, b.Client, sc)
	setTemplateImage(t, b, "agent:v2")
	start := time.Now()
	if r := runCLI(b.Kubeconfig, append([]string{"rollout", "resume", ds, "-n", namespace}, watch...)...); r.code != 5 {
		t.Fatalf("rollout resume --watch: %s; want exit 5 (waiting for promote)", r)
	}
	canary := time.Since(start)
	time.Sleep(5 * time.Second)
	if got := imagesOf(t, b, dsName); got["agent:v2"] != 1 || got["agent:v1"] != 3 {
		t.Errorf("5 s into the wait for promote, images %v, want 1 agent:v2 and 3 agent:v1", got)
	}
	iv.mu.Lock()
	iv.promoted = true
	iv.mu.Unlock()
	if r := runCLI(b.Kubeconfig, append([]string{"rollout", "promote", ds, "-n", namespace}, watch...)...); r.code != 0 {
		t.Fatalf("rollout promote --watch: %s", r)
	}
	t.Logf("canary: %v; whole rollout: %v", canary.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	time.Sleep(time.Second) // the last pod events
	stopWatch()
	iv.mu.Lock()
	for _, e := range iv.errs {
		t.Error(e)
	}
	t.Logf("%d pod events checked", iv.events)
	iv.mu.Unlock()
	if got := imagesOf(t, b, dsName); got["agent:v2"] != 4 || len(got) != 1 {
		t.Errorf("at the end, images %v, want agent:v2 on the 4 nodes", got)
	}
	got, err = b.Client.AppsV1().DaemonSets(namespace).Get(ctx, dsName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s := got.Spec.UpdateStrategy; s.Type != appsv1.RollingUpdateDaemonSetStrategyType || s.RollingUpdate == nil || s.RollingUpdate.MaxUnavailable == nil || s.RollingUpdate.MaxUnavailable.IntValue() != 1 {
		t.Errorf("at the end: updateStrategy %+v, want RollingUpdate with maxUnavailable 1", s)
	}
	if r, err := progressive.Parse(got); err != nil || r.Status.Phase != progressive.PhaseDone || r.Status.Restore != nil {
		t.Errorf("at the end: rollout %+v (%v), want Done with nothing left to restore", r, err)
	}
	checkEvents(t, b, []string{progressive.ReasonStrategyRestored, progressive.ReasonRolloutComplete})
	// Back on RollingUpdate, the controller rolls a new template out
	// itself, and `rollout resume --watch` has nothing to drive.
	setTemplateImage(t, b, "agent:v3")
	waitPods(t, b, time.Minute, "the controller's own rollout of agent:v3", func(pods []corev1.Pod) bool {
		n := 0
		for i := range pods {
			if isReady(&pods[i]) && pods[i].DeletionTimestamp == nil && pods[i].Spec.Containers[0].Image == "agent:v3" {
				n++
			}
		}
		return n == 4
	})
}

// TestProgressiveRunAll: `rollout run -A` (a program) drives the rollouts
// of every namespace: ds/agent in default and in team-b, each started
// with its own policy (maxUnavailable 1; canary 1 in team-b, promoted
// with the CLI while run goes on), both new templates rolled out to the
// end; ds/agent in team-c, the same DaemonSet without a rollout, is never
// touched although its template changes too (the controller, on OnDelete,
// leaves its pods; run has no rollout of it to drive).
func TestProgressiveRunAll(t *testing.T) {
	nodes := nodeNames(0, 3)
	b := rolloutBed(t, "progressive-run-all", Options{}, nodes, nil, appsv1.OnDeleteDaemonSetStrategyType, dsName)
	ctx := context.Background()
	others := []string{"team-b", "team-c"}
	for _, ns := range others {
		if _, err := b.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		ds := daemonSet(dsName, dsName+":v1")
		ds.Namespace = ns
		ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
		if _, err := b.Client.AppsV1().DaemonSets(ns).Create(ctx, ds, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	podsIn := func(ns string) map[string]int {
		pods, err := b.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]int{}
		for i := range pods.Items {
			if p := &pods.Items[i]; p.DeletionTimestamp == nil && isReady(p) {
				out[p.Spec.Containers[0].Image]++
			}
		}
		return out
	}
	deadline := time.Now().Add(2 * time.Minute)
	for podsIn("team-b")[dsName+":v1"] != len(nodes) || podsIn("team-c")[dsName+":v1"] != len(nodes) {
		if time.Now().After(deadline) {
			t.Fatal("the DaemonSets of team-b and team-c did not run a ready pod on every node in 2 minutes")
		}
		time.Sleep(200 * time.Millisecond)
	}
	teamC, err := b.Client.CoreV1().Pods("team-c").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r := runCLI(b.Kubeconfig, "rollout", "start", "ds/"+dsName, "-n", namespace, "--max-unavailable", "1"); r.code != 0 {
		t.Fatalf("rollout start -n default: %s", r)
	}
	if r := runCLI(b.Kubeconfig, "rollout", "start", "ds/"+dsName, "-n", "team-b", "--max-unavailable", "1", "--canary", "1"); r.code != 0 {
		t.Fatalf("rollout start -n team-b: %s", r)
	}
	logFile := filepath.Join(b.Dir, "run.log")
	cmd := startRun(t, b, b.Kubeconfig, logFile, "-A", "--interval", "500ms")
	for _, ns := range []string{namespace, "team-b"} {
		if !waitLog(t, logFile, ns+"/"+dsName+" phase Done", time.Minute) {
			data, _ := os.ReadFile(logFile)
			t.Fatalf("rollout run -A did not step %s/%s:\n%s", ns, dsName, data)
		}
	}
	start := time.Now()
	for _, ns := range []string{namespace, "team-b", "team-c"} {
		if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			ds, err := b.Client.AppsV1().DaemonSets(ns).Get(ctx, dsName, metav1.GetOptions{})
			if err != nil {
				return err
			}
			ds.Spec.Template.Spec.Containers[0].Image = dsName + ":v2"
			_, err = b.Client.AppsV1().DaemonSets(ns).Update(ctx, ds, metav1.UpdateOptions{})
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	if !waitLog(t, logFile, "team-b/"+dsName+" phase Canary, 1/3 nodes updated", time.Minute) {
		data, _ := os.ReadFile(logFile)
		t.Fatalf("rollout run -A: team-b's canary not updated in a minute:\n%s", data)
	}
	if r := runCLI(b.Kubeconfig, "rollout", "promote", "ds/"+dsName, "-n", "team-b"); r.code != 0 {
		t.Fatalf("rollout promote -n team-b: %s", r)
	}
	deadline = time.Now().Add(2 * time.Minute)
	for podsIn(namespace)[dsName+":v2"] != len(nodes) || podsIn("team-b")[dsName+":v2"] != len(nodes) {
		if time.Now().After(deadline) {
			data, _ := os.ReadFile(logFile)
			t.Fatalf("rollout run -A: not both done in 2 minutes (default %v, team-b %v):\n%s", podsIn(namespace), podsIn("team-b"), data)
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("both rollouts done in %v (team-b's promote included)", time.Since(start).Round(time.Millisecond))
	time.Sleep(2 * time.Second) // run's next passes: still nothing of team-c's
	stopRun(t, cmd, logFile)
	data, _ := os.ReadFile(logFile)
	t.Logf("rollout run -A's output:\n%s", data)
	after, err := b.Client.CoreV1().Pods("team-c").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Items) != len(teamC.Items) {
		t.Errorf("team-c: %d pods, had %d", len(after.Items), len(teamC.Items))
	}
	for _, p := range teamC.Items {
		if !slices.ContainsFunc(after.Items, func(q corev1.Pod) bool { return q.UID == p.UID && q.DeletionTimestamp == nil }) {
			t.Errorf("team-c's pod %s (no rollout) was touched", p.Name)
		}
	}
	if strings.Contains(string(data), "team-c") {
		t.Errorf("rollout run -A printed something of team-c, which has no rollout")
	}
}
