package placement_test

import (
	"testing"

	"github.com/daemonplan/daemonplan/internal/testsupport/reference"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// FuzzManage decodes arbitrary bytes into a snapshot and plans it: bad
// input may produce errors, never a panic. With the default options and a
// plan within the burst limit, the plan must also agree with the reference
// and satisfy its invariants.
func FuzzManage(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("daemonplan"))
	f.Add([]byte{2, 0, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 5, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Fuzz(func(t *testing.T, data []byte) {
		s, opts := reference.FuzzSnapshot(reference.NewBytes(data))
		before := s.Clone()
		for i := range s.Nodes {
			_ = placement.NewEligibility(s.DaemonSet, opts).Decide(&s.Nodes[i]).Message()
		}
		c, err := placement.Compile(s.DaemonSet, opts)
		if err != nil {
			return
		}
		ix, err := c.Index(s.Nodes, s.Pods)
		if err != nil {
			return
		}
		p, manageErr := ix.Manage(s.Now, s.Hash, s.Backoff)
		st := ix.Status(s.Now, s.Hash)
		_ = placement.SlowStartBatches(len(p.Create))
		if diff := cmp.Diff(before, s); diff != "" {
			t.Fatalf("inputs changed (-before +after):\n%s", diff)
		}
		if manageErr != nil || opts != (placement.Options{}) {
			return
		}
		if err := reference.CheckPlan(s, p); err != nil {
			t.Fatalf("CheckPlan: %v\n%s", err, reference.Render(s))
		}
		want := reference.Manage(s.DaemonSet, s.Nodes, s.Pods, s.Now, s.Hash, s.Backoff)
		if diff := cmp.Diff(want, asResult(p, st), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("Manage() mismatch (-want +got):\n%s\n%s", diff, reference.Render(s))
		}
	})
}
