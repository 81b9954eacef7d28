package plantest

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/sim"
)

// TB is the part of *testing.T, *testing.B and *rapid.T that [Sync] and
// [Rollout] use. Fatalf must stop the caller (as theirs do); if it returns,
// Sync and Rollout return at once.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// snapshot is what the next sync of c reads. The slices are copied: sim's
// Apply and Advance change elements of c's slices in place.
func snapshot(c *sim.Cluster) daemonplan.Input {
	return daemonplan.Input{
		DaemonSet: c.DaemonSet.DeepCopy(),
		Nodes:     slices.Clone(c.Nodes),
		Pods:      slices.Clone(c.Pods),
		Revisions: slices.Clone(c.Revisions),
		Now:       c.Now,
		Backoff:   c.Backoff,
	}
}

// checkedSync runs one sync of c and checks it.
func checkedSync(c *sim.Cluster) (SyncStep, error) {
	s := SyncStep{Input: snapshot(c)}
	p, err := c.Sync()
	s.Plan = p
	if err != nil {
		return s, fmt.Errorf("sync: %w", err)
	}
	if len(p.Errors) > 0 {
		return s, fmt.Errorf("sync: plan errors %v", p.Errors)
	}
	if err := CheckSync(s.Input, p); err != nil {
		return s, fmt.Errorf("%v\nplan: %s", err, Describe(p))
	}
	return s, nil
}

// Sync runs one sync of c ([sim.Cluster.Sync], which plans and applies) and
// checks its plan with [CheckSync] against the state c was in before. It
// fails t when the sync returns an error, when the plan holds Errors, or
// when an invariant breaks, and returns the step.
//
// The checkers assume c.Options are zero but for Hash.
func Sync(t TB, c *sim.Cluster) SyncStep {
	t.Helper()
	s, err := checkedSync(c)
	if err != nil {
		t.Fatalf("plantest.Sync at %s: %v", c.Now.Format(time.TimeOnly), err)
	}
	return s
}

// RolloutOptions tune [Rollout]. The zero value is ready to use.
type RolloutOptions struct {
	// MaxSyncs bounds the syncs; 0 means enough for any rollout whose pods
	// become ready: nodes × (3 + ⌈minReadySeconds / ReadyAfter⌉) + 20.
	// Replacing a batch takes a delete, a create, and the rounds until the
	// new pod is available; the rest is slack for failed pods waiting out
	// their backoff and for duplicates.
	MaxSyncs int
	// BeforeSync, when set, runs before every sync: edit the cluster, end
	// hanging pods.
	BeforeSync func(c *sim.Cluster)
	// AfterSync, when set, runs after every sync that passed its checks.
	AfterSync func(s SyncStep)
}

func (o RolloutOptions) maxSyncs(c *sim.Cluster) int {
	if o.MaxSyncs > 0 {
		return o.MaxSyncs
	}
	minReady := time.Duration(c.DaemonSet.MinReadySeconds) * time.Second
	waits := 0
	if c.ReadyAfter > 0 {
		waits = int((minReady + c.ReadyAfter - 1) / c.ReadyAfter)
	}
	return len(c.Nodes)*(3+waits) + 20
}

// Rollout drives c until its rollout is done and checks every step: it
// syncs (as [Sync], with every per-plan invariant), then advances the clock
// by c.ReadyAfter or the plan's RequeueAfter, whichever is longer, until a
// sync plans no create and no delete, counts every desired node available
// and, for RollingUpdate, reports the rollout done, on a snapshot whose
// claimed pods are all available or going; that last snapshot must pass
// [CheckConverged]. It fails t on the first broken
// invariant, or when the rollout is not done within opts.MaxSyncs syncs,
// and returns the steps.
//
// Rollout needs pods that become ready: set c.FateOf to nil (or to a fate
// that ends well) first, and end hanging pods in BeforeSync.
func Rollout(t TB, c *sim.Cluster, opts RolloutOptions) []SyncStep {
	t.Helper()
	steps, err := rollout(c, opts)
	if err != nil {
		t.Fatalf("plantest.Rollout: %v", err)
	}
	return steps
}

func rollout(c *sim.Cluster, opts RolloutOptions) ([]SyncStep, error) {
	start := c.Now
	limit := opts.maxSyncs(c)
	var steps []SyncStep
	for i := 1; i <= limit; i++ {
		if opts.BeforeSync != nil {
			opts.BeforeSync(c)
		}
		s, err := checkedSync(c)
		steps = append(steps, s)
		if err != nil {
			return steps, fmt.Errorf("sync %d (+%s): %v", i, s.Input.Now.Sub(start), err)
		}
		if opts.AfterSync != nil {
			opts.AfterSync(s)
		}
		if p := s.Plan; done(p) && settled(s.Input) {
			if err := CheckConverged(s.Input, p); err != nil {
				return steps, fmt.Errorf("sync %d (+%s): rollout done but not converged:\n%v", i, s.Input.Now.Sub(start), err)
			}
			return steps, nil
		}
		c.Advance(max(c.ReadyAfter, s.Plan.RequeueAfter))
	}
	return steps, fmt.Errorf("rollout not done within %d syncs: status %+v", limit, c.DaemonSet.Status)
}

// done reports a sync that leaves nothing to do: it plans no create and no
// delete, every node that should run the pod has an available one, and
// for RollingUpdate `kubectl rollout status` is done.
func done(p daemonplan.Plan) bool {
	st := p.Status
	return len(p.Create)+len(p.Delete) == 0 && st.NumberAvailable == st.DesiredNumberScheduled &&
		(p.Rollout.Unsupported || p.Rollout.Done)
}

// settled reports that every pod the DaemonSet claims, not being deleted
// and not terminal, is available: no pod is still to become Ready. A sync
// can plan nothing and report the rollout done while a node that no longer
// should run the pod (a NoSchedule taint) still holds an old pod and the
// new pod surged next to it: the rolling update deletes the old one only
// once the new one is available (upstream: rollingUpdate), so such a
// snapshot is not converged yet, though nothing is to be written now.
func settled(in daemonplan.Input) bool {
	v := newView("Rollout", in)
	for i := range in.Pods {
		p := &in.Pods[i]
		if claimed, _, _ := v.claims(p); claimed && !p.Deleting && !api.IsTerminal(p) && !v.available(p) {
			return false
		}
	}
	return true
}

// Describe renders a plan's pod writes on one line for failure messages:
// the hash, then "+node" per create and "-pod(node,reason)" per delete.
func Describe(p daemonplan.Plan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "hash %q:", p.Hash)
	for _, c := range p.Create {
		b.WriteString(" +" + c.Node)
	}
	for _, d := range p.Delete {
		fmt.Fprintf(&b, " -%s(%s,%s)", d.Pod, d.Node, d.Reason)
	}
	if len(p.Create)+len(p.Delete) == 0 {
		b.WriteString(" nothing")
	}
	return b.String()
}
