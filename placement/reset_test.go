package placement_test

import (
	"testing"

	"github.com/daemonplan/daemonplan/placement"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// TestPropertyResetMatchesIndex: one Cluster reset over a run of snapshots
// gives, every time, the buckets, plan and status a fresh Index gives:
// nothing of an earlier snapshot survives a Reset. Each next snapshot is a
// new one, the same again, or the same with the nodes shuffled.
func TestPropertyResetMatchesIndex(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var reused placement.Cluster
		s := snapshot(t, clusters)
		for step := range rapid.IntRange(1, 5).Draw(t, "resets") {
			switch rapid.IntRange(0, 2).Draw(t, "next") {
			case 0:
				s = snapshot(t, clusters)
			case 1:
			case 2:
				s.Nodes = rapid.Permutation(s.Nodes).Draw(t, "shuffled")
			}
			c, err := placement.Compile(s.DaemonSet, placement.Options{})
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			fresh, err := c.Index(s.Nodes, s.Pods)
			if err != nil {
				t.Fatalf("Index: %v", err)
			}
			if err := reused.Reset(c, s.Nodes, s.Pods); err != nil {
				t.Fatalf("Reset: %v", err)
			}
			if diff := cmp.Diff(buckets(fresh), buckets(&reused)); diff != "" {
				t.Fatalf("reset %d: buckets mismatch (-Index +Reset):\n%s", step, diff)
			}
			want, werr := fresh.Manage(s.Now, s.Hash, s.Backoff)
			got, gerr := reused.Manage(s.Now, s.Hash, s.Backoff)
			if (werr == nil) != (gerr == nil) {
				t.Fatalf("reset %d: Manage errors differ: %v, %v", step, werr, gerr)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("reset %d: Manage() mismatch (-Index +Reset):\n%s", step, diff)
			}
			if diff := cmp.Diff(fresh.Status(s.Now, s.Hash), reused.Status(s.Now, s.Hash)); diff != "" {
				t.Fatalf("reset %d: Status() mismatch (-Index +Reset):\n%s", step, diff)
			}
		}
	})
}
