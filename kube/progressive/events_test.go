package progressive_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"

	"github.com/daemonplan/daemonplan/kube/progressive"
)

// recorded drains a FakeRecorder: "Type Reason Message" each.
func recorded(rec *record.FakeRecorder) []string {
	var out []string
	for {
		select {
		case e := <-rec.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

// reasons keeps "Type Reason" of each Event, runs of SuccessfulDelete
// folded into one.
func reasons(evs []string) []string {
	var out []string
	for _, e := range evs {
		f := strings.SplitN(e, " ", 3)
		r := f[0] + " " + f[1]
		if r == "Normal SuccessfulDelete" && len(out) > 0 && out[len(out)-1] == r {
			continue
		}
		out = append(out, r)
	}
	return out
}

// TestEvents: the Events a Driver records on the DaemonSet through whole
// rollouts on the fake cluster, in order (runs of deletes folded).
func TestEvents(t *testing.T) {
	readyDeadline := &progressive.Gates{ReadyDeadline: metav1.Duration{Duration: 5 * time.Second}}
	abortGate := &progressive.Gates{ReadyDeadline: metav1.Duration{Duration: 5 * time.Second}, OnFailure: progressive.ActionAbort}
	tests := []struct {
		name, reason string
		zones        []string
		policy       progressive.Policy
		image        string
		// drive runs the rollout with the driver after the template
		// change; it returns at the end of what the test checks.
		drive func(c *cluster, dr progressive.Driver)
		want  []string
		// wantIn are substrings of the messages.
		wantIn []string
	}{
		{
			name: "canary, promote, zones", reason: "start, each phase entered, the promote, each delete, the end",
			zones:  zones6,
			policy: progressive.Policy{Canary: &progressive.CanaryPolicy{Nodes: count(1)}, Zones: &progressive.ZonesPolicy{Order: []string{"c", "a", "b"}}},
			image:  "agent:v2",
			drive: func(c *cluster, dr progressive.Driver) {
				c.drive(dr, 20, func(r progressive.StepResult) bool { return strings.Contains(r.Waiting, "promote") })
				ok(dr.Promote(ctx, ns, dsName))
				c.drive(dr, 60, nil)
			},
			want: []string{"Normal RolloutStarted", "Normal SuccessfulDelete", "Normal CanaryPromoted",
				"Normal PhaseChanged", "Normal SuccessfulDelete", "Normal PhaseChanged", "Normal SuccessfulDelete", "Normal PhaseChanged", "Normal SuccessfulDelete",
				"Normal RolloutComplete"},
			wantIn: []string{"progressive rollout started: canary 1, zones c, a, b, maxUnavailable 1", "phase Zone c (was Canary)", "phase Zone a (was Zone c)", "Deleted pod: agent-"},
		},
		{
			name: "gate pauses", reason: "the pod that failed the gate and why (Warning), the pause, the resume that waives it",
			zones:  []string{"", "", ""},
			policy: progressive.Policy{Gates: readyDeadline},
			image:  "agent:bad",
			drive: func(c *cluster, dr progressive.Driver) {
				c.drive(dr, 20, func(r progressive.StepResult) bool { return r.Rollout.Status.Paused != nil })
				for range 3 {
					c.tick()
					c.driveStep(dr) // still paused: no new Event
				}
				ok(dr.Resume(ctx, ns, dsName))
			},
			want:   []string{"Normal RolloutStarted", "Normal PhaseChanged", "Normal SuccessfulDelete", "Warning GateFailed", "Warning RolloutPaused", "Normal RolloutResumed"},
			wantIn: []string{"on node node-0 not Ready 6s after its creation (gate: Ready within 5s)", "the 1 pods that failed a gate are no longer judged"},
		},
		{
			name: "gate aborts, undo", reason: "a gate with onFailure Abort records the pod and the abort; undo records the roll back and the rollout to the end",
			zones:  []string{"", ""},
			policy: progressive.Policy{Gates: abortGate},
			image:  "agent:bad",
			drive: func(c *cluster, dr progressive.Driver) {
				c.drive(dr, 20, func(r progressive.StepResult) bool { return r.Rollout.Status.Phase == progressive.PhaseAborted })
				c.tick()
				if _, err := dr.Undo(ctx, ns, dsName); err != nil {
					t.Fatal(err)
				}
				c.drive(dr, 30, nil)
			},
			want: []string{"Normal RolloutStarted", "Normal PhaseChanged", "Normal SuccessfulDelete", "Warning GateFailed", "Warning RolloutAborted",
				"Normal RolledBack", "Normal PhaseChanged", "Normal SuccessfulDelete", "Normal RolloutComplete"},
			wantIn: []string{"template set back to revision 1", "phase Rest\n"},
		},
		{
			name: "user pause, abort", reason: "the user's pause and abort, with their reasons",
			zones:  []string{"", ""},
			policy: progressive.Policy{},
			image:  "agent:v2",
			drive: func(c *cluster, dr progressive.Driver) {
				ok(dr.Pause(ctx, ns, dsName, "change freeze"))
				c.drive(dr, 3, func(progressive.StepResult) bool { return false }, 3)
				ok(dr.Abort(ctx, ns, dsName, "bad build"))
			},
			want:   []string{"Normal RolloutStarted", "Normal RolloutPaused", "Warning RolloutAborted"},
			wantIn: []string{"paused by User: change freeze", "aborted: bad build"},
		},
		{
			name: "pause point", reason: "a pause point of the policy is recorded as the pause, after the phase change",
			zones:  []string{"a", "b"},
			policy: progressive.Policy{Zones: &progressive.ZonesPolicy{}, PauseBefore: []string{"zone:b"}},
			image:  "agent:v2",
			drive: func(c *cluster, dr progressive.Driver) {
				c.drive(dr, 20, func(r progressive.StepResult) bool { return r.Rollout.Status.Paused != nil })
			},
			want:   []string{"Normal RolloutStarted", "Normal PhaseChanged", "Normal SuccessfulDelete", "Normal PhaseChanged", "Normal RolloutPaused"},
			wantIn: []string{"paused by Policy: pause point before zone b"},
		},
		{
			name: "new revision", reason: "a template change mid-rollout starts it again, recorded once",
			zones:  []string{"", "", ""},
			policy: progressive.Policy{Canary: &progressive.CanaryPolicy{Nodes: count(1)}},
			image:  "agent:v2",
			drive: func(c *cluster, dr progressive.Driver) {
				c.drive(dr, 20, func(r progressive.StepResult) bool { return strings.Contains(r.Waiting, "promote") })
				c.setImage("agent:v3")
				c.tick()
				c.driveStep(dr)
			},
			want:   []string{"Normal RolloutStarted", "Normal SuccessfulDelete", "Normal NewRevision", "Normal SuccessfulDelete"},
			wantIn: []string{"the template changed: rolling out revision"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t, tc.zones, "")
			c.never["agent:bad"] = true
			rec := record.NewFakeRecorder(1000)
			dr := progressive.Driver{Client: c.fc, Recorder: rec}
			ok(dr.Start(ctx, ns, dsName, tc.policy))
			c.setImage(tc.image)
			c.tick()
			tc.drive(c, dr)
			got := recorded(rec)
			if !slices.Equal(reasons(got), tc.want) {
				t.Errorf("%s:\ngot  %q\nwant %q\nevents:\n%s", tc.reason, reasons(got), tc.want, strings.Join(got, "\n"))
			}
			all := strings.Join(got, "\n")
			for _, s := range tc.wantIn {
				if !strings.Contains(all, s) {
					t.Errorf("%s: no Event says %q; events:\n%s", tc.reason, s, all)
				}
			}
		})
	}
}

// ok panics on an error of a command (the tests' cluster never refuses
// one).
func ok(_ *progressive.Rollout, err error) {
	if err != nil {
		panic(err)
	}
}

// drive steps dr and ticks the cluster until the rollout is done, stop
// returns true, or ticks run out (then it fails the test, unless the
// optional limit says how many steps to run).
func (c *cluster) drive(dr progressive.Driver, ticks int, stop func(progressive.StepResult) bool, limit ...int) progressive.StepResult {
	c.t.Helper()
	var res progressive.StepResult
	for i := range ticks {
		res = c.driveStep(dr)
		if res.Rollout.Status.Phase == progressive.PhaseDone || (stop != nil && stop(res)) || (len(limit) > 0 && i+1 == limit[0]) {
			return res
		}
		c.tick()
	}
	c.t.Fatalf("no end after %d ticks: phase %s, waiting %q, images %v", ticks, res.Rollout.Status.Phase, res.Waiting, c.images())
	return res
}

// driveStep is one step of dr, retried after a Conflict.
func (c *cluster) driveStep(dr progressive.Driver) progressive.StepResult {
	c.t.Helper()
	for range 5 {
		res, err := dr.Step(ctx, ns, dsName, c.fc.Now())
		if errors.Is(err, progressive.ErrConflict) {
			continue
		}
		if err != nil {
			c.t.Fatalf("Step: %v", err)
		}
		return res
	}
	c.t.Fatalf("Step: 5 Conflicts")
	return progressive.StepResult{}
}

// TestStepEventsWithoutRecorder: a step reports its Events in
// StepResult.Events whether or not the Driver records them, and a step
// that wrote nothing has none.
func TestStepEventsWithoutRecorder(t *testing.T) {
	c := newCluster(t, []string{"", ""}, "")
	if _, err := progressive.Start(ctx, c.fc, ns, dsName, progressive.Policy{}); err != nil {
		t.Fatal(err)
	}
	c.setImage("agent:v2")
	c.tick()
	res := c.step()
	var got []string
	for _, e := range res.Events {
		got = append(got, e.String())
	}
	want := []string{"Normal PhaseChanged phase Rest", "Normal SuccessfulDelete Deleted pod: agent-00001"}
	if !slices.Equal(got, want) {
		t.Errorf("first step: events %q, want %q", got, want)
	}
	if _, err := progressive.Pause(ctx, c.fc, ns, dsName, ""); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if res = c.step(); !res.Wrote {
			break
		}
	}
	if res.Wrote || len(res.Events) != 0 {
		t.Errorf("a step that wrote nothing: wrote %v, events %v", res.Wrote, res.Events)
	}
}

// TestAPIRecorder: APIRecorder writes each Event at once as a core/v1
// Event about the DaemonSet (its kind, name, namespace and UID, so that
// kubectl describe shows it), and gives a failed create to OnError
// without failing the step.
func TestAPIRecorder(t *testing.T) {
	tests := []struct {
		name, reason string
		refuse       bool
		wantStored   int
		wantErrors   int
	}{
		{"written", "each Event is one create, with the DaemonSet's reference and the source", false, 2, 0},
		{"refused", "a refused create goes to OnError; the command still succeeds", true, 0, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t, []string{""}, "")
			if tc.refuse {
				c.fc.PrependReactor("create", "events", func(k8stesting.Action) (bool, runtime.Object, error) {
					return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "events"}, "", errors.New("no right"))
				})
			}
			var errs []string
			rec := &progressive.APIRecorder{Client: c.fc, Now: c.fc.Now, OnError: func(reason string, err error) { errs = append(errs, reason+": "+err.Error()) }}
			dr := progressive.Driver{Client: c.fc, Recorder: rec}
			if _, err := dr.Start(ctx, ns, dsName, progressive.Policy{}); err != nil {
				t.Fatalf("%s: %v", tc.reason, err)
			}
			if _, err := dr.Pause(ctx, ns, dsName, "freeze"); err != nil {
				t.Fatalf("%s: %v", tc.reason, err)
			}
			evs, err := c.fc.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(evs.Items) != tc.wantStored || len(errs) != tc.wantErrors {
				t.Fatalf("%s: %d Events stored, errors %q", tc.reason, len(evs.Items), errs)
			}
			for _, e := range evs.Items {
				o := e.InvolvedObject
				if o.Kind != "DaemonSet" || o.APIVersion != "apps/v1" || o.Name != dsName || o.Namespace != ns || o.UID != "ds-uid" ||
					e.Source.Component != progressive.EventSource || e.Count != 1 || !e.FirstTimestamp.Time.Equal(t0.Add(10*time.Second)) {
					t.Errorf("%s: event %+v", tc.reason, e)
				}
			}
		})
	}
}

// A Driver with a Recorder records an Event at each change: here a start
// and a pause (record.FakeRecorder prints "Type Reason Message").
func ExampleDriver() {
	ctx := context.Background()
	client := newExampleClient(exampleCluster)
	rec := record.NewFakeRecorder(10)
	dr := progressive.Driver{Client: client, Recorder: rec}
	if _, err := dr.Start(ctx, "default", "agent", progressive.Policy{}); err != nil {
		panic(err)
	}
	if _, err := dr.Pause(ctx, "default", "agent", "change freeze"); err != nil {
		panic(err)
	}
	close(rec.Events)
	for e := range rec.Events {
		fmt.Println(e)
	}
	// Output:
	// Normal RolloutStarted progressive rollout started: maxUnavailable 1
	// Normal RolloutPaused paused by User: change freeze
}
