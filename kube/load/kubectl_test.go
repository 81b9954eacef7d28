package load_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/kube/load"
)

// The findings of a new user reading files as kubectl reads them: each row
// is one, with what kubectl does.

const nodeGet = `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","uid":"u-n1","labels":{"a":"b"}},"spec":{"podCIDR":"10.0.0.0/24"}}`
const nodeItem = `{"metadata":{"name":"n1","uid":"u-n1","labels":{"a":"b"}},"spec":{"podCIDR":"10.0.0.0/24"}}`

const kruiseDS = `{"apiVersion":"apps.kruise.io/v1beta1","kind":"DaemonSet","metadata":{"name":"agent","namespace":"ns","uid":"k1"},"spec":{"selector":{"matchLabels":{"app":"agent"}},"template":{"metadata":{"labels":{"app":"agent"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}`

func TestKubectlFieldWarnings(t *testing.T) {
	dsYAML := func(podSpec string) string {
		return "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent, namespace: ns}\nspec:\n  selector: {matchLabels: {app: a}}\n  template:\n    metadata: {labels: {app: a}}\n    spec:\n      containers: [{name: c, image: i}]\n" + podSpec
	}
	tests := []struct {
		name   string
		reason string
		in     string
		want   []string // warnings, as strings
	}{
		{"misspelled nodeSelector", "field names are case-sensitive: nodeselector is dropped by the API server, which kubectl warns about",
			dsYAML("      nodeselector: {disk: ssd}\n"),
			[]string{`YAML document 1 (apps/v1 DaemonSet ns/agent): unknown field "spec.template.spec.nodeselector"`}},
		{"toleration singular", "toleration: is not a field of a pod spec",
			dsYAML("      toleration: [{operator: Exists}]\n"),
			[]string{`YAML document 1 (apps/v1 DaemonSet ns/agent): unknown field "spec.template.spec.toleration"`}},
		{"dedented effect", "an effect dedented out of its toleration becomes a pod-spec field the API server drops",
			dsYAML("      tolerations:\n      - key: k\n        operator: Exists\n      effect: NoSchedule\n"),
			[]string{`YAML document 1 (apps/v1 DaemonSet ns/agent): unknown field "spec.template.spec.effect"`}},
		{"node field unknown", "an unknown field of a node is warned about like a DaemonSet's",
			`{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"},"spec":{"taint":[]}}`,
			[]string{`JSON value 1 (v1 Node n): unknown field "spec.taint"`}},
		{"JSON duplicate field", "a field given twice keeps its last value, as the API server stores it, with kubectl's warning",
			`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ns"},"spec":{"nodeName":"a","nodeName":"b"}}`,
			[]string{`JSON value 1 (v1 Pod ns/p): duplicate field "spec.nodeName"`}},
		{"YAML duplicate key", "a YAML key given twice keeps its last value with the YAML decoder's warning, as the API server gives it",
			"apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\nspec:\n  nodeName: a\n  nodeName: b\n",
			[]string{`YAML document 1: line 6: key "nodeName" already set in map`}},
		{"known fields only", "a clean object gets no warning",
			`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ns"},"spec":{"nodeName":"a"}}`,
			nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := load.Decode(strings.NewReader(tt.in))
			if err != nil {
				t.Fatalf("%s: Decode: %v", tt.reason, err)
			}
			var got []string
			for _, w := range objs.Warnings {
				got = append(got, w.String())
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("%s: warnings (-want +got):\n%s", tt.reason, d)
			}
			_, err = load.Load(load.Options{Strict: true}, load.Source{R: strings.NewReader(tt.in)})
			if (err != nil) != (len(tt.want) > 0) {
				t.Errorf("%s: with Strict, error = %v, want one exactly when there are warnings", tt.reason, err)
			}
		})
	}
}

