package plantest_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/plantest"
	"github.com/daemonplan/daemonplan/sim"
	"pgregory.net/rapid"
)

// everything turns every knob of the generators on.
var everything = plantest.Options{Rollout: true, Failed: true, Terminating: true, Orphans: true}

// checkSync is the body of a user's property test: plan a generated
// snapshot, then check the plan, that nothing changed the input, and that
// the plan does not depend on input order.
func checkSync(t *rapid.T, plan plantest.SyncFunc, c plantest.Snapshot) error {
	before := cloneInput(c.Input)
	p, err := plan(c.Input)
	if err != nil {
		return err
	}
	if err := plantest.CheckSync(c.Input, p); err != nil {
		return err
	}
	if !reflect.DeepEqual(before, c.Input) {
		return errors.New("the planner or the checkers changed their input")
	}
	return plantest.CheckPermutation(plan, c.Input, plantest.Permutation(c.Input).Draw(t, "permuted"))
}

// TestSyncInvariants is a user's property test, written as the package doc
// shows: on every generated snapshot, tidy or not, with expectations
// pending or not, the plan of daemonplan.Sync passes CheckSync, and
// planning a permutation of the input gives the same plan.
func TestSyncInvariants(t *testing.T) {
	for _, tc := range []struct {
		name   string
		reason string
		opts   plantest.Options
	}{
		{name: "tidy", reason: "the zero Options: the common case must hold without any trouble", opts: plantest.Options{}},
		{name: "rollout", reason: "old revisions and pods of them exercise the rolling update budgets", opts: plantest.Options{Rollout: true}},
		{name: "everything", reason: "every knob at once: orphans, failed and terminating pods, collisions", opts: everything},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				c := plantest.Snapshots(tc.opts).Draw(t, "snapshot")
				c.ExpectationsPending = rapid.IntRange(0, 9).Draw(t, "pending") == 0
				if err := checkSync(t, sync, c); err != nil {
					t.Fatalf("%s: %v", tc.reason, err)
				}
			})
		})
	}
}

// broken wraps Sync with a bug applied to its plan.
func broken(bug func(in daemonplan.Input, p *daemonplan.Plan)) plantest.SyncFunc {
	return func(in daemonplan.Input) (daemonplan.Plan, error) {
		p, err := sync(in)
		if err == nil {
			bug(in, &p)
		}
		return p, err
	}
}

// ownedOld lists the pods the DaemonSet controls in its namespace that do
// not carry hash, and that p does not delete yet.
func ownedOld(in daemonplan.Input, p *daemonplan.Plan) []api.Pod {
	var out []api.Pod
	for _, pod := range in.Pods {
		if pod.Namespace == in.DaemonSet.Namespace && pod.Controller != nil && pod.Controller.UID == in.DaemonSet.UID &&
			pod.Labels[api.LabelRevisionHash] != p.Hash && !deletes(p, pod.Name) {
			out = append(out, pod)
		}
	}
	return out
}

func deletes(p *daemonplan.Plan, name string) bool {
	for _, d := range p.Delete {
		if d.Pod == name {
			return true
		}
	}
	return false
}

