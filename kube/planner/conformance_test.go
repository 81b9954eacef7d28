package planner_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/daemonplan/daemonplan/kube/internal/conformance"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/kube/planner"
)

// TestConformance runs every case the real controller was observed on
// through the CLI's code path and compares the plan with what upstream did,
// by the rules of the conformance README.
func TestConformance(t *testing.T) {
	conformance.SkipIfAbsent(t)
	cases, err := conformance.Cases(conformance.CasesDir())
	require.NoError(t, err)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			cl, err := load.Read(bytes.NewReader(c.Cluster))
			require.NoError(t, err)
			plan, err := planner.Plan(cl, c.Now, planner.Options{})
			require.NoError(t, err)
			got, err := json.Marshal(planner.JSON(plan))
			require.NoError(t, err)
			for _, d := range conformance.Compare(c.Expected, got) {
				t.Error(d)
			}
		})
	}
}
