package timeline_test

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/internal/testsupport/reference"
	"github.com/daemonplan/daemonplan/plantest"
	"github.com/daemonplan/daemonplan/sim"
	"github.com/daemonplan/daemonplan/timeline"
)

// fuzzCluster builds, from the fuzzer's bytes, a settled cluster of up to
// twelve nodes and an update to roll out: the strategy, minReadySeconds,
// how long pods take, which nodes' new pods hang, the failure rate and
// seed, nodes tainted or relabelled once the update is made, and pods
// found being deleted. calm reports that every new pod becomes Ready.
func fuzzCluster(t *testing.T, data []byte) (c *sim.Cluster, opts timeline.Options, calm bool) {
	b := reference.NewBytes(data)
	strategies := []api.UpdateStrategy{maxUnavailable(1), maxUnavailable(3), maxSurge(1), maxSurge(2), onDelete,
		{Type: api.RollingUpdate, RollingUpdate: &api.RollingUpdateParams{MaxUnavailable: api.Percent("30%"), MaxSurge: api.Int(1)}}}
	ds := api.DaemonSet{Namespace: "kube-system", Name: "agent", UID: "uid-agent",
		Selector:        &api.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
		UpdateStrategy:  reference.Pick(b, strategies),
		MinReadySeconds: int32([]int{0, 5, 45}[b.Intn(3)]),
	}
	nodes := make([]api.Node, 1+b.Intn(12))
	for i := range nodes {
		nodes[i] = api.Node{Name: fmt.Sprintf("node-%02d", i), Labels: map[string]string{"pool": "general"}}
	}
	c = sim.New(ds, template("agent:v1"), nodes, start)
	c.ReadyAfter = time.Duration(1+b.Intn(60)) * time.Second
	if _, err := timeline.Run(c, timeline.Options{}); err != nil {
		t.Fatalf("settling: %v", err)
	}
	hang := map[string]bool{}
	for i := range nodes {
		if b.Intn(5) == 0 {
			hang[nodes[i].Name] = true
		}
	}
	rate := float64(b.Intn(4)) / 10
	failures := timeline.Failures(rate, uint64(b.Next()))
	c.FateOf = func(node string, p *api.Pod) sim.Fate {
		if hang[node] {
			return sim.Hang
		}
		return failures(node, p)
	}
	calm = len(hang) == 0 && rate == 0
	t.Logf("%d nodes, strategy %+v, minReadySeconds %d, ready after %v, %d hang, fail rate %v",
		len(nodes), ds.UpdateStrategy, ds.MinReadySeconds, c.ReadyAfter, len(hang), rate)

	c.Update(template("agent:v2"), "")
	for i := range c.Nodes {
		switch b.Intn(8) {
		case 0:
			c.Nodes[i].Taints = []api.Taint{{Key: "maintenance", Effect: api.TaintEffectNoSchedule}}
		case 1:
			c.Nodes[i].Taints = []api.Taint{{Key: "maintenance", Effect: api.TaintEffectNoExecute}}
		case 2:
			c.Pods = append(c.Pods, api.Pod{Namespace: "kube-system", Name: fmt.Sprintf("leaving-%d", i), UID: fmt.Sprintf("leaving-%d", i),
				Labels: map[string]string{"app": "agent"}, NodeName: c.Nodes[i].Name, Phase: api.PodRunning, Deleting: true, Created: start,
				Controller: &api.OwnerRef{Kind: "DaemonSet", Name: "agent", UID: "uid-agent"}})
		}
	}
	opts = timeline.Options{MaxSyncs: 300, MaxDuration: 4 * time.Hour, Terminating: time.Duration(b.Intn(3)) * 20 * time.Second}
	return c, opts, calm
}

// FuzzTimeline drives random rollouts (strategies, slow, hanging and
// failing pods, taints and terminating pods) through Run and checks:
//
//  1. Run returns no error on these valid clusters, and the recording
//     passes Timeline.Check;
//  2. the same cluster run again gives the same timeline (the failures are
//     seeded, nothing depends on map order);
//  3. the outcome agrees with the stall: Converged has none, Stalled has
//     one and a summary that names it;
//  4. with pods that all become Ready and terminating pods that go, the
//     rollout converges within the bounds and the final state passes
//     plantest.CheckConverged against the last plan;
//  5. the HTML page is well-formed XML.
func FuzzTimeline(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{2, 1, 5, 10, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 2, 3, 4, 5, 6, 7, 0, 1, 2, 1})
	f.Add([]byte{5, 0, 11, 30, 1, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 2, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2})
	f.Add([]byte{4, 2, 3, 1, 4, 4, 4, 3, 7, 2, 2, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		run := func() (*timeline.Timeline, daemonplan.Plan, *sim.Cluster, bool) {
			c, opts, calm := fuzzCluster(t, data)
			if opts.Terminating == 0 {
				calm = false // pods found being deleted never go
			}
			var last daemonplan.Plan
			opts.AfterSync = func(p daemonplan.Plan) { last = p }
			tl, err := timeline.Run(c, opts)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			return tl, last, c, calm
		}
		tl, last, c, calm := run()
		if err := tl.Check(); err != nil {
			t.Fatalf("Check: %v", err)
		}
		again, _, _, _ := run()
		if !reflect.DeepEqual(tl, again) {
			t.Fatalf("the same cluster gave another timeline:\n%s\n%s", tl.Summary(), again.Summary())
		}
		switch tl.Outcome {
		case timeline.Converged:
			if tl.Stall != nil {
				t.Fatalf("converged with a stall: %+v", tl.Stall)
			}
		case timeline.Stalled:
			if tl.Stall == nil || tl.Summary() == "" {
				t.Fatalf("stalled without saying why: %q", tl.Summary())
			}
		default:
			t.Fatalf("outcome %v", tl.Outcome)
		}
		if calm {
			if tl.Outcome != timeline.Converged {
				t.Fatalf("pods all become Ready, yet: %s", tl.Summary())
			}
			if err := plantest.CheckConverged(c.Input(), last); err != nil {
				t.Fatalf("converged, but: %v", err)
			}
		}
		var page bytes.Buffer
		if err := timeline.WriteHTML(&page, tl, timeline.HTMLOptions{}); err != nil {
			t.Fatalf("WriteHTML: %v", err)
		}
		wellFormed(t, page.Bytes())
	})
}
