package kubesync_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/daemonplan/daemonplan/kube/internal/conformance"
	"github.com/daemonplan/daemonplan/kube/kubesync"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/kube/upstream"
)

// TestConformance runs every case the real controller was observed on
// through the CLI's code path and compares the plan with what upstream did,
// by the rules of the conformance README.
func TestConformance(t *testing.T) {
	conformance.SkipIfAbsent(t)
	for _, set := range conformance.Sets() {
		v, err := upstream.ParseVersion(set.Version)
		require.NoError(t, err)
		cases, err := conformance.Cases(set.Dir)
		require.NoError(t, err)
		for _, c := range cases {
			t.Run("v"+set.Version+"/"+c.Name, func(t *testing.T) {
				cl, err := load.Read(bytes.NewReader(c.Cluster))
				require.NoError(t, err)
				plan, err := kubesync.Sync(cl, c.Now, kubesync.State{}, kubesync.Options{KubernetesVersion: v})
				require.NoError(t, err)
				got, err := json.Marshal(kubesync.JSON(plan, v))
				require.NoError(t, err)
				for _, d := range conformance.Compare(c.Expected, got) {
					t.Error(d)
				}
			})
		}
	}
}

// TestConformanceNeedsTheVersion checks that the version matters: planned
// for v1.34, a case recorded under v1.37 that creates a revision disagrees
// with upstream, so the conformance test above cannot pass by accident.
func TestConformanceNeedsTheVersion(t *testing.T) {
	conformance.SkipIfAbsent(t)
	set := conformance.Sets()[1]
	cases, err := conformance.Cases(set.Dir)
	require.NoError(t, err)
	disagree := 0
	for _, c := range cases {
		cl, err := load.Read(bytes.NewReader(c.Cluster))
		require.NoError(t, err)
		plan, err := kubesync.Sync(cl, c.Now, kubesync.State{}, kubesync.Options{KubernetesVersion: upstream.V1_34})
		require.NoError(t, err)
		got, err := json.Marshal(kubesync.JSON(plan, upstream.V1_34))
		require.NoError(t, err)
		if len(conformance.Compare(c.Expected, got)) > 0 {
			disagree++
		}
	}
	if disagree == 0 {
		t.Errorf("every v1.37 case also conforms when planned for v1.34: the version is not tested")
	}
	t.Logf("%d of %d v1.37 cases disagree when planned for v1.34", disagree, len(cases))
}
