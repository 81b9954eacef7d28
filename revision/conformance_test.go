package revision

import (
	"errors"
	"sort"
	"testing"

	"github.com/daemonplan/daemonplan/api"
	"github.com/google/go-cmp/cmp"
)

// TestConformanceRevisions replays the revision part of two conformance
// cases (/work/shared/conformance/cases), transcribed by hand: which
// revisions hold the template there was computed from their data; the
// hash function returns the name upstream computed.
func TestConformanceRevisions(t *testing.T) {
	nodeAgent := func(limit int32) *api.DaemonSet {
		ds := testDS("current", func(ds *api.DaemonSet) {
			ds.Name, ds.RevisionHistoryLimit = "node-agent", &limit
		})
		return ds
	}
	cr := func(name string, number int64, hash string, current bool) Revision {
		r := rev(name, number, "old-"+name, withLabels("app", "agent", api.LabelRevisionHash, hash))
		if hash == "" {
			delete(r.Labels, api.LabelRevisionHash)
		}
		if current {
			r.Data = []byte("current")
		}
		return r
	}
	type result struct {
		Update      []string // name=hash label
		Delete      []string // Construct's and Cleanup's deletes
		RelabelPods []PodRelabel
		Collision   *int32
		Err         string
	}
	tests := []struct {
		name      string
		reason    string
		ds        *api.DaemonSet
		hash      string
		revisions []Revision
		pods      []api.Pod
		want      result
	}{{
		name:   "extra-dupcr-42",
		reason: "two current revisions: keep rev 5, relabel every pod, delete the other; the legacy old revision is labelled with its name, then garbage-collected since no pod carries that name",
		ds:     nodeAgent(1),
		revisions: []Revision{
			cr("node-agent-54fd96c67f", 2, "54fd96c67f", false),
			cr("node-agent-5bff88654", 1, "", false),
			cr("node-agent-786ddd96b8", 3, "786ddd96b8", false),
			cr("node-agent-d85b8498f", 4, "d85b8498f", true),
			cr("node-agent-dup92", 5, "dupd85b", true),
		},
		pods: []api.Pod{
			pod("node-agent-54qnl", "d85b8498f"), pod("node-agent-5n2d2", "d85b8498f"),
			pod("node-agent-5q7hk", "54fd96c67f"), pod("node-agent-k6snj", "d85b8498f"),
			pod("node-agent-lrxdd", "d85b8498f"), pod("node-agent-m7m6s", "d85b8498f"),
			pod("node-agent-v4nxk", "d85b8498f"), pod("node-agent-v527r", "5bff88654"),
			pod("node-agent-vcl2p", "5bff88654"), pod("node-agent-vmgts", "786ddd96b8"),
			pod("node-agent-vtv2x", "d85b8498f"), pod("node-agent-z7vxf", "54fd96c67f"),
		},
		want: result{
			Update: []string{"node-agent-5bff88654=node-agent-5bff88654"},
			Delete: []string{"node-agent-5bff88654", "node-agent-d85b8498f"},
			RelabelPods: []PodRelabel{
				{"node-agent-54qnl", "dupd85b"}, {"node-agent-5n2d2", "dupd85b"}, {"node-agent-5q7hk", "dupd85b"},
				{"node-agent-k6snj", "dupd85b"}, {"node-agent-lrxdd", "dupd85b"}, {"node-agent-m7m6s", "dupd85b"},
				{"node-agent-v4nxk", "dupd85b"}, {"node-agent-v527r", "dupd85b"}, {"node-agent-vcl2p", "dupd85b"},
				{"node-agent-vmgts", "dupd85b"}, {"node-agent-vtv2x", "dupd85b"}, {"node-agent-z7vxf", "dupd85b"},
			},
		},
	}, {
		name:      "extra-collision-47",
		reason:    "the computed name belongs to our own old revision (data differs): collision count 0→1 and the AlreadyExists error, nothing else",
		ds:        nodeAgent(10),
		hash:      "67c4d46666",
		revisions: []Revision{cr("node-agent-67c4d46666", 1, "7899c4454f", false)},
		pods: []api.Pod{
			pod("node-agent-7dm42", "67c4d46666"), pod("node-agent-8tqzd", "7899c4454f"),
		},
		want: result{
			Collision: int32p(1),
			Err:       `controllerrevisions.apps "node-agent-67c4d46666" already exists`,
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := Options{Hash: func(*api.DaemonSet, *int32) string { return tt.hash }}
			h, err := Construct(tt.ds, tt.revisions, podPtrs(tt.pods), opts)
			var got result
			for _, u := range h.Update {
				got.Update = append(got.Update, u.Name+"="+u.Labels[api.LabelRevisionHash])
			}
			got.RelabelPods = h.RelabelPods
			if h.CollisionCount != nil {
				got.Collision = h.CollisionCount
			}
			var ae *AlreadyExistsError
			switch {
			case errors.As(err, &ae):
				got.Err = err.Error()
			case err != nil:
				t.Fatalf("Construct() error = %v", err)
			default:
				got.Delete = append(h.DeleteDuplicates, Cleanup(tt.ds, h.Old, podPtrs(tt.pods))...)
				sort.Strings(got.Delete)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Construct() mismatch (-want +got):\n%s\nreason: %s", diff, tt.reason)
			}
		})
	}
}