// TestSyncInvariantsFailOnBrokenPlanners: the same property, fed planners
// with one bug each, fails, and names the invariant the bug breaks. It
// draws snapshots from fixed seeds (Generator.Example) rather than under
// rapid.Check, whose failure would fail this test.
func TestSyncInvariantsFailOnBrokenPlanners(t *testing.T) {
	for _, tc := range []struct {
		name   string
		reason string
		opts   plantest.Options
		bug    func(in daemonplan.Input, p *daemonplan.Plan)
		want   plantest.Invariant
	}{
		{name: "ignores maxUnavailable", reason: "a rolling update that deletes every old pod at once", want: plantest.MaxUnavailable, opts: plantest.Options{Rollout: true},
			bug: func(in daemonplan.Input, p *daemonplan.Plan) {
				if len(p.Delete) == 0 || p.Delete[0].Reason != placement.Outdated {
					return
				}
				for _, pod := range ownedOld(in, p) {
					p.Delete = append(p.Delete, placement.Delete{Pod: pod.Name, Node: pod.NodeName, Reason: placement.Outdated})
				}
			}},
		{name: "ignores maxSurge", reason: "a surge that creates beside every old pod at once", want: plantest.MaxSurge, opts: plantest.Options{Rollout: true},
			bug: func(in daemonplan.Input, p *daemonplan.Plan) {
				if len(p.Create) == 0 || len(p.Delete) > 0 {
					return
				}
				for _, pod := range ownedOld(in, p) {
					p.Create = append(p.Create, placement.Create{Node: pod.NodeName})
				}
			}},
		{name: "keeps duplicates", reason: "manage forgets to delete the younger of two pods", want: plantest.PodsPerNode, opts: everything,
			bug: func(_ daemonplan.Input, p *daemonplan.Plan) {
				var keep []placement.Delete
				for _, d := range p.Delete {
					if d.Reason != placement.Duplicate {
						keep = append(keep, d)
					}
				}
				p.Delete = keep
			}},
		{name: "counts ready as available", reason: "the status ignores minReadySeconds", want: plantest.StatusRecount, opts: everything,
			bug: func(_ daemonplan.Input, p *daemonplan.Plan) {
				p.Status.NumberAvailable = p.Status.NumberReady
				p.Status.NumberUnavailable = p.Status.DesiredNumberScheduled - p.Status.NumberReady
			}},
		{name: "deletes strays", reason: "pods of another controller on the DaemonSet's nodes are deleted too", want: plantest.Ownership, opts: everything,
			bug: func(in daemonplan.Input, p *daemonplan.Plan) {
				for _, pod := range in.Pods {
					if pod.Namespace == in.DaemonSet.Namespace && pod.Controller != nil && pod.Controller.UID != in.DaemonSet.UID {
						p.Delete = append(p.Delete, placement.Delete{Pod: pod.Name, Node: pod.NodeName, Reason: placement.Duplicate})
					}
				}
			}},
		{name: "creates after an error", reason: "a failed sync still creates pods", want: plantest.Stop, opts: everything,
			bug: func(in daemonplan.Input, p *daemonplan.Plan) {
				if len(p.Errors) > 0 && len(in.Nodes) > 0 {
					p.Create = append(p.Create, placement.Create{Node: in.Nodes[0].Name})
				}
			}},
		{name: "order-dependent", reason: "node decisions listed in input order", want: plantest.Determinism, opts: everything,
			bug: func(in daemonplan.Input, p *daemonplan.Plan) {
				for i := range p.Nodes {
					p.Nodes[i].Node = in.Nodes[i].Name
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gen := rapid.Custom(func(t *rapid.T) error {
				return checkSync(t, broken(tc.bug), plantest.Snapshots(tc.opts).Draw(t, "snapshot"))
			})
			for seed := range 1000 {
				err := gen.Example(seed)
				if plantest.Violated(err, tc.want) {
					t.Logf("found at seed %d", seed)
					return
				}
				var vs plantest.Findings
				if err != nil && !errors.As(err, &vs) {
					t.Fatalf("seed %d: %v", seed, err)
				}
			}
			t.Fatalf("%s: no %v violation in 1000 snapshots", tc.reason, tc.want)
		})
	}
}

// TestRolloutFromGeneratedClusters: Rollout inside a rapid property. A
// generated DaemonSet (strategy, budgets, selectors, tolerations) on
// generated nodes rolls its first template out and then an update, every
// step checked and both ends converged.
func TestRolloutFromGeneratedClusters(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		opts := plantest.Options{}
		ds := plantest.DaemonSet(opts).Draw(t, "ds")
		ds.Status = api.Status{}
		var nodes []api.Node
		for i := range rapid.IntRange(1, 12).Draw(t, "nodes") {
			nodes = append(nodes, plantest.Node(opts, i).Draw(t, "node"))
		}
		c := sim.New(*ds, sim.Template{PodTemplate: ds.Template, Image: "v1"}, nodes, plantest.Epoch)
		plantest.Rollout(t, c, plantest.RolloutOptions{})
		c.Update(sim.Template{PodTemplate: ds.Template, Image: "v2"}, "")
		plantest.Rollout(t, c, plantest.RolloutOptions{})
	})
}
