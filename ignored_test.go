package daemonplan_test

import (
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
)

// TestPropertyIgnoredDuringExecutionSync: a whole sync with
// IgnoredDuringExecution deletes a subset of the pods it deletes without,
// when no rolling update can step in (OnDelete; a rolling update runs only
// when manage has nothing to do, and then picks other pods). The burst
// limit is lifted, as in placement's property.
func TestPropertyIgnoredDuringExecutionSync(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := syncInput(t)
		in.DaemonSet.UpdateStrategy = api.UpdateStrategy{Type: api.OnDelete}
		deleted := func(on bool) []string {
			p, err := daemonplan.Sync(in, daemonplan.Options{Placement: placement.Options{IgnoredDuringExecution: on, BurstReplicas: 1 << 20}})
			if err != nil {
				t.Fatalf("Sync: %v", err)
			}
			var out []string
			for _, d := range p.Delete {
				out = append(out, d.Pod)
			}
			return out
		}
		off, on := deleted(false), deleted(true)
		for _, d := range on {
			if !slices.Contains(off, d) {
				t.Fatalf("with IgnoredDuringExecution %s is deleted, without it only %v", d, off)
			}
		}
	})
}
