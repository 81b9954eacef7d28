package timeline_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/rollout"
	"github.com/daemonplan/daemonplan/sim"
	"github.com/daemonplan/daemonplan/timeline"
)

// TestBeforeSync: a hook that moves the rollout's scope between syncs, as
// a progressive driver moves its phase. Zone a (node-0) first, then,
// once node-0 runs a Ready pod of the new revision, every node: node-0 is
// replaced alone, the other two together 30s later.
func TestBeforeSync(t *testing.T) {
	c := settled(t, 3, maxUnavailable(3), 30*time.Second)
	c.Nodes[0].Labels = map[string]string{"zone": "a"}
	c.Update(template("agent:v2"), "")
	zoneA := &api.LabelSelector{MatchLabels: map[string]string{"zone": "a"}}
	calls := 0
	tl := mustRun(t, c, timeline.Options{BeforeSync: func(c *sim.Cluster) error {
		calls++
		require.False(t, c.Tracked(), "a hook's cluster is planned by whole syncs")
		c.Options.Progressive = rollout.Progressive{Scope: zoneA}
		for _, p := range c.PodsOn("node-0") {
			if p.Ready && !p.Deleting && p.Created.After(start) {
				c.Options.Progressive = rollout.Progressive{}
			}
		}
		return nil
	}})
	require.Equal(t, timeline.Converged, tl.Outcome, tl.Summary())
	require.Equal(t, len(tl.Syncs), calls, "one call before each sync")
	require.Equal(t, 60*time.Second, tl.Duration)
	got := rows(tl)
	require.Equal(t, "NotReady/r2@0s Ready/r2@30s", got["node-0"])
	require.Equal(t, "Ready/r1@0s NotReady/r2@30s Ready/r2@1m0s", got["node-1"])

	// Zero Options: the same rollout without the hook replaces the three
	// nodes at once.
	c = settled(t, 3, maxUnavailable(3), 30*time.Second)
	c.Update(template("agent:v2"), "")
	tl = mustRun(t, c, timeline.Options{})
	require.Equal(t, 30*time.Second, tl.Duration)
}

// TestBeforeSyncErrors: the hook's error stops Run; a tracked cluster is
// refused.
func TestBeforeSyncErrors(t *testing.T) {
	c := settled(t, 2, maxUnavailable(1), time.Second)
	c.Update(template("agent:v2"), "")
	boom := errors.New("boom")
	_, err := timeline.Run(c, timeline.Options{BeforeSync: func(*sim.Cluster) error { return boom }})
	require.ErrorIs(t, err, boom)

	require.NoError(t, c.Track())
	_, err = timeline.Run(c, timeline.Options{BeforeSync: func(*sim.Cluster) error { return nil }})
	require.ErrorIs(t, err, timeline.ErrTrackedHook)
}

// TestWake: a driver's wake-up is a sync of its own. A settled cluster
// with nothing to do stops after one sync; with a wake 7 s after the
// start (and none after), the run syncs again at +7s, before the
// cluster's own next event, and then stops. A wake after the cluster's
// next event does not move it.
func TestWake(t *testing.T) {
	c := settled(t, 2, maxUnavailable(1), time.Second)
	tl := mustRun(t, c, timeline.Options{})
	require.Len(t, tl.Syncs, 1)

	c = settled(t, 2, maxUnavailable(1), time.Second)
	at := c.Now.Add(7 * time.Second)
	tl = mustRun(t, c, timeline.Options{Wake: func(c *sim.Cluster) time.Duration {
		if c.Now.Before(at) {
			return at.Sub(c.Now)
		}
		return 0
	}})
	require.Len(t, tl.Syncs, 2)
	require.Equal(t, 7*time.Second, tl.Syncs[1].At)
	require.Equal(t, timeline.Converged, tl.Outcome, tl.Summary())

	// The rollout's own events come first: a wake at +1h changes
	// nothing before it, and is the last sync.
	c = settled(t, 2, maxUnavailable(1), 30*time.Second)
	c.Update(template("agent:v2"), "")
	plain := mustRun(t, c, timeline.Options{})
	c = settled(t, 2, maxUnavailable(1), 30*time.Second)
	c.Update(template("agent:v2"), "")
	at = c.Now.Add(time.Hour)
	woken := mustRun(t, c, timeline.Options{Wake: func(c *sim.Cluster) time.Duration {
		if c.Now.Before(at) {
			return at.Sub(c.Now)
		}
		return 0
	}})
	require.Equal(t, len(plain.Syncs)+1, len(woken.Syncs))
	require.Equal(t, time.Hour, woken.Syncs[len(woken.Syncs)-1].At)
	for i := range plain.Syncs {
		require.Equal(t, plain.Syncs[i].At, woken.Syncs[i].At)
	}
}
