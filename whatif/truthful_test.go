package whatif_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/whatif"
)

// TestDiffStoppedEarlyIsNotUnchanged: a rollout stopped at the sync limit
// leaves nodes on the old template; none of them is reported Unchanged
// (the 8,000-node diff once reported 3,000 such nodes so).
func TestDiffStoppedEarlyIsNotUnchanged(t *testing.T) {
	before := settled(t, 20, maxUnavailable(1))
	ds := before.DaemonSet.DeepCopy()
	ds.TemplateData = []byte(`{"image":"agent:v2"}`)
	rep, err := whatif.Diff(before, daemonplan.Input{DaemonSet: ds}, whatif.Options{MaxSyncs: 12})
	require.NoError(t, err)
	require.False(t, rep.Done, rep.Table())
	require.Zero(t, rep.Counts.Unchanged, "nodes on the old template reported unchanged:\n%s", rep.Table())
	require.Positive(t, rep.Counts.Replaced, rep.Table())
	require.Equal(t, 20, rep.Counts.Replaced+rep.Counts.NotYetReplaced, rep.Table())
}
