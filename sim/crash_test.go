package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/sim"
)

// crashCluster is one node whose pod crash-loops, created at start and
// first exiting readyAfter later.
func crashCluster(t require.TestingT, readyAfter, backoff, maxBackoff time.Duration) (*sim.Cluster, string) {
	c := sim.New(daemonSet(unavailableStrategy(1)), template("v1"), plainNodes(1), start)
	c.ReadyAfter, c.CrashBackoff, c.MaxCrashBackoff = readyAfter, backoff, maxBackoff
	c.FateOf = func(string, *api.Pod) sim.Fate { return sim.CrashLoop }
	_, err := c.Sync()
	require.NoError(t, err)
	require.Len(t, c.Pods, 1)
	return c, c.Pods[0].Name
}

// TestCrashLoop: a crash-looping pod is Running and never Ready, and
// restarts on the kubelet's doubling back-off, from its first exit
// (ReadyAfter after its creation).
func TestCrashLoop(t *testing.T) {
	for _, tc := range []struct {
		name                string
		backoff, maxBackoff time.Duration
		at                  time.Duration // since the pod's creation
		want                int32
		why                 string
	}{
		{"before it runs", 0, 0, 500 * time.Millisecond, 0, "pending until ReadyAfter (1s): no restart"},
		{"first exit", 0, 0, time.Second, 0, "it exits at 1s; the kubelet waits the back-off before a restart"},
		{"kubelet default, first restart", 0, 0, 11 * time.Second, 1, "10s after the first exit"},
		{"kubelet default, doubling", 0, 0, 71 * time.Second, 3, "restarts at 11s, 31s, 71s (10s, 20s, 40s)"},
		{"kubelet default, capped", 0, 0, 611 * time.Second, 6, "11, 31, 71, 151, 311 (gaps 10..160s), then every 300s: 611"},
		{"test bed's 1s", time.Second, 0, 16 * time.Second, 4, "restarts at 2s, 4s, 8s, 16s"},
		{"low maximum", time.Second, 2 * time.Second, 10 * time.Second, 5, "2s, 4s, then every 2s: 6s, 8s, 10s"},
		{"maximum below the first", 10 * time.Second, time.Second, 4 * time.Second, 3, "the back-off never exceeds the maximum: every 1s from 1s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, name := crashCluster(t, time.Second, tc.backoff, tc.maxBackoff)
			c.Advance(tc.at)
			require.Equal(t, tc.want, c.Restarts(name), tc.why)
			pod := c.Pods[0]
			require.False(t, pod.Ready, "a crash-looping pod is never Ready")
			if tc.at >= time.Second {
				require.Equal(t, api.PodRunning, pod.Phase)
			}
		})
	}
	t.Run("other pods", func(t *testing.T) {
		c := sim.New(daemonSet(unavailableStrategy(1)), template("v1"), plainNodes(1), start)
		_, err := c.Sync()
		require.NoError(t, err)
		c.Advance(time.Hour)
		require.Zero(t, c.Restarts(c.Pods[0].Name), "a pod that becomes Ready never restarts")
		require.Zero(t, c.Restarts("no-such-pod"))
		_, ok := c.RestartAt(c.Pods[0].Name, 1)
		require.False(t, ok)
	})
}

// TestRestartAtCountsRestarts: RestartAt(n) is the moment Restarts
// reaches n, for any back-off: one instant before it the count is
// below n, at it n (a differential of the two computations).
func TestRestartAtCountsRestarts(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		backoff := time.Duration(rapid.Int64Range(0, 20).Draw(t, "backoff")) * 500 * time.Millisecond
		maxBackoff := time.Duration(rapid.Int64Range(0, 40).Draw(t, "maxBackoff")) * 500 * time.Millisecond
		c, name := crashCluster(t, 2*time.Second, backoff, maxBackoff)
		n := rapid.Int32Range(1, 30).Draw(t, "n")
		at, ok := c.RestartAt(name, n)
		require.True(t, ok)
		prev, _ := c.RestartAt(name, n-1+boolInt(n == 1))
		if n > 1 {
			require.True(t, at.After(prev), "restarts are apart")
		}
		c.Advance(at.Add(-time.Millisecond).Sub(c.Now))
		require.Equal(t, n-1, c.Restarts(name), "just before restart %d", n)
		c.Advance(time.Millisecond)
		require.Equal(t, n, c.Restarts(name), "at restart %d", n)
	})
}

func boolInt(b bool) int32 {
	if b {
		return 1
	}
	return 0
}
