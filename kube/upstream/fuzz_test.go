package upstream_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/daemonplan/daemonplan/kube/internal/conformance"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/kube/upstream"
)

// FuzzUpstream checks the revision hash and the revision data on
// DaemonSets decoded from the fuzzer's bytes:
//
//  1. Hash is deterministic, 1 to 10 characters of the safe alphabet, and
//     the same after the DaemonSet goes through JSON and back, as it does
//     through an API server and kubectl;
//  2. RevisionData is compact JSON ({"spec":{"template":{"$patch":
//     "replace",...}}}), unchanged by StoredData and by that round trip,
//     and StoredData of its indented form (as kubectl prints revisions)
//     gives it back;
//  3. StoredData of any bytes is idempotent;
//  4. nothing changes its input.
func FuzzUpstream(f *testing.F) {
	cases, err := conformance.SmallestCases(2)
	if err != nil {
		f.Fatal(err)
	}
	for _, c := range cases {
		f.Add(c.Cluster)
	}
	f.Add([]byte(`{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"d"},"spec":{"template":{"metadata":{"labels":{"a":"<&>"}},"spec":{"containers":[{"name":"c","image":"i","resources":{"limits":{"cpu":"1.5"}}}]}}},"status":{"collisionCount":-3}}`))
	f.Add([]byte("{\"raw\": [1, 2 ,3]}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// 3.
		once := upstream.StoredData(data)
		if !bytes.Equal(upstream.StoredData(once), once) {
			t.Fatalf("StoredData is not idempotent on %q", data)
		}
		objs, err := load.Decode(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, ds := range objs.DaemonSets {
			before := ds.DeepCopy()
			// 1.
			h, err := upstream.V1_37.Hash(&ds.Spec.Template, ds.Status.CollisionCount)
			if err != nil {
				t.Fatalf("Hash: %v", err)
			}
			if h2, _ := upstream.V1_37.Hash(&ds.Spec.Template, ds.Status.CollisionCount); h2 != h {
				t.Fatalf("Hash is not deterministic")
			}
			if len(h) == 0 || len(h) > 10 || strings.Trim(h, "bcdfghjklmnpqrstvwxz2456789") != "" {
				t.Fatalf("Hash %q is not 1 to 10 safe characters", h)
			}
			// 2.
			rd, err := upstream.RevisionData(ds)
			if err != nil {
				t.Fatalf("RevisionData of a decoded DaemonSet: %v", err)
			}
			var doc struct {
				Spec struct {
					Template map[string]json.RawMessage `json:"template"`
				} `json:"spec"`
			}
			if err := json.Unmarshal(rd, &doc); err != nil || string(doc.Spec.Template["$patch"]) != `"replace"` {
				t.Fatalf("RevisionData %s: %v", rd, err)
			}
			if !bytes.Equal(upstream.StoredData(rd), rd) {
				t.Fatalf("RevisionData is not compact: %s", rd)
			}
			var indented bytes.Buffer
			if err := json.Indent(&indented, rd, "    ", "  "); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(upstream.StoredData(indented.Bytes()), rd) {
				t.Fatalf("StoredData of the indented revision data differs")
			}
			wire, err := json.Marshal(ds)
			if err != nil {
				t.Fatal(err)
			}
			var back appsv1.DaemonSet
			if err := json.Unmarshal(wire, &back); err != nil {
				t.Fatal(err)
			}
			if rd2, _ := upstream.RevisionData(&back); !bytes.Equal(rd, rd2) {
				t.Fatalf("RevisionData changes through JSON:\n%s\n%s", rd, rd2)
			}
			if h2, _ := upstream.V1_37.Hash(&back.Spec.Template, back.Status.CollisionCount); h2 != h {
				t.Fatalf("Hash changes through JSON: %s, %s", h, h2)
			}
			// 4.
			if !equality.Semantic.DeepEqual(before, ds) {
				t.Fatalf("Hash or RevisionData changed the DaemonSet")
			}
		}
	})
}
