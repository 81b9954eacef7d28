package sim_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/plantest"
	"github.com/daemonplan/daemonplan/revision"
	"github.com/daemonplan/daemonplan/sim"
)

// TestRolloutScenarios drives upstream's update_test.go scenarios
// (docs/rolling-update.md, Worked examples) sync by sync. Each
// sync is followed by an advance of ReadyAfter, so pods created by one sync
// are Ready at the next. The counts are daemonplan's real-controller
// semantics (docs/rolling-update.md, R1): the rolling update runs only in a sync where
// manage planned nothing, so a surge-mode delete by manage and the next
// create fall in different syncs. Upstream's unit tests observe their own
// writes at once and merge those; each reason says where that differs.
func TestRolloutScenarios(t *testing.T) {
	controlPlane := api.Taint{Key: "node-role.kubernetes.io/control-plane", Effect: api.TaintEffectNoSchedule}
	tolerateControlPlane := api.Toleration{Key: "node-role.kubernetes.io/control-plane", Operator: api.TolerationOpExists}
	tests := []struct {
		name   string
		reason string
		setup  func(t *testing.T) *sim.Cluster
		want   []string
	}{
		{
			name:   "TestDaemonSetUpdatesPods",
			reason: "maxUnavailable 2 of 5: delete 2 / create 2 / … / delete 1 / create 1 / nothing, as upstream",
			setup: func(t *testing.T) *sim.Cluster {
				c := running(t, unavailableStrategy(2), plainNodes(5))
				c.Update(template("v2"), "")
				return c
			},
			want: []string{"delete 2", "create 2", "delete 2", "create 2", "delete 1", "create 1", "nothing"},
		},
		{
			name: "TestDaemonSetUpdatesPodsWithMaxSurge",
			reason: "maxSurge 2 of 5. Upstream's fake: create 2 / create 2, delete 2 / create 1, delete 2 / delete 1 / nothing; " +
				"here manage's surge deletes (new pod available) take a sync of their own before the rolling update creates the next batch",
			setup: func(t *testing.T) *sim.Cluster {
				c := running(t, surgeStrategy(2), plainNodes(5))
				c.Update(template("v2"), "")
				return c
			},
			want: []string{"create 2", "delete 2", "create 2", "delete 2", "create 1", "delete 1", "nothing"},
		},
		{
			name:   "TestDaemonSetUpdatesAllOldPodsNotReady",
			reason: "all old pods unready, maxUnavailable 3: the 5 unavailable old pods go at once, then 5 creates, as upstream",
			setup: func(t *testing.T) *sim.Cluster {
				c := hangingV1(t, unavailableStrategy(3))
				c.Update(template("v2"), "")
				return c
			},
			want: []string{"delete 5", "create 5", "nothing"},
		},
		{
			name:   "TestDaemonSetUpdatesAllOldPodsNotReadyMaxSurge",
			reason: "all old pods unready, maxSurge 3: 5 creates at once (unavailable old bypass the surge), then manage deletes the 5 unready old pods, as upstream",
			setup: func(t *testing.T) *sim.Cluster {
				c := hangingV1(t, surgeStrategy(3))
				c.Update(template("v2"), "")
				return c
			},
			want: []string{"create 5", "delete 5", "nothing"},
		},
		{
			name: "TestDaemonSetUpdatesPodsNotMatchTainstWithMaxSurge",
			reason: "node-0 tainted control-plane:NoSchedule; the update drops the toleration; maxSurge 1 of 4 desired. " +
				"The first sync creates on node-1 and deletes node-0's pod (5 available > 4 desired). Upstream's fake: " +
				"create 1, delete 1 per round and a last delete 1; here each round is split into the rolling update's create and manage's delete",
			setup: func(t *testing.T) *sim.Cluster {
				nodes := plainNodes(5)
				nodes[0].Taints = []api.Taint{controlPlane}
				c := running(t, surgeStrategy(1), nodes, tolerateControlPlane)
				require.Equal(t, 5, len(c.Pods))
				c.Update(template("v2"), "")
				return c
			},
			want: []string{"create 1, delete 1", "delete 1", "create 1", "delete 1", "create 1", "delete 1", "create 1", "delete 1", "nothing"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.setup(t)
			got := untilQuiet(t, c, 30)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("syncs mismatch (-want +got):\n%s\nreason: %s", diff, tt.reason)
			}
			p := syncOnce(t, c)
			require.True(t, p.Rollout.Done, "rollout not done after the last sync: %q", p.Rollout.Message)
			require.Equal(t, map[string]int{"v2": int(p.Status.DesiredNumberScheduled)}, images(c), "every pod runs v2")
		})
	}
}

// hangingV1 runs v1 on 5 nodes with pods that never become Ready; pods
// created afterwards become Ready.
func hangingV1(t *testing.T, strategy api.UpdateStrategy) *sim.Cluster {
	c := sim.New(daemonSet(strategy), template("v1"), plainNodes(5), start)
	c.FateOf = func(string, *api.Pod) sim.Fate { return sim.Hang }
	require.Equal(t, []string{"create 5", "nothing"}, untilQuiet(t, c, 5))
	c.FateOf = nil
	return c
}

// TestDaemonSetUpdatesSaveOldHealthyPods: 20 nodes, maxUnavailable 10, and
// new pods that never become Ready. The first 10 old pods are replaced;
// the 10 healthy old pods then stay for good (upstream: TestDaemonSetUpdatesSaveOldHealthyPods).
func TestDaemonSetUpdatesSaveOldHealthyPods(t *testing.T) {
	c := running(t, unavailableStrategy(10), plainNodes(20))
	c.FateOf = func(string, *api.Pod) sim.Fate { return sim.Hang }
	c.Update(template("v2"), "")
	require.Equal(t, []string{"delete 10", "create 10", "nothing"}, untilQuiet(t, c, 10))
	for range 5 {
		c.Advance(time.Minute)
		p := syncOnce(t, c)
		require.Equal(t, "nothing", syncCount(p))
		require.False(t, p.Rollout.Done)
		require.Equal(t, "Waiting for daemon set \"foo\" rollout to finish: 10 out of 20 new pods have been updated...\n", p.Rollout.Message)
	}
	require.Equal(t, map[string]int{"v1": 10, "v2": 10}, images(c))
}

