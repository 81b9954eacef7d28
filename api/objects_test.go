package api_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
)

// TestPropertyWellFormed: NodeWellFormed and PodWellFormed are the rules
// ValidateNodes and ValidatePods check of one object alone
// (docs/never-harm.md, N1 and N2): an object is well formed exactly when
// the list of it alone has no finding. placement's index and replan's
// tracker ask the predicates and call the validators only for the
// findings, so a predicate that drifted from its validator would let them
// plan what Sync refuses, or refuse what it plans.
func TestPropertyWellFormed(t *testing.T) {
	str := rapid.SampledFrom([]string{"", "a", "node-0", "ns", "u-1", "\xff", "a\xfeb", "ü"})
	rapid.Check(t, func(t *rapid.T) {
		n := api.Node{Name: str.Draw(t, "node")}
		if got, want := api.NodeWellFormed(&n), len(api.ValidateNodes([]api.Node{n})) == 0; got != want {
			t.Fatalf("NodeWellFormed(%q) = %v, ValidateNodes finds nothing: %v", n.Name, got, want)
		}
		p := api.Pod{Namespace: str.Draw(t, "namespace"), Name: str.Draw(t, "name"),
			UID: str.Draw(t, "uid"), NodeName: str.Draw(t, "nodeName")}
		if got, want := api.PodWellFormed(&p), len(api.ValidatePods([]api.Pod{p})) == 0; got != want {
			t.Fatalf("PodWellFormed(%+v) = %v, ValidatePods finds nothing: %v (%v)", p, got, want, api.ValidatePods([]api.Pod{p}))
		}
	})
	if api.NodeWellFormed(nil) || api.PodWellFormed(nil) {
		t.Errorf("a nil object is well formed")
	}
}

// TestPodWellFormedFields: each string PodWellFormed reads, alone not
// UTF-8, makes the pod ill-formed and is the one finding of ValidatePods,
// at its field; an empty name is Required.
func TestPodWellFormedFields(t *testing.T) {
	ok := api.Pod{Namespace: "ns", Name: "agent-1", UID: "u1", NodeName: "node-1"}
	tests := []struct {
		field string
		set   func(p *api.Pod)
		want  field.ErrorType
	}{
		{"namespace", func(p *api.Pod) { p.Namespace = "n\xff" }, field.TypeInvalid},
		{"name", func(p *api.Pod) { p.Name = "a\xff" }, field.TypeInvalid},
		{"uid", func(p *api.Pod) { p.UID = "u\xff" }, field.TypeInvalid},
		{"nodeName", func(p *api.Pod) { p.NodeName = "node-\xff" }, field.TypeInvalid},
		{"name", func(p *api.Pod) { p.Name = "" }, field.TypeRequired},
	}
	require.True(t, api.PodWellFormed(&ok))
	for _, tt := range tests {
		p := ok
		tt.set(&p)
		require.False(t, api.PodWellFormed(&p), "%s", tt.field)
		errs := api.ValidatePods([]api.Pod{p})
		require.Len(t, errs, 1, "%s: %v", tt.field, errs)
		require.Equal(t, tt.want, errs[0].Type, tt.field)
		require.Equal(t, "pods[0]."+tt.field, errs[0].Field, tt.field)
	}
}
