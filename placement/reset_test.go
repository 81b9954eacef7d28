package placement_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// TestPropertyResetMatchesIndex: one Index reset over a run of snapshots
// gives, every time, the buckets, plan, status and IsUpdated answers a
// fresh Index gives:
// nothing of an earlier snapshot survives a Reset. Each next snapshot is a
// new one, the same again, the same with the nodes shuffled, or the same
// with every pod's revision flipped (same places, same hash, other answers);
// before some Resets the Index forgets its snapshot.
func TestPropertyResetMatchesIndex(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var reused placement.Index
		s := snapshot(t, clusters)
		for step := range rapid.IntRange(1, 5).Draw(t, "resets") {
			switch rapid.IntRange(0, 3).Draw(t, "next") {
			case 0:
				s = snapshot(t, clusters)
			case 1:
			case 2:
				s.Nodes = rapid.Permutation(s.Nodes).Draw(t, "shuffled")
			case 3:
				s.Pods = flipRevisions(s.Pods, s.Hash)
			}
			c, err := placement.Compile(s.DaemonSet, placement.Options{})
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			fresh, err := c.Index(s.Nodes, s.Pods)
			if err != nil {
				t.Fatalf("Index: %v", err)
			}
			if rapid.Bool().Draw(t, "forget") {
				reused.Forget()
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
			// Bucket.Updated's answers are remembered: they hold for
			// this snapshot and this hash only.
			for _, hash := range []string{s.Hash, "other-" + s.Hash, s.Hash} {
				for b := range reused.Buckets(hash) {
					for j, p := range b.Pods {
						if got, want := b.Updated(j), c.IsUpdated(p, hash); got != want {
							t.Fatalf("reset %d: Bucket(%s).Updated(%d) for %q = %v, Compiled.IsUpdated(%s) = %v", step, b.Node, j, hash, got, p.Name, want)
						}
					}
				}
			}
		}
	})
}

// flipRevisions returns pods with the revision-hash label of every pod of
// revision hash set to another and every other pod's set to hash. pods is
// not modified.
func flipRevisions(pods []api.Pod, hash string) []api.Pod {
	out := slices.Clone(pods)
	for i := range out {
		labels := maps.Clone(out[i].Labels)
		if labels == nil {
			labels = map[string]string{}
		}
		if labels[api.LabelRevisionHash] == hash {
			labels[api.LabelRevisionHash] = "flipped-" + hash
		} else {
			labels[api.LabelRevisionHash] = hash
		}
		out[i].Labels = labels
	}
	return out
}

// TestZeroCluster: a zero Index that was never indexed holds no
// snapshot; asking it for a plan is an error and its status is zero,
// rather than a nil dereference.
func TestZeroCluster(t *testing.T) {
	var ix placement.Index
	if _, err := ix.Manage(t0, testHash, nil); err == nil {
		t.Errorf("Manage on a zero Index: no error")
	}
	if got := ix.Status(t0, testHash); got != (api.Status{}) {
		t.Errorf("Status of a zero Index = %+v, want the zero Status", got)
	}
}
