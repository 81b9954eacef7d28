package progressive_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/tools/record"

	"github.com/daemonplan/daemonplan/kube/progressive"
)

// TestSwitchStrategy: StartOptions.SwitchStrategy switches a DaemonSet on
// RollingUpdate to OnDelete and records its strategy; the step that finds
// the rollout done writes it back. An aborted rollout stays on OnDelete
// (the controller would roll the aborted revision out) until the undo's
// rollout is done.
func TestSwitchStrategy(t *testing.T) {
	two := intstr.FromInt32(2)
	rolling := appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType, RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &two}}
	onDelete := appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
	tests := []struct {
		name, reason string
		initial      appsv1.DaemonSetUpdateStrategy
		switchIt     bool
		image        string
		abort        bool
		wantErr      string
		// wantDuring is the strategy while the rollout runs, wantEnd at
		// its end.
		wantDuring, wantEnd appsv1.DaemonSetUpdateStrategy
		wantEvents          []string
	}{
		{name: "refused without the flag", reason: "the refusal stays as it was", initial: rolling, image: "agent:v2",
			wantErr: "has updateStrategy RollingUpdate, not OnDelete"},
		{name: "switched and back", reason: "OnDelete while it runs, the original strategy with its budget at the end", initial: rolling, switchIt: true, image: "agent:v2",
			wantDuring: onDelete, wantEnd: rolling, wantEvents: []string{"switched from RollingUpdate to OnDelete until the rollout is done", "Normal UpdateStrategyRestored updateStrategy switched back to RollingUpdate"}},
		{name: "already OnDelete", reason: "nothing to switch, nothing recorded", initial: onDelete, switchIt: true, image: "agent:v2",
			wantDuring: onDelete, wantEnd: onDelete},
		{name: "aborted, then undo", reason: "the abort keeps OnDelete; the undo's rollout switches back at its end", initial: rolling, switchIt: true, image: "agent:bad", abort: true,
			wantDuring: onDelete, wantEnd: rolling, wantEvents: []string{"Normal UpdateStrategyRestored"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t, []string{"", "", ""}, "")
			c.never["agent:bad"] = true
			ds := c.daemonSet().DeepCopy()
			ds.Spec.UpdateStrategy = tc.initial
			if _, err := c.fc.AppsV1().DaemonSets(ns).Update(ctx, ds, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			rec := record.NewFakeRecorder(1000)
			dr := progressive.Driver{Client: c.fc, Recorder: rec}
			_, err := dr.StartWith(ctx, ns, dsName, progressive.Policy{}, progressive.StartOptions{SwitchStrategy: tc.switchIt})
			if tc.wantErr != "" {
				var noe *progressive.NotOnDeleteError
				if !errors.As(err, &noe) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("%s: %v, want %q", tc.reason, err, tc.wantErr)
				}
				if got := c.daemonSet().Spec.UpdateStrategy; got.Type != tc.initial.Type {
					t.Errorf("%s: the refusal changed the strategy to %v", tc.reason, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			strategy := func() appsv1.DaemonSetUpdateStrategy { return c.daemonSet().Spec.UpdateStrategy }
			if got := strategy(); !equalStrategy(got, tc.wantDuring) {
				t.Fatalf("%s: after start, strategy %+v, want %+v", tc.reason, got, tc.wantDuring)
			}
			c.setImage(tc.image)
			c.tick()
			if tc.abort {
				c.drive(dr, 3, nil, 3)
				ok(dr.Abort(ctx, ns, dsName, "bad"))
				c.drive(dr, 2, nil, 2)
				if got := strategy(); !equalStrategy(got, onDelete) {
					t.Fatalf("%s: after the abort, strategy %+v, want OnDelete", tc.reason, got)
				}
				if _, err := dr.Undo(ctx, ns, dsName); err != nil {
					t.Fatal(err)
				}
				c.tick()
			}
			res := c.drive(dr, 40, nil)
			if got := strategy(); !equalStrategy(got, tc.wantEnd) || res.Rollout.Status.Restore != nil {
				t.Errorf("%s: at the end, strategy %+v (restore %v), want %+v", tc.reason, got, res.Rollout.Status.Restore, tc.wantEnd)
			}
			// Stepped again, on RollingUpdate or not: nothing to drive,
			// no error.
			for range 2 {
				c.tick()
				if res, err := dr.Step(ctx, ns, dsName, c.fc.Now()); err != nil || res.Wrote {
					t.Errorf("%s: a step after the end: wrote %v, %v", tc.reason, res.Wrote, err)
				}
			}
			all := strings.Join(recorded(rec), "\n")
			for _, w := range tc.wantEvents {
				if !strings.Contains(all, w) {
					t.Errorf("%s: no Event says %q:\n%s", tc.reason, w, all)
				}
			}
			if got := c.images(); slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, "agent:bad") }) {
				t.Errorf("%s: bad pods left: %v", tc.reason, got)
			}
		})
	}
}

func equalStrategy(a, b appsv1.DaemonSetUpdateStrategy) bool {
	if a.Type != b.Type || (a.RollingUpdate == nil) != (b.RollingUpdate == nil) {
		return false
	}
	return a.RollingUpdate == nil || a.RollingUpdate.MaxUnavailable.String() == b.RollingUpdate.MaxUnavailable.String()
}
