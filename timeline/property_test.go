package timeline_test

import (
	"cmp"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/sim"
	"github.com/daemonplan/daemonplan/timeline"
)

// scenario is a generated rollout: a settled cluster, a strategy, the fate
// of each node's new pods and the simulation's bounds.
type scenario struct {
	nodes      int
	strategy   api.UpdateStrategy
	fates      map[string]sim.Fate
	failRate   float64
	readyAfter time.Duration
	opts       timeline.Options
}

func genScenario(t *rapid.T) scenario {
	s := scenario{nodes: rapid.IntRange(1, 7).Draw(t, "nodes"), fates: map[string]sim.Fate{}}
	switch rapid.IntRange(0, 2).Draw(t, "strategy") {
	case 0:
		s.strategy = maxUnavailable(int32(rapid.IntRange(1, 3).Draw(t, "maxUnavailable")))
	case 1:
		s.strategy = maxSurge(int32(rapid.IntRange(1, 2).Draw(t, "maxSurge")))
	default:
		s.strategy = onDelete
	}
	for i := range s.nodes {
		s.fates[fmt.Sprintf("node-%d", i)] = sim.Fate(rapid.IntRange(int(sim.BecomeReady), int(sim.Fail)).Draw(t, "fate"))
	}
	s.failRate = rapid.SampledFrom([]float64{0, 0, 0.3}).Draw(t, "failRate")
	s.readyAfter = time.Duration(rapid.IntRange(1, 60).Draw(t, "readyAfter")) * time.Second
	s.opts = timeline.Options{MaxSyncs: rapid.IntRange(1, 60).Draw(t, "maxSyncs"), MaxDuration: time.Hour}
	return s
}

// cluster builds the scenario's cluster, updated to agent:v2: the same
// every time it is called.
func (s scenario) cluster(t require.TestingT) *sim.Cluster {
	c := settled(t, s.nodes, s.strategy, s.readyAfter)
	failures := timeline.Failures(s.failRate, 42)
	c.FateOf = func(node string, p *api.Pod) sim.Fate {
		if f := s.fates[node]; f != sim.BecomeReady {
			return f
		}
		return failures(node, p)
	}
	c.Update(template("agent:v2"), "")
	return c
}

// TestTimelineAgreesWithSim: replaying the recorded syncs on a twin
// cluster, each sync's counts are the twin's plan's, and after the last
// sync at each instant every node's recorded pods are the twin's; the
// recording's invariants (Timeline.Check) hold.
func TestTimelineAgreesWithSim(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genScenario(t)
		tl, err := timeline.Run(s.cluster(t), s.opts)
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		if err := tl.Check(); err != nil {
			t.Fatalf("Check: %v", err)
		}
		if len(tl.Syncs) > s.opts.MaxSyncs {
			t.Fatalf("%d syncs, bound %d", len(tl.Syncs), s.opts.MaxSyncs)
		}
		twin := s.cluster(t)
		twin.Advance(0)
		failed := map[string]string{}
		for i, want := range tl.Syncs {
			twin.Advance(tl.Start.Add(want.At).Sub(twin.Now))
			for _, p := range twin.Pods {
				if api.IsTerminal(&p) {
					failed[p.NodeName] = p.Name
				}
			}
			plan, err := twin.Sync()
			if err != nil {
				t.Fatalf("twin sync %d: %v", i, err)
			}
			st := plan.Status
			got := timeline.Sync{At: want.At, Creates: len(plan.Create), Deletes: len(plan.Delete),
				Desired: int(st.DesiredNumberScheduled), Updated: int(st.UpdatedNumberScheduled),
				Available: int(st.NumberAvailable), Unavailable: int(st.NumberUnavailable),
				MaxUnavailable: want.MaxUnavailable, MaxSurge: want.MaxSurge}
			if got != want {
				t.Fatalf("sync %d: recorded %+v, twin %+v", i, want, got)
			}
			if i+1 < len(tl.Syncs) && tl.Syncs[i+1].At == want.At {
				continue // the state at this instant is the last sync's
			}
			for _, n := range tl.Nodes {
				rec := podsAt(n, want.At)
				live := twinPods(twin, n.Name)
				if len(live) == 0 && len(rec) == 1 && rec[0].State == timeline.Failed && rec[0].Name == failed[n.Name] {
					continue // a failed pod the controller deleted, until replaced
				}
				if !slices.Equal(rec, live) {
					t.Fatalf("after sync %d at %v, %s: recorded %v, twin %v", i, want.At, n.Name, rec, live)
				}
			}
		}
	})
}

// podsAt returns the pods of the recorded interval that holds at (the
// last one starting at or before it).
func podsAt(n timeline.NodeHistory, at time.Duration) []timeline.Pod {
	var out []timeline.Pod
	for _, iv := range n.Intervals {
		if iv.From <= at {
			out = iv.Pods
		}
	}
	return out
}

// twinPods returns the pods of the DaemonSet on node as the timeline
// records them.
func twinPods(c *sim.Cluster, node string) []timeline.Pod {
	var pods []api.Pod
	for _, p := range c.Pods {
		if p.NodeName == node && p.Controller != nil && p.Controller.UID == c.DaemonSet.UID {
			pods = append(pods, p)
		}
	}
	slices.SortFunc(pods, func(a, b api.Pod) int {
		return cmp.Or(a.Created.Compare(b.Created), cmp.Compare(a.Name, b.Name))
	})
	var out []timeline.Pod
	for _, p := range pods {
		st := timeline.NotReady
		switch {
		case p.Deleting:
			st = timeline.Deleting
		case api.IsTerminal(&p):
			st = timeline.Failed
		case p.Ready:
			st = timeline.Ready
		}
		out = append(out, timeline.Pod{Name: p.Name, Hash: p.Labels[api.LabelRevisionHash], State: st})
	}
	return out
}
