package sim_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/revision"
	"github.com/daemonplan/daemonplan/sim"
)

// TestChangesNumberGenerations: every change sim makes to its DaemonSet
// numbers the generations as api.BumpGenerations, the API server's rule
// (docs/validation.md, V13), numbers that change from the DaemonSet before
// it: a new template or a rollback moves both, a new strategy only
// metadata.generation. A sim that counted for itself would drift from the
// simulators that share the rule (whatif, the conformance fuzzer).
func TestChangesNumberGenerations(t *testing.T) {
	c := running(t, unavailableStrategy(1), plainNodes(2))
	for _, step := range []struct {
		name   string
		change api.SpecChange
		do     func(c *sim.Cluster)
	}{
		{"Update", api.TemplateChanged, func(c *sim.Cluster) { c.Update(template("v2"), "") }},
		{"SetStrategy", api.SpecChanged, func(c *sim.Cluster) { c.SetStrategy(surgeStrategy(1)) }},
		{"Rollback", api.TemplateChanged, func(c *sim.Cluster) {
			untilQuiet(t, c, 20)
			res, err := c.Rollback(1)
			require.NoError(t, err)
			require.Equal(t, revision.RolledBack, res.Outcome)
		}},
	} {
		before := c.DaemonSet.DeepCopy()
		step.do(c)
		want := api.BumpGenerations(before, step.change)
		require.Equal(t, want.Generation, c.DaemonSet.Generation, "%s: metadata.generation", step.name)
		require.Equal(t, api.TemplateGeneration(&want), api.TemplateGeneration(&c.DaemonSet), "%s: template generation", step.name)
	}
}
