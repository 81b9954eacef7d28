package load_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/kube/load"
)

// attribution is what the loader made of a DaemonSet's identity: where it
// plans it, and what it said about it.
type attribution struct {
	Namespace, Name string
	Warnings        []string
	Err             string
}

// readDaemonSet reads in, which holds one DaemonSet of apiVersion gv,
// with the default namespace "team", and renders what the loader made of
// it; the apiVersion is left out of messages, so that an apps/v1 and an
// OpenKruise DaemonSet read alike compare equal.
func readDaemonSet(gv, in string) attribution {
	objs, err := load.Load(load.Options{DefaultNamespace: "team"}, load.Source{Name: "ds", R: strings.NewReader(in)})
	if err != nil {
		var de *load.DecodeError
		if !errors.As(err, &de) {
			return attribution{Err: "not a *load.DecodeError: " + err.Error()}
		}
		return attribution{Err: strings.ReplaceAll(err.Error(), gv+" ", "")}
	}
	var a attribution
	switch {
	case len(objs.Kruise) == 1 && len(objs.DaemonSets) == 0:
		a.Namespace, a.Name = objs.Kruise[0].GetNamespace(), objs.Kruise[0].GetName()
	case len(objs.DaemonSets) == 1 && len(objs.Kruise) == 0:
		a.Namespace, a.Name = objs.DaemonSets[0].Namespace, objs.DaemonSets[0].Name
	default:
		return attribution{Err: "not one DaemonSet"}
	}
	for _, w := range objs.Warnings {
		a.Warnings = append(a.Warnings, strings.ReplaceAll(w.String(), gv+" ", ""))
	}
	return a
}

// TestKruiseNamespaceAsAppsV1: an OpenKruise DaemonSet's metadata is read
// by the rule that reads an apps/v1 DaemonSet's, whatever the input makes
// of it (metadata given twice, null, a null or numeric namespace): the same
// namespace and name, in JSON as in YAML, and the same warnings and errors
// as the apps/v1 DaemonSet written alike. The OpenKruise DaemonSet was
// planned in namespace "" (a second pod on every node) with a warning
// naming the namespace it did not use, and a numeric namespace silently
// became the default one.
func TestKruiseNamespaceAsAppsV1(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		json   string // the object's members after apiVersion and kind
		yaml   string // the same, in YAML
		// want is what every encoding reads: namespace and name, or an
		// error that holds Err; warnings are compared between the kinds.
		want attribution
	}{
		{
			name:   "metadata twice, the second without namespace",
			reason: "a field given twice keeps its last value, whole, as YAML keeps it: the first metadata's namespace is dropped, said in the duplicate warning, and the default namespace, said in its own",
			json:   `"metadata":{"name":"a","namespace":"ns"},"metadata":{"name":"a"}`,
			yaml:   "metadata: {name: a, namespace: ns}\nmetadata: {name: a}\n",
			want:   attribution{Namespace: "team", Name: "a"},
		},
		{
			name:   "metadata twice, the second with another namespace",
			reason: "the last metadata stands whole: its namespace, and no name (the JSON decoder merged the two)",
			json:   `"metadata":{"name":"a","namespace":"ns"},"metadata":{"namespace":"other"}`,
			yaml:   "metadata: {name: a, namespace: ns}\nmetadata: {namespace: other}\n",
			want:   attribution{Namespace: "other"},
		},
		{
			name:   "metadata given, then null",
			reason: "the last metadata is null: no namespace and no name, as YAML reads it (the JSON decoder kept the first)",
			json:   `"metadata":{"name":"a","namespace":"ns"},"metadata":null`,
			yaml:   "metadata: {name: a, namespace: ns}\nmetadata: null\n",
			want:   attribution{Namespace: "team"},
		},
		{
			name:   "metadata null",
			reason: "no namespace: read in the default one, which the warning names",
			json:   `"metadata":null`,
			yaml:   "metadata:\n",
			want:   attribution{Namespace: "team"},
		},
		{
			name:   "namespace null",
			reason: "a null namespace is no namespace",
			json:   `"metadata":{"name":"a","namespace":null}`,
			yaml:   "metadata: {name: a, namespace: null}\n",
			want:   attribution{Namespace: "team", Name: "a"},
		},
		{
			name:   "namespace twice in one metadata",
			reason: "the last value is kept, with a warning",
			json:   `"metadata":{"name":"a","namespace":"ns","namespace":"other"}`,
			yaml:   "metadata: {name: a, namespace: ns, namespace: other}\n",
			want:   attribution{Namespace: "other", Name: "a"},
		},
		{
			name:   "numeric namespace",
			reason: "a namespace is a string: an error naming the field, never the default namespace",
			json:   `"metadata":{"name":"a","namespace":5}`,
			yaml:   "metadata: {name: a, namespace: 5}\n",
			want:   attribution{Err: "metadata.namespace: want string, found number"},
		},
		{
			name:   "numeric namespace in a metadata given again",
			reason: "the first metadata is dropped whole, its bad namespace too, in JSON as in YAML",
			json:   `"metadata":{"name":"a","namespace":5},"metadata":{"name":"b","namespace":"ns"}`,
			yaml:   "metadata: {name: a, namespace: 5}\nmetadata: {name: b, namespace: ns}\n",
			want:   attribution{Namespace: "ns", Name: "b"},
		},
		{
			name:   "metadata not an object",
			reason: "an error naming the field, as for apps/v1",
			json:   `"metadata":"ns"`,
			yaml:   "metadata: ns\n",
			want:   attribution{Err: "metadata: want v1.ObjectMeta, found string"},
		},
	}
	for _, tt := range tests {
		for _, enc := range []string{"JSON", "YAML"} {
			t.Run(tt.name+"/"+enc, func(t *testing.T) {
				read := func(gv string) attribution {
					if enc == "JSON" {
						return readDaemonSet(gv, `{"apiVersion":"`+gv+`","kind":"DaemonSet",`+tt.json+`}`)
					}
					return readDaemonSet(gv, "apiVersion: "+gv+"\nkind: DaemonSet\n"+tt.yaml)
				}
				apps := read("apps/v1")
				got := attribution{Namespace: apps.Namespace, Name: apps.Name}
				if apps.Err != "" && strings.Contains(apps.Err, tt.want.Err) {
					got = attribution{Err: tt.want.Err}
				} else if apps.Err != "" {
					got.Err = apps.Err
				}
				if d := cmp.Diff(tt.want, got); d != "" {
					t.Errorf("apps/v1: Load() mismatch (-want +got): %s\n%s", tt.reason, d)
				}
				if tt.want.Namespace == "team" && !slices.ContainsFunc(apps.Warnings, func(w string) bool { return strings.Contains(w, `namespace "team"`) }) {
					t.Errorf("apps/v1: no warning names the namespace used: %q", apps.Warnings)
				}
				for _, gv := range []string{"apps.kruise.io/v1beta1", "apps.kruise.io/v1alpha1"} {
					if d := cmp.Diff(apps, read(gv)); d != "" {
						t.Errorf("%s: Load() mismatch (-apps/v1 +%s): %s\n%s", gv, gv, tt.reason, d)
					}
				}
			})
		}
	}
}
