package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
)

// TestParseEdits: what each edit flag accepts, and that String gives back
// the flag value.
func TestParseEdits(t *testing.T) {
	labels := []struct {
		name, in string
		want     labelEdit
	}{
		{"set", "node-1:zone=b", labelEdit{Nodes: []string{"node-1"}, Key: "zone", Value: "b"}},
		{"set empty value", "node-1:role=", labelEdit{Nodes: []string{"node-1"}, Key: "role"}},
		{"prefixed key", "n1,n2:node-role.kubernetes.io/worker=", labelEdit{Nodes: []string{"n1", "n2"}, Key: "node-role.kubernetes.io/worker"}},
		{"remove", "node-1:zone-", labelEdit{Nodes: []string{"node-1"}, Key: "zone", Remove: true}},
		{"value ending in -", "node-1:zone=a-", labelEdit{}}, // an invalid label value
	}
	for _, tt := range labels {
		t.Run("label "+tt.name, func(t *testing.T) {
			got, err := parseLabelEdit(tt.in)
			if tt.want.Nodes == nil {
				if err == nil {
					t.Fatalf("parseLabelEdit(%q) = %+v, want an error", tt.in, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("parseLabelEdit(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
			if got.String() != tt.in {
				t.Errorf("String() = %q, want %q", got.String(), tt.in)
			}
		})
	}
	taints := []struct {
		name, in string
		want     taintEdit
	}{
		{"add", "node-1:dedicated=gpu:NoSchedule", taintEdit{Nodes: []string{"node-1"}, Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}},
		{"add without value", "node-1:maintenance:NoExecute", taintEdit{Nodes: []string{"node-1"}, Key: "maintenance", Effect: corev1.TaintEffectNoExecute}},
		{"remove by effect", "node-1:dedicated:NoSchedule-", taintEdit{Nodes: []string{"node-1"}, Key: "dedicated", Effect: corev1.TaintEffectNoSchedule, Remove: true}},
		{"remove with value", "node-1:dedicated=gpu:PreferNoSchedule-", taintEdit{Nodes: []string{"node-1"}, Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectPreferNoSchedule, Remove: true}},
		{"remove every effect", "a,b:dedicated-", taintEdit{Nodes: []string{"a", "b"}, Key: "dedicated", Remove: true}},
	}
	for _, tt := range taints {
		t.Run("taint "+tt.name, func(t *testing.T) {
			got, err := parseTaintEdit(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("parseTaintEdit(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
			if got.String() != tt.in {
				t.Errorf("String() = %q, want %q", got.String(), tt.in)
			}
		})
	}
}

// TestApplyEditsDoNotMutate: edits change copies, never the loaded nodes.
func TestApplyEditsDoNotMutate(t *testing.T) {
	n := &corev1.Node{}
	n.Name, n.Labels = "n", map[string]string{"zone": "a"}
	n.Spec.Taints = []corev1.Taint{{Key: "k", Effect: corev1.TaintEffectNoSchedule}}
	orig := n.DeepCopy()
	cp := n.DeepCopy()
	applyLabel(cp, labelEdit{Key: "zone", Remove: true})
	if err := applyTaint(cp, taintEdit{Key: "k", Value: "v", Effect: corev1.TaintEffectNoSchedule}); err != nil {
		t.Fatal(err)
	}
	if err := applyTaint(cp, taintEdit{Key: "k", Remove: true}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(orig, n); diff != "" {
		t.Errorf("the original node changed (-before +after):\n%s", diff)
	}
	if len(cp.Labels) != 0 || len(cp.Spec.Taints) != 0 {
		t.Errorf("the copy: labels %v taints %v, want none", cp.Labels, cp.Spec.Taints)
	}
}

// FuzzDiffEdits feeds a string to the --label, --taint and --remove-node
// parsers, checking: never a panic; an error is one line naming the
// value; an accepted edit renders (String) to a value that parses to the
// same edit and renders the same, names no empty node, and applying it to
// a node changes a copy only.
func FuzzDiffEdits(f *testing.F) {
	for _, s := range []string{"node-1:zone=b", "node-1:zone-", "a,b:x/y=z", "node-1:dedicated=gpu:NoSchedule",
		"node-1:dedicated:NoSchedule-", "n:k-", "n:k=v-", "n:k=v:NoExecute-", ":", "n:", "n::", "n:=", "a,,b:k=v", "n:k:NoSchedule:x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if l, err := parseLabelEdit(s); err == nil {
			again, err := parseLabelEdit(l.String())
			if err != nil || !cmp.Equal(l, again) || again.String() != l.String() {
				t.Fatalf("label %q -> %+v -> %q -> %+v, %v", s, l, l.String(), again, err)
			}
			checkNodes(t, l.Nodes)
			n := &corev1.Node{}
			n.Labels = map[string]string{"zone": "a"}
			cp := n.DeepCopy()
			applyLabel(cp, l)
			if n.Labels["zone"] != "a" || len(n.Labels) != 1 {
				t.Fatal("applyLabel changed the original")
			}
			if v, ok := cp.Labels[l.Key]; ok == l.Remove || (!l.Remove && v != l.Value) {
				t.Fatalf("applyLabel %+v: labels %v", l, cp.Labels)
			}
		} else if strings.Contains(err.Error(), "\n") {
			t.Fatalf("multi-line error %q", err)
		}
		if e, err := parseTaintEdit(s); err == nil {
			again, err := parseTaintEdit(e.String())
			if err != nil || !cmp.Equal(e, again) || again.String() != e.String() {
				t.Fatalf("taint %q -> %+v -> %q -> %+v, %v", s, e, e.String(), again, err)
			}
			checkNodes(t, e.Nodes)
			n := &corev1.Node{}
			n.Spec.Taints = []corev1.Taint{{Key: e.Key, Value: "old", Effect: corev1.TaintEffectNoSchedule}}
			cp := n.DeepCopy()
			if err := applyTaint(cp, e); err != nil && !e.Remove {
				t.Fatalf("adding %+v: %v", e, err)
			}
			if n.Spec.Taints[0].Value != "old" || len(n.Spec.Taints) != 1 {
				t.Fatal("applyTaint changed the original")
			}
		}
		if names, err := parseNodeNames(s); err == nil {
			checkNodes(t, names)
			again, err := parseNodeNames(names.String())
			if err != nil || !slices.Equal(names, again) {
				t.Fatalf("remove-node %q -> %v -> %v, %v", s, names, again, err)
			}
		}
	})
}

func checkNodes(t *testing.T, nodes []string) {
	t.Helper()
	if len(nodes) == 0 {
		t.Fatal("an accepted edit names no node")
	}
	for i, n := range nodes {
		if n == "" || slices.Contains(nodes[:i], n) {
			t.Fatalf("nodes %q: empty or repeated", nodes)
		}
	}
}
