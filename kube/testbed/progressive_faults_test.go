package testbed

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/daemonplan/daemonplan/kube/progressive"
)

// The fault and lifecycle scenarios of `daemonplan rollout` (issue 35,
// item 6) on the real control plane: the real DaemonSet controller of
// Kubernetes v1.37.2 creates every pod of an OnDelete DaemonSet, and the
// daemonplan CLI, built from this checkout and run as a program of its
// own with a kubeconfig, deletes the outdated ones. Each scenario is
// judged at every moment the watches record by a rolloutChecker
// (progressive_check_test.go): the budget, the phase of every delete
// (canary nodes only during the canary, a zone's nodes only in its
// phase), the pods of other owners, no delete after a pause or an abort.
// Each compares its final state with the same DaemonSet and nodes rolled
// out under RollingUpdate by the real controller.
//
// Seeds: the scenarios that draw (the kills, the faults) log their seed;
// -testbed.seed N draws the same again (the interleaving of processes
// and goroutines still varies).

// watchArgs are the flags of a CLI run that follows the rollout.
var watchArgs = []string{"--watch", "--interval", "500ms"}

func rolloutArgs(sub string, extra ...string) []string {
	return append(append([]string{"rollout", sub, "ds/" + dsName}, extra...), watchArgs...)
}

// progressiveSeed is -testbed.seed, or the clock's.
func progressiveSeed(t *testing.T) uint64 {
	seed := *faultSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (go test -run '^%s$' -testbed.seed %d)", seed, t.Name(), seed)
	return seed
}