func TestKubectlReads(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		in     []string // sources
		opts   load.Options
		want   summary
		warn   string // a substring of one warning, if any
	}{
		{"List with a name", "any object with items is a list, also one with metadata.name",
			[]string{`{"apiVersion":"v1","kind":"List","metadata":{"name":"dump"},"items":[` + node + `]}`}, load.Options{},
			summary{Nodes: []string{"n1"}}, ""},
		{"kind list lower-case", "kubectl reads a list by its items, whatever its kind",
			[]string{`{"apiVersion":"v1","kind":"list","items":[` + node + `]}`}, load.Options{},
			summary{Nodes: []string{"n1"}}, ""},
		{"kind Pods", "a list called Pods with typed items is a list",
			[]string{`{"apiVersion":"v1","kind":"Pods","items":[` + pod + `]}`}, load.Options{},
			summary{Pods: []string{"ns/p1"}}, ""},
		{"PodList", "a typed list's items without apiVersion and kind are of its kind",
			[]string{`{"apiVersion":"v1","kind":"PodList","items":[{"metadata":{"name":"p1","namespace":"ns"}}]}`}, load.Options{},
			summary{Pods: []string{"ns/p1"}}, ""},
		{"typed item and kubectl get", "a NodeList item and the same node as kubectl get -o json prints it are one node",
			[]string{`{"apiVersion":"v1","kind":"NodeList","items":[` + nodeItem + `]}`, nodeGet}, load.Options{},
			summary{Nodes: []string{"n1"}}, ""},
		{"pod without namespace", "a pod without metadata.namespace is in the default namespace, as kubectl reads it, said in a warning",
			[]string{ds, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p1"}}`}, load.Options{},
			summary{DaemonSets: []string{"ns/agent"}, Pods: []string{"default/p1"}}, `1 object(s) without metadata.namespace read in namespace "default"`},
		{"namespace option", "the namespace kubectl -n gives is the caller's",
			[]string{`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p1"}}`, pod}, load.Options{DefaultNamespace: "ns"},
			summary{Pods: []string{"ns/p1"}}, `read in namespace "ns"`},
		{"Kruise twice", "the same OpenKruise DaemonSet given twice is one, like an apps/v1 one",
			[]string{kruiseDS, kruiseDS}, load.Options{},
			summary{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var srcs []load.Source
			for i, in := range tt.in {
				srcs = append(srcs, load.Source{Name: string(rune('a' + i)), R: strings.NewReader(in)})
			}
			objs, err := load.Load(tt.opts, srcs...)
			if err != nil {
				t.Fatalf("%s: Load: %v", tt.reason, err)
			}
			if d := cmp.Diff(tt.want, summarize(objs)); d != "" {
				t.Errorf("%s: (-want +got):\n%s", tt.reason, d)
			}
			var warnings []string
			for _, w := range objs.Warnings {
				warnings = append(warnings, w.String())
			}
			if tt.warn == "" && len(warnings) > 0 || tt.warn != "" && !strings.Contains(strings.Join(warnings, "\n"), tt.warn) {
				t.Errorf("%s: warnings %q, want one containing %q", tt.reason, warnings, tt.warn)
			}
			if tt.name == "Kruise twice" && len(objs.Kruise) != 1 {
				t.Errorf("%s: %d OpenKruise DaemonSets, want 1", tt.reason, len(objs.Kruise))
			}
		})
	}
}

func TestKubectlUnknownKinds(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		in     string
		want   string // substring of the error
	}{
		{"kind pod", "kinds are case-sensitive: kubectl finds no kind pod",
			`{"apiVersion":"v1","kind":"pod","metadata":{"name":"p"}}`, `(v1 pod p): no matches for kind "pod" in version "v1" (kinds are case-sensitive: Pod)`},
		{"item kind pod", "an item of a List is read like an object of its own",
			`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"pod","metadata":{"name":"p"}}]}`, `items[0] (v1 pod p): no matches for kind "pod"`},
		{"core/v1", "the core group has no name: kubectl finds no version core/v1",
			`{"apiVersion":"core/v1","kind":"Pod","metadata":{"name":"p"}}`, `no matches for kind "Pod" in version "core/v1"`},
		{"Pods item", "an item without kind in a list called Pods is of kind Pods, which kubectl does not know",
			`{"apiVersion":"v1","kind":"Pods","items":[{"metadata":{"name":"p"}}]}`, `no matches for kind "Pods" in version "v1"`},
		{"unknown built-in kind", "a kind the core group does not have",
			`{"apiVersion":"v1","kind":"Nod","metadata":{"name":"n"}}`, `no matches for kind "Nod" in version "v1"`},
		{"apps/v2", "a version the apps group does not serve",
			`{"apiVersion":"apps/v2","kind":"Deployment","metadata":{"name":"d"}}`, `no matches for kind "Deployment" in version "apps/v2"`},
		{"Kruise version", "an OpenKruise DaemonSet in a version OpenKruise does not serve",
			`{"apiVersion":"apps.kruise.io/v2","kind":"DaemonSet","metadata":{"name":"d"}}`, `unsupported apiVersion, want apps.kruise.io/v1beta1`},
		{"list without kind", "kubectl needs a list's kind",
			`{"apiVersion":"v1","items":[]}`, `a list without kind`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load.Decode(strings.NewReader(tt.in))
			var le *load.DecodeError
			if err == nil || !errors.As(err, &le) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s: Decode() error = %v, want a *load.DecodeError containing %q", tt.reason, err, tt.want)
			}
		})
	}
	// Kinds kubectl knows but daemonplan does not read, and custom
	// resources, are ignored as before.
	objs, err := load.Decode(strings.NewReader(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"ns"}}
{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"}}`))
	if err != nil || len(objs.Ignored) != 2 {
		t.Errorf("ConfigMap and a custom resource: %v, ignored %q, want both ignored", err, objs.Ignored)
	}
}
