package api_test

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
)

// TestPropertyWellFormed: NodeWellFormed and PodWellFormed are the rules
// ValidateNodes and ValidatePods check of one object alone
// (docs/never-harm.md, N1 and N2): an object is well formed exactly when
// the list of it alone has no finding. placement's index and the Tracker's
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

// TestPodWellFormedFields: every string field of a pod, alone not UTF-8,
// makes PodWellFormed and ValidatePods agree: the namespace, name, UID and
// node name make the pod ill-formed, each one Invalid finding at its path
// (the rule, docs/never-harm.md, N2); any other string field (a field
// added to api.Pod later included) changes neither. An empty name is
// Required. PodWellFormed reads the fields one by one and ValidatePods
// from a list of them: this keeps the two in step.
func TestPodWellFormedFields(t *testing.T) {
	ok := api.Pod{Namespace: "ns", Name: "agent-1", UID: "u1", NodeName: "node-1"}
	require.True(t, api.PodWellFormed(&ok))
	checked := map[string]string{"Namespace": "namespace", "Name": "name", "UID": "uid", "NodeName": "nodeName"}
	typ := reflect.TypeFor[api.Pod]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		if f.Type.Kind() != reflect.String {
			continue
		}
		p := ok
		reflect.ValueOf(&p).Elem().Field(i).SetString("x\xff")
		errs := api.ValidatePods([]api.Pod{p})
		path, isChecked := checked[f.Name]
		if !isChecked {
			require.True(t, api.PodWellFormed(&p), "%s is not part of the rule", f.Name)
			require.Empty(t, errs, "%s is not part of the rule", f.Name)
			continue
		}
		require.False(t, api.PodWellFormed(&p), "%s", f.Name)
		require.Len(t, errs, 1, "%s: %v", f.Name, errs)
		require.Equal(t, field.TypeInvalid, errs[0].Type, f.Name)
		require.Equal(t, "pods[0]."+path, errs[0].Field, f.Name)
		delete(checked, f.Name)
	}
	require.Empty(t, checked, "fields the rule names that api.Pod does not have")
	p := ok
	p.Name = ""
	require.False(t, api.PodWellFormed(&p))
	errs := api.ValidatePods([]api.Pod{p})
	require.Len(t, errs, 1, "%v", errs)
	require.Equal(t, field.TypeRequired, errs[0].Type)
	require.Equal(t, "pods[0].name", errs[0].Field)
}