// faultRolloutOf reads the rollout annotation (nil when there is none).
func faultRolloutOf(t *testing.T, client kubernetes.Interface) *progressive.Rollout {
	t.Helper()
	r, err := progressive.Get(context.Background(), client, namespace, dsName)
	if errors.Is(err, progressive.ErrNoRollout) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// unissued counts the pods the annotation records in flight that still
// run, not terminating: deletes a driver decided and wrote, and did not
// issue.
func unissued(t *testing.T, client kubernetes.Interface) int {
	t.Helper()
	r := faultRolloutOf(t, client)
	if r == nil {
		return 0
	}
	n := 0
	for _, f := range r.Status.InFlight {
		p, err := client.CoreV1().Pods(namespace).Get(context.Background(), f.Pod, metav1.GetOptions{})
		if err == nil && p.UID == f.UID && p.DeletionTimestamp == nil {
			n++
		}
	}
	return n
}

// daemonplanWrites are the CLI's writes as kube-apiserver answered them
// (the audit log; user agent daemonplan/VERSION).
func daemonplanWrites(t *testing.T, b *Bed, client string) string {
	t.Helper()
	w, err := b.Writes()
	if err != nil {
		t.Fatal(err)
	}
	return FormatCounts(w[client])
}

// TestProgressiveFaultsKill: 9 nodes in zones a, b, c; a canary of 1, then
// a → b → c under maxUnavailable 2. The CLI (`rollout start --watch`, then
// `resume --watch` or `promote --watch` as the last run left it) is
// SIGKILLed up to 8 times (at least 5) at seeded moments: half at a
// random time 0.2-1.5 s into a run, half 0-2 ms after the watch shows a
// version of the annotation that records new deletes (the driver is about
// to delete, or deleting), or 2 s into the run if none comes; after each
// kill it is started again, until the rollout is done. The checker judges every moment; the end is compared with
// RollingUpdate's.
func TestProgressiveFaultsKill(t *testing.T) {
	seed := progressiveSeed(t)
	rng := rand.New(rand.NewPCG(seed, 1))
	nodes := nodeNames(0, 9)
	ref := reference(t, nodes, 2, nil, "agent:v2")
	pb := startPFBed(t, "progressive-kill", nodes, 0)
	cli := newCLI(t, pb.b.Kubeconfig, pb.b.Dir)
	chk := pb.watchRollout(checkSpec{budget: 2, canary: 1})
	setTemplateImage(t, pb.b, "agent:v2")

	start := time.Now()
	next := rolloutArgs("start", "--canary", "1", "--zones", "a,b,c", "--max-unavailable", "2")
	const maxKills = 8
	kills, atRecord, left, transient := 0, 0, 0, 0
	var kinds []string
	for {
		if time.Since(start) > 3*time.Minute {
			t.Fatalf("the rollout did not end within 3 minutes; %s", cli.summary())
		}
		p := cli.start(next...)
		if kills < maxKills {
			var trigger <-chan struct{}
			var after, fallback time.Duration
			if rng.IntN(2) == 0 {
				trigger, after, fallback = chk.nextRecord(), time.Duration(rng.IntN(3))*time.Millisecond, 2*time.Second
			} else {
				fallback = time.Duration(200+rng.IntN(1300)) * time.Millisecond
			}
			kind := ""
			select {
			case <-p.done:
			case <-trigger:
				time.Sleep(after)
				kind = fmt.Sprintf("%.1fs at a record+%v", time.Since(p.start).Seconds(), after)
				atRecord++
			case <-time.After(fallback):
				kind = fmt.Sprintf("%.1fs", time.Since(p.start).Seconds())
			}
			if kind != "" && !p.exited() {
				p.kill()
				kills++
				n := unissued(t, pb.b.Client)
				left += n
				if n > 0 {
					kind += fmt.Sprintf(" (%d deletes recorded, not issued)", n)
				}
				kinds = append(kinds, strings.Join(p.args[:2], " ")+"@"+kind)
			}
		}
		code, ok := p.wait(2 * time.Minute)
		if !ok {
			p.kill()
			t.Fatalf("%v", p)
		}
		switch code {
		case 0:
			if r := faultRolloutOf(t, pb.b.Client); r == nil || r.Status.Phase != progressive.PhaseDone {
				t.Fatalf("exit 0 and the rollout is not done: %+v\n%v", r, p)
			}
		case killed:
			next = rolloutArgs("resume")
			if faultRolloutOf(t, pb.b.Client) == nil {
				next = rolloutArgs("start", "--canary", "1", "--zones", "a,b,c", "--max-unavailable", "2")
			}
			continue
		case 5: // the canary waits for the verdict
			next = rolloutArgs("promote")
			continue
		case 1:
			transient++
			t.Logf("exit 1, started again: %v", p)
			if transient > 10 {
				t.Fatalf("more than 10 runs failed; %s", cli.summary())
			}
			next = rolloutArgs("resume")
			time.Sleep(200 * time.Millisecond)
			continue
		default:
			t.Fatalf("%v", p)
		}
		break
	}
	took := time.Since(start)
	if _, err := pb.waitConverged("agent:v2", nodes, time.Minute); err != nil {
		t.Fatal(err)
	}
	rep := chk.verify(t, pb.b, zoneABC)
	pb.untouchedDecoys("daemonplan")
	compareFinal(t, ref, finalState(t, pb.b, dsName), true)
	t.Logf("done in %v with %d kills (%d of them at a record; %d deletes recorded and not issued at a kill, issued by the next run): %s", took.Round(time.Millisecond), kills, atRecord, left, strings.Join(kinds, ", "))
	t.Logf("phases: %s", chk.phases())
	t.Logf("%v", rep)
	t.Logf("%s; writes: %s", cli.summary(), daemonplanWrites(t, pb.b, "daemonplan"))
	// The rollout lasts at least about 10 s (kwok's 1 s to Ready and the
	// 1 s grace period, 6 rounds), and a kill comes every 2 s at most.
	if kills < 5 {
		t.Errorf("only %d kills before the end (want at least 5)", kills)
	}
}

// TestProgressiveFaultsTwoDrivers: 9 nodes in zones a, b, c under
// maxUnavailable 2; `rollout start`, then two `rollout resume --watch`
// processes at once on the same DaemonSet, stepping every 500 ms and every
// 300 ms, until both end. The checker
// judges every moment; the end is compared with RollingUpdate's.
func TestProgressiveFaultsTwoDrivers(t *testing.T) {
	nodes := nodeNames(0, 9)
	ref := reference(t, nodes, 2, nil, "agent:v2")
	pb := startPFBed(t, "progressive-two-drivers", nodes, 0)
	cli := newCLI(t, pb.b.Kubeconfig, pb.b.Dir)
	chk := pb.watchRollout(checkSpec{budget: 2})
	setTemplateImage(t, pb.b, "agent:v2")
	if code := cli.run(time.Minute, "rollout", "start", "ds/"+dsName, "--zones", "a,b,c", "--max-unavailable", "2"); code != 0 {
		t.Fatalf("rollout start: exit %d", code)
	}
	start := time.Now()
	// Steps every 500 ms and every 300 ms: they meet at every phase.
	ps := []*cliProc{cli.start(rolloutArgs("resume")...), cli.start("rollout", "resume", "ds/"+dsName, "--watch", "--interval", "300ms")}
	for _, p := range ps {
		code, ok := p.wait(3 * time.Minute)
		if !ok {
			p.kill()
		}
		if code != 0 || !ok {
			t.Errorf("%v", p)
		}
	}
	took := time.Since(start)
	if _, err := pb.waitConverged("agent:v2", nodes, time.Minute); err != nil {
		t.Fatal(err)
	}
	rep := chk.verify(t, pb.b, zoneABC)
	pb.untouchedDecoys("daemonplan")
	compareFinal(t, ref, finalState(t, pb.b, dsName), true)
	t.Logf("both drivers done in %v; they deleted %d and %d pods (%v and %v)", took.Round(time.Millisecond), deleted(ps[0]), deleted(ps[1]), ps[0].String(), ps[1].String())
	t.Logf("phases: %s", chk.phases())
	t.Logf("%v", rep)
	t.Logf("%s; writes: %s", cli.summary(), daemonplanWrites(t, pb.b, "daemonplan"))
}

// started reports whether the DaemonSet has a rollout, reading it again
// while kube-apiserver is down (restarted), up to a minute.
func started(t *testing.T, client kubernetes.Interface) bool {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		_, err := progressive.Get(context.Background(), client, namespace, dsName)
		switch {
		case err == nil:
			return true
		case errors.Is(err, progressive.ErrNoRollout):
			return false
		case time.Now().After(deadline):
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// deleted counts the pods a --watch run printed it deleted ("deleted
// POD@NODE POD@NODE").
func deleted(p *cliProc) int {
	n := 0
	for _, line := range strings.Split(p.out.String(), "\n") {
		if _, list, ok := strings.Cut(line, ", deleted "); ok {
			list, _, _ = strings.Cut(list, ";")
			n += len(strings.Fields(list))
		}
	}
	return n
}

// errClass names an error of a step for the counts.
func errClass(err error) string {
	switch {
	case errors.Is(err, progressive.ErrConflict):
		return "Conflict"
	case strings.Contains(err.Error(), "connection refused"):
		return "connection refused"
	case strings.Contains(err.Error(), `an error on the server ("")`):
		return "502 from the proxy (kube-apiserver down)"
	}
	if r := apierrors.ReasonForError(err); r != metav1.StatusReasonUnknown {
		return string(r)
	}
	s := err.Error()
	if len(s) > 80 {
		s = s[:80]
	}
	return s
}

// TestProgressiveFaultsAPIServer: 9 nodes in zones a, b, c under
// maxUnavailable 2; the driver reaches kube-apiserver through a
// FaultProxy that fails a seeded 30-50 % of its writes (500, 429 with
// Retry-After, 409, 504 after the write was done), and kube-apiserver is
// restarted (Bed.RestartAPIServer) 2-5 s into each rollout. First the
// CLI: `rollout start --watch`, started again with `resume --watch`
// whenever it exits 1 (the exits and the errors printed are logged);
// its end is compared with RollingUpdate's. Then the library: a new
// image rolled out by progressive.Step in a loop, every error followed by
// a new step. The checker judges every moment of both.
func TestProgressiveFaultsAPIServer(t *testing.T) {
	seed := progressiveSeed(t)
	rng := rand.New(rand.NewPCG(seed, 3))
	nodes := nodeNames(0, 9)
	ref := reference(t, nodes, 2, nil, "agent:v2")
	pb := startPFBed(t, "progressive-apiserver", nodes, 0)
	rate := 0.3 + 0.2*rng.Float64()
	proxy, err := StartFaultProxy(pb.b, "daemonplan", seed, rate)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	cli := newCLI(t, proxy.Kubeconfig, pb.b.Dir)
	chk := pb.watchRollout(checkSpec{budget: 2})
	setTemplateImage(t, pb.b, "agent:v2")

	// The CLI.
	proxy.SetFaults(true)
	start := time.Now()
	// restart restarts kube-apiserver after a seeded 2-5 s, beside the
	// driver: the driver runs on while it is down.
	restart := func() <-chan struct{} {
		done := make(chan struct{})
		after := time.Duration(2000+rng.IntN(3000)) * time.Millisecond
		go func() {
			defer close(done)
			time.Sleep(after)
			down, err := pb.b.RestartAPIServer()
			if err != nil {
				t.Error(err)
				return
			}
			t.Logf("kube-apiserver killed %v into the rollout, up again %v later", after, down.Round(time.Millisecond))
		}()
		return done
	}
	restarted := restart()
	startArgs := rolloutArgs("start", "--zones", "a,b,c", "--max-unavailable", "2")
	next := startArgs
	runs := 0
	for {
		if time.Since(start) > 3*time.Minute {
			t.Fatalf("the CLI's rollout did not end within 3 minutes; %s", cli.summary())
		}
		p := cli.start(next...)
		runs++
		if code, ok := p.wait(3 * time.Minute); !ok {
			p.kill()
			t.Fatalf("%v", p)
		} else if code == 0 {
			break
		} else if code != 1 {
			t.Fatalf("%v", p)
		}
		next = rolloutArgs("resume")
		if !started(t, pb.b.Client) {
			next = startArgs
		}
		time.Sleep(200 * time.Millisecond)
	}
	select {
	case <-restarted:
	default:
		t.Errorf("the CLI's rollout ended %v in, before kube-apiserver was restarted", time.Since(start))
		<-restarted
	}
	cliTook := time.Since(start)
	proxy.SetFaults(false)
	if _, err := pb.waitConverged("agent:v2", nodes, time.Minute); err != nil {
		t.Fatal(err)
	}
	compareFinal(t, ref, finalState(t, pb.b, dsName), true)
	cliFaults := proxy.Counts()
	t.Logf("the CLI: done in %v, %d runs; write failure rate %.0f%%, injected %s", cliTook.Round(time.Millisecond), runs, 100*rate, FormatCounts(cliFaults))
	t.Logf("the CLI: %s", cli.summary())

	// The library.
	v2 := faultRolloutOf(t, pb.b.Client).Status.Revision
	cfg, err := clientcmd.BuildConfigFromFlags("", proxy.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg.UserAgent = "daemonplan-library"
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	setTemplateImage(t, pb.b, "agent:v3")
	proxy.SetFaults(true)
	start = time.Now()
	restarted = restart()
	steps, errs := 0, map[string]int{}
	for {
		if time.Since(start) > 3*time.Minute {
			t.Fatalf("the library's rollout did not end within 3 minutes; errors %s", FormatCounts(errs))
		}
		res, err := progressive.Step(context.Background(), client, namespace, dsName, time.Now())
		steps++
		if err != nil {
			errs[errClass(err)]++
			time.Sleep(200 * time.Millisecond)
			continue
		}
		for _, d := range res.Deletes {
			if d.Err != nil {
				errs["delete: "+errClass(d.Err)]++
			}
		}
		if st := res.Rollout.Status; st.Phase == progressive.PhaseDone && st.Revision != v2 {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	select {
	case <-restarted:
	default:
		t.Errorf("the library's rollout ended %v in, before kube-apiserver was restarted", time.Since(start))
		<-restarted
	}
	libTook := time.Since(start)
	proxy.SetFaults(false)
	if _, err := pb.waitConverged("agent:v3", nodes, time.Minute); err != nil {
		t.Fatal(err)
	}
	rep := chk.verify(t, pb.b, zoneABC)
	pb.untouchedDecoys("daemonplan", "daemonplan-library")
	all := proxy.Counts()
	for k, n := range cliFaults {
		all[k] -= n
	}
	t.Logf("the library: done in %v, %d steps; injected %s; step errors %s", libTook.Round(time.Millisecond), steps, FormatCounts(all), FormatCounts(errs))
	t.Logf("phases: %s", chk.phases())
	t.Logf("%v", rep)
	t.Logf("writes: CLI %s; library %s", daemonplanWrites(t, pb.b, "daemonplan"), daemonplanWrites(t, pb.b, "daemonplan-library"))
}

// TestProgressiveFaultsAbortUndo: 6 nodes in zones a, b, c under
// maxUnavailable 1. `rollout start --watch`; once a pod is deleted,
// `rollout pause` (the watch exits 5), 3 s with no delete, `rollout
// resume --watch`; once two more pods are deleted, `rollout abort` (the
// watch exits 4; `rollout status` exits 4), 3 s with no delete; then
// `rollout undo --watch` takes every node back to agent:v1 under the same
// policy. The checker judges every moment, the pause and the abort
// included; the end is compared with RollingUpdate's after agent:v2 and
// back to agent:v1.
func TestProgressiveFaultsAbortUndo(t *testing.T) {
	nodes := nodeNames(0, 6)
	ref := reference(t, nodes, 1, nil, "agent:v2", "agent:v1")
	pb := startPFBed(t, "progressive-abort-undo", nodes, 0)
	cli := newCLI(t, pb.b.Kubeconfig, pb.b.Dir)
	chk := pb.watchRollout(checkSpec{budget: 1})
	setTemplateImage(t, pb.b, "agent:v2")
	expect := func(p *cliProc, want int) {
		t.Helper()
		code, ok := p.wait(2 * time.Minute)
		if !ok {
			p.kill()
		}
		if !ok || code != want {
			t.Fatalf("want exit %d: %v", want, p)
		}
	}
	p1 := cli.start(rolloutArgs("start", "--zones", "a,b,c", "--max-unavailable", "1")...)
	chk.waitTouched(t, 1, time.Minute)
	expect(cli.start("rollout", "pause", "ds/"+dsName), 0)
	expect(p1, 5)
	// verify fails any delete after the pause was written, but the
	// window (a delete recorded in flight before it).
	paused := chk.touched()
	time.Sleep(3 * time.Second)
	duringPause := chk.touched() - paused
	p2 := cli.start(rolloutArgs("resume")...)
	chk.waitTouched(t, paused+2, time.Minute)
	expect(cli.start("rollout", "abort", "ds/"+dsName), 0)
	expect(p2, 4)
	status := cli.start("rollout", "status", "ds/"+dsName)
	expect(status, 4)
	aborted := chk.touched()
	time.Sleep(3 * time.Second)
	afterAbort := chk.touched() - aborted
	images := dsImages(t, pb.b)
	start := time.Now()
	p3 := cli.start(rolloutArgs("undo")...)
	expect(p3, 0)
	took := time.Since(start)
	if _, err := pb.waitConverged("agent:v1", nodes, time.Minute); err != nil {
		t.Fatal(err)
	}
	rep := chk.verify(t, pb.b, zoneABC)
	pb.untouchedDecoys("daemonplan")
	compareFinal(t, ref, finalState(t, pb.b, dsName), false)
	t.Logf("paused after %d deletes (%d more seen in the 3 s paused), aborted after %d (%d more seen in the 3 s after) with images %v; `rollout status` after the abort:\n%s", paused, duringPause, aborted, afterAbort, images, status.out.String())
	t.Logf("undo done in %v: %v", took.Round(time.Millisecond), p3)
	t.Logf("phases: %s", chk.phases())
	t.Logf("%v", rep)
	t.Logf("%s; writes: %s", cli.summary(), daemonplanWrites(t, pb.b, "daemonplan"))
}

// TestProgressiveFaultsNodeChurn: 6 nodes in zones a, b, c under
// maxUnavailable 2; `rollout start --watch`; once a third pod is deleted
// (zone a's first two nodes are done), the test adds node-6 (zone a) and node-7 (zone b) and deletes node-5 (zone
// c; its pods force-deleted, as the pod garbage collector would). The
// new nodes get their pods from the controller, of the new template, and
// are never touched; the rollout ends with agent:v2 on the 7 nodes. The
// checker judges every moment; the nodes added count against the budget
// only until their first pod is ready (the driver counts them as
// Missing, then Updating, and deletes less meanwhile). The end is
// compared with RollingUpdate's with the same churn once a pod of the new
// image is ready.
func TestProgressiveFaultsNodeChurn(t *testing.T) {
	nodes := nodeNames(0, 6)
	churn := &nodeChurn{add: []string{"node-6", "node-7"}, remove: "node-5"}
	ref := reference(t, nodes, 2, churn, "agent:v2")
	pb := startPFBed(t, "progressive-node-churn", nodes, 0)
	cli := newCLI(t, pb.b.Kubeconfig, pb.b.Dir)
	chk := pb.watchRollout(checkSpec{budget: 2})
	setTemplateImage(t, pb.b, "agent:v2")
	start := time.Now()
	p := cli.start(rolloutArgs("start", "--zones", "a,b,c", "--max-unavailable", "2")...)
	chk.waitTouched(t, 3, time.Minute) // zone a's first two nodes are done
	for _, n := range churn.add {
		chk.addNode(n)
	}
	chk.removeNode(churn.remove)
	churn.apply(pb.s)
	churnAt := time.Since(start)
	code, ok := p.wait(2 * time.Minute)
	if !ok {
		p.kill()
	}
	if !ok || code != 0 {
		t.Fatalf("%v", p)
	}
	took := time.Since(start)
	if _, err := pb.waitConverged("agent:v2", churn.after(nodes), time.Minute); err != nil {
		t.Fatal(err)
	}
	rep := chk.verify(t, pb.b, zoneABC)
	pb.untouchedDecoys("daemonplan")
	compareFinal(t, ref, finalState(t, pb.b, dsName), true)
	chk.mu.Lock()
	for _, tc := range chk.touches {
		if tc.node == "node-6" || tc.node == "node-7" {
			t.Errorf("pod %s on the added node %s deleted", tc.pod, tc.node)
		}
	}
	chk.mu.Unlock()
	t.Logf("nodes added and removed %v into the rollout; done in %v: %v", churnAt.Round(time.Millisecond), took.Round(time.Millisecond), p)
	t.Logf("phases: %s", chk.phases())
	t.Logf("%v", rep)
	t.Logf("%s; writes: %s", cli.summary(), daemonplanWrites(t, pb.b, "daemonplan"))
}