// TestOnDeleteNeverReplacesOutdatedPods: with OnDelete, a template change
// replaces nothing; a pod the user deletes comes back from the new
// template (docs/rolling-update.md, R1).
func TestOnDeleteNeverReplacesOutdatedPods(t *testing.T) {
	c := running(t, api.UpdateStrategy{Type: api.OnDelete}, plainNodes(3))
	c.Update(template("v2"), "")
	for range 5 {
		p := syncOnce(t, c)
		require.Equal(t, "nothing", syncCount(p))
		require.True(t, p.Rollout.Unsupported)
		c.Advance(time.Minute)
	}
	require.Equal(t, map[string]int{"v1": 3}, images(c))
	require.EqualValues(t, 0, c.DaemonSet.Status.UpdatedNumberScheduled)

	// The user deletes node-1's pod.
	c.Pods = append(c.Pods[:1:1], c.Pods[2:]...)
	require.Equal(t, []string{"create 1", "nothing"}, untilQuiet(t, c, 5))
	require.Equal(t, map[string]int{"v1": 2, "v2": 1}, images(c))
	require.EqualValues(t, 1, c.DaemonSet.Status.UpdatedNumberScheduled)
}

// TestRollbackMidRollout rolls back to revision 1 halfway through an
// update: revision 1 is renumbered to 3, the v1 pods count as updated
// (their hash matches, though their template generation does not), and
// only the v2 pods are replaced (docs/rolling-update.md, R2;
// docs/history.md, H11 and H15).
func TestRollbackMidRollout(t *testing.T) {
	c := running(t, unavailableStrategy(1), plainNodes(4))
	require.Len(t, c.Revisions, 1)
	v1Hash := c.Revisions[0].Labels[api.LabelRevisionHash]
	c.Update(template("v2"), "")
	for _, want := range []string{"delete 1", "create 1", "delete 1", "create 1"} {
		require.Equal(t, want, syncCount(syncOnce(t, c)))
		c.Advance(c.ReadyAfter)
	}
	require.Equal(t, map[string]int{"v1": 2, "v2": 2}, images(c))

	res, err := c.Rollback(1)
	require.NoError(t, err)
	require.Equal(t, revision.RolledBack, res.Outcome)
	require.Equal(t, int64(3), *api.TemplateGeneration(&c.DaemonSet))

	before := hashes(c)
	p := syncOnce(t, c)
	require.Equal(t, v1Hash, p.Hash, "the current revision is revision 1's, with its hash")
	require.Len(t, p.Revisions.Update, 1)
	require.Equal(t, int64(3), p.Revisions.Update[0].Revision, "revision 1 renumbered to max+1")
	require.Equal(t, "v1", imageOf(p.Revisions.Update[0].Data))
	require.EqualValues(t, 2, p.Status.UpdatedNumberScheduled, "the two v1 pods count as updated")
	require.Equal(t, "delete 1", syncCount(p))
	for _, d := range p.Delete {
		require.Equal(t, placement.Outdated, d.Reason)
		require.NotEqual(t, v1Hash, before[d.Pod], "only v2 pods are outdated")
	}
	c.Advance(c.ReadyAfter)
	require.Equal(t, []string{"create 1", "delete 1", "create 1", "nothing"}, untilQuiet(t, c, 10))
	require.Equal(t, map[string]int{"v1": 4}, images(c))
	for _, pod := range c.Pods {
		require.Equal(t, v1Hash, pod.Labels[api.LabelRevisionHash])
	}
	p = syncOnce(t, c)
	require.True(t, p.Rollout.Done, p.Rollout.Message)
}

// hashes maps each pod of c to its revision-hash label.
func hashes(c *sim.Cluster) map[string]string {
	out := map[string]string{}
	for _, p := range c.Pods {
		out[p.Name] = p.Labels[api.LabelRevisionHash]
	}
	return out
}

// TestRolloutWaitsForASurgedPodOnATaintedNode: a node tainted NoSchedule
// right after a new pod surged onto it no longer counts as desired, so the
// status reports the rollout done while the node still holds its old pod
// and the new one; the sync after the new pod becomes available deletes
// the old one (upstream: rollingUpdate visits every node holding pods).
// plantest.Rollout took the first quiet sync for convergence and failed;
// found by TestRolloutStateMachine.
func TestRolloutWaitsForASurgedPodOnATaintedNode(t *testing.T) {
	c := running(t, surgeStrategy(1), plainNodes(2))
	c.Update(template("v2"), "")
	for range 10 {
		p := syncOnce(t, c)
		if len(p.Create) == 1 && p.Create[0].Node == "node-1" {
			break
		}
		c.Advance(c.ReadyAfter)
	}
	c.Nodes[1].Taints = []api.Taint{{Key: "dedicated", Value: "infra", Effect: api.TaintEffectNoSchedule}}
	quiet := syncOnce(t, c)
	require.Equal(t, "nothing", syncCount(quiet), "the new pod on node-1 is not available yet")
	require.True(t, quiet.Rollout.Done, "node-1 is no longer desired, node-0 is updated")

	plantest.Rollout(t, c, plantest.RolloutOptions{})
	require.Equal(t, map[string]int{"v2": 2}, images(c), "node-1 keeps only its new pod")
}
