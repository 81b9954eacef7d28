package load_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/daemonplan/daemonplan/kube/load"
)

// TestIdentity: an object is the same object as another of its kind with
// the same namespace and name; the namespace counts only for namespaced
// kinds. A copy with other content is a conflict; an equal copy is kept
// once.
func TestIdentity(t *testing.T) {
	tests := []struct {
		name, why, in string
		count         func(*load.Objects) int
		want          int
		conflict      bool
	}{
		{"pods in two namespaces", "a pod's namespace is part of its identity",
			"apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: a}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: b}\n",
			func(o *load.Objects) int { return len(o.Pods) }, 2, false},
		{"a pod defaulted into the namespace of its twin", "no namespace reads as the default one (team): the same pod, other content",
			"apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: team}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {tier: web}}\n",
			nil, 0, true},
		{"a node given twice alike", "an equal copy is kept once",
			"apiVersion: v1\nkind: Node\nmetadata: {name: node-1}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: node-1}\n",
			func(o *load.Objects) int { return len(o.Nodes) }, 1, false},
		{"a node with a namespace", "a node is cluster-scoped: a namespace written on it does not make another node",
			"apiVersion: v1\nkind: Node\nmetadata: {name: node-1}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: node-1, namespace: a}\n",
			nil, 0, true},
		{"priority classes", "cluster-scoped too",
			"apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 10\n---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high, namespace: a}\nvalue: 20\n",
			nil, 0, true},
		{"a DaemonSet and a pod of one name", "kinds do not collide",
			"apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: x}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: x}\n",
			func(o *load.Objects) int { return len(o.Pods) + len(o.DaemonSets) }, 2, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := load.Load(load.Options{DefaultNamespace: "team"}, load.Source{Name: "in", R: strings.NewReader(tc.in)})
			if tc.conflict {
				if !errors.Is(err, load.ErrConflict) {
					t.Fatalf("%s: got %v, want ErrConflict", tc.why, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: %v", tc.why, err)
			}
			if got := tc.count(objs); got != tc.want {
				t.Errorf("%s: %d objects, want %d", tc.why, got, tc.want)
			}
		})
	}
}
