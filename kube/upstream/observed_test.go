package upstream_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/kube/internal/conformance"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/kube/upstream"
)

var updateObserved = flag.Bool("update-observed", false,
	"rewrite testdata/hash/observed.json from the conformance sets in ../shared/conformance beside the repository")

// observed is one revision a real controller created (or tried to create,
// when its name was taken) in a conformance case: the name carries the
// hash of the DaemonSet's template with its status.collisionCount.
type observed struct {
	Kubernetes     string                 `json:"kubernetes"`
	Case           string                 `json:"case"`
	Revision       string                 `json:"revision"`
	Hash           string                 `json:"hash"`
	CollisionCount *int32                 `json:"collisionCount"`
	Template       corev1.PodTemplateSpec `json:"template"`
}

const observedFile = "testdata/hash/observed.json"

// TestObservedHashes checks Version.Hash against the hashes that the real
// v1.34.4 and v1.37.2 controllers wrote in the conformance cases.
func TestObservedHashes(t *testing.T) {
	if *updateObserved {
		writeObserved(t)
	}
	raw, err := os.ReadFile(observedFile)
	if err != nil {
		t.Fatal(err)
	}
	var all []observed
	if err := json.Unmarshal(raw, &all); err != nil {
		t.Fatal(err)
	}
	per := make(map[upstream.Version]int)
	for _, o := range all {
		v, err := upstream.ParseVersion(o.Kubernetes)
		if err != nil {
			t.Fatal(err)
		}
		got, err := v.Hash(&o.Template, o.CollisionCount)
		if err != nil {
			t.Fatal(err)
		}
		if got != o.Hash {
			t.Errorf("%s %s: %s.Hash = %q, but the controller created %s", o.Kubernetes, o.Case, v, got, o.Revision)
		}
		per[v]++
	}
	if per[upstream.V1_34] == 0 || per[upstream.V1_37] == 0 {
		t.Errorf("observed hashes per version: %v, want some of 1.34 and 1.37", per)
	}
}

func writeObserved(t *testing.T) {
	var all []observed
	for _, set := range []struct{ dir, kubernetes string }{{"cases", "1.34"}, {"cases-v1.37", "1.37"}} {
		cases, err := conformance.Cases(filepath.Join("..", "..", "..", "shared", "conformance", set.dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			cluster, err := load.Read(bytes.NewReader(c.Cluster))
			if err != nil {
				t.Fatal(err)
			}
			ds := cluster.DaemonSet
			add := func(name, hash string) {
				all = append(all, observed{Kubernetes: set.kubernetes, Case: c.Name, Revision: name, Hash: hash,
					CollisionCount: ds.Status.CollisionCount, Template: ds.Spec.Template})
			}
			for _, r := range c.Want.Revisions.Create {
				add(r.Name, r.Hash)
			}
			for _, raw := range c.Want.Unmapped {
				var u unmappedRevision
				if err := json.Unmarshal(raw, &u); err != nil {
					t.Fatal(err)
				}
				if u.Kind == "createRevision" {
					add(u.Name, u.Hash)
				}
			}
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Kubernetes < all[j].Kubernetes })
	out, err := json.MarshalIndent(all, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(observedFile, append(out, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}
