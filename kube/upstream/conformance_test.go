package upstream_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/daemonplan/daemonplan/kube/internal/conformance"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/kube/upstream"
)

// unmappedRevision is an unmapped createRevision entry: a revision upstream
// tried to create and the API refused (a hash collision).
type unmappedRevision struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
	Hash string `json:"hash"`
}

// TestConformanceRevisions checks Hash and RevisionData against what the
// upstream controller did in every conformance case.
//
// Hash: every revision upstream created (revisions.create) or tried to
// create (unmapped createRevision) is named <ds>-<hash> with the hash of the
// case's template and status.collisionCount.
//
// RevisionData: upstream creates a revision exactly when no revision it owns
// matches the DaemonSet byte for byte (docs/history.md, H9). So:
//
//  1. when upstream created or tried to create one, no ControllerRevision
//     of the case may equal RevisionData;
//  2. otherwise at least one must; the keeper is the matching one with the
//     highest revision (ties: the later in the list);
//  3. the keeper's hash label is what upstream writes on relabelled pods and
//     on created pods;
//  4. every other matching one is a duplicate that upstream deleted
//     (revisions.delete);
//  5. a keeper named <ds>-<hash> (a hash: safe-alphabet characters only) was
//     created for the current template, so its name ends in Hash of the
//     template with no collision count or one up to status.collisionCount
//     (this checks Hash on existing revisions too).
func TestConformanceRevisions(t *testing.T) {
	conformance.SkipIfAbsent(t)
	cases, err := conformance.Cases(conformance.CasesDir())
	if err != nil {
		t.Fatalf("Cases: %v", err)
	}
	var hashChecked, created, matched, deduped int
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			cluster, err := load.Read(bytes.NewReader(c.Cluster))
			if err != nil {
				t.Fatalf("load.Read: %v", err)
			}
			ds := cluster.DaemonSet
			want := c.Want
			hash := hash134(&ds.Spec.Template, ds.Status.CollisionCount)
			data, err := upstream.RevisionData(ds)
			if err != nil {
				t.Fatalf("RevisionData: %v", err)
			}

			var attempted []conformance.Revision
			attempted = append(attempted, want.Revisions.Create...)
			for _, raw := range want.Unmapped {
				var u unmappedRevision
				if err := json.Unmarshal(raw, &u); err != nil {
					t.Fatalf("unmapped: %v", err)
				}
				if u.Kind == "createRevision" {
					attempted = append(attempted, conformance.Revision{Name: u.Name, Hash: u.Hash})
				}
			}
			for _, r := range attempted {
				if r.Hash != hash || r.Name != ds.Name+"-"+hash {
					t.Errorf("Hash() = %q, but upstream created revision %q with hash %q", hash, r.Name, r.Hash)
				}
				hashChecked++
			}

			var matching []*appsv1.ControllerRevision
			for _, cr := range cluster.Revisions {
				if bytes.Equal(upstream.StoredData(cr.Data.Raw), data) {
					matching = append(matching, cr)
				}
			}
			if len(attempted) > 0 {
				created++
				for _, cr := range matching {
					t.Errorf("upstream created a revision, but %s equals RevisionData", cr.Name)
				}
				return
			}
			if len(matching) == 0 {
				t.Fatalf("upstream found its current revision, but no revision equals RevisionData:\n%s", data)
			}
			matched++
			keeper := matching[0]
			for _, cr := range matching[1:] {
				if cr.Revision >= keeper.Revision {
					keeper = cr
				}
			}
			label := keeper.Labels["controller-revision-hash"]
			if label == "" {
				label = keeper.Name // upstream labels legacy revisions with their name
			}
			for _, r := range want.Relabel {
				if r.Hash != label {
					t.Errorf("relabel %s to %q, want the keeper %s's label %q", r.Pod, r.Hash, keeper.Name, label)
				}
			}
			for _, cr := range want.Create {
				if got := cr.Labels["controller-revision-hash"]; got != label {
					t.Errorf("created pod on %s has hash %q, want the keeper %s's label %q", cr.Node, got, keeper.Name, label)
				}
			}
			deleted := make(map[string]bool)
			for _, name := range want.Revisions.Delete {
				deleted[name] = true
			}
			for _, cr := range matching {
				if cr != keeper && !deleted[cr.Name] {
					t.Errorf("%s equals RevisionData besides the keeper %s, but upstream did not delete it", cr.Name, keeper.Name)
				}
			}
			if len(matching) > 1 {
				deduped++
			}
			if suffix, ok := strings.CutPrefix(keeper.Name, ds.Name+"-"); ok && looksLikeHash(suffix) {
				if !slices.Contains(templateHashes(ds), suffix) {
					t.Errorf("keeper %s is not named by a hash of the current template (Hash() = %q)", keeper.Name, hash)
				}
				hashChecked++
			}
		})
	}
	t.Logf("%d cases: %d created a revision, %d matched an existing one (%d de-duplicated); %d hashes checked",
		len(cases), created, matched, deduped, hashChecked)
	if created+matched != len(cases) {
		t.Errorf("only %d of %d cases checked", created+matched, len(cases))
	}
}

// looksLikeHash reports whether s could be a safe-encoded hash.
func looksLikeHash(s string) bool {
	return s != "" && strings.Trim(s, "bcdfghjklmnpqrstvwxz2456789") == ""
}

// templateHashes returns the hashes of ds's template for no collision count
// and every count from 0 to status.collisionCount.
func templateHashes(ds *appsv1.DaemonSet) []string {
	hashes := []string{hash134(&ds.Spec.Template, nil)}
	if cc := ds.Status.CollisionCount; cc != nil {
		for i := int32(0); i <= *cc; i++ {
			hashes = append(hashes, hash134(&ds.Spec.Template, &i))
		}
	}
	return hashes
}
