package load_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/daemonplan/daemonplan/kube/load"
)

func ExampleRead() {
	in := `apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: DaemonSet
  metadata: {name: agent, namespace: kube-system}
- apiVersion: v1
  kind: Node
  metadata: {name: node-1}
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: settings, namespace: kube-system}
`
	c, err := load.Read(strings.NewReader(in))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.DaemonSet.Name, len(c.Nodes), c.Ignored)
	// Output:
	// agent 1 [v1 ConfigMap kube-system/settings]
}

func ExampleDecode() {
	in := `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"a"}}
{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"b"}}`
	objs, _ := load.Decode(strings.NewReader(in))
	_, err := objs.Snapshot("", "")
	fmt.Println(err)
	c, _ := objs.Snapshot("", "b")
	fmt.Println(c.DaemonSet.Name)
	// Output:
	// load: more than one DaemonSet in input: default/a, default/b
	// b
}

func ExampleSources() {
	a := `{"apiVersion":"v1","kind":"List","items":[
  {"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"agent","namespace":"ns","uid":"u1"}},
  {"apiVersion":"v1","kind":"Node","metadata":{"name":"node-1"}}]}`
	b := `apiVersion: v1
kind: Node
metadata: {name: node-1}
---
apiVersion: v1
kind: Node
metadata: {name: node-2}
`
	objs, err := load.Sources(load.Source{Name: "a.json", R: strings.NewReader(a)}, load.Source{Name: "b.yaml", R: strings.NewReader(b)})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, n := range objs.Nodes {
		fmt.Println(n.Name, "at", objs.At.Nodes[i])
	}

	changed := strings.Replace(b, "{name: node-1}", "{name: node-1, labels: {zone: b}}", 1)
	_, err = load.Sources(load.Source{Name: "a.json", R: strings.NewReader(a)}, load.Source{Name: "b.yaml", R: strings.NewReader(changed)})
	fmt.Println(err)
	// Output:
	// node-1 at a.json: JSON value 1, items[1]
	// node-2 at b.yaml: YAML document 2
	// load: b.yaml: YAML document 1 (v1 Node node-1): the same object appears twice with different content: differs from its copy at a.json: JSON value 1, items[1]
}

func ExampleObjects_Snapshot() {
	in := `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"agent","namespace":"a"}}
{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"agent","namespace":"b"}}
{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-1"}}`
	objs, _ := load.Decode(strings.NewReader(in))
	_, err := objs.Snapshot("", "agent")
	fmt.Println(err)
	s, _ := objs.Snapshot("b", "agent")
	fmt.Println(s.DaemonSet.Namespace, len(s.Nodes), s.At.DaemonSet)
	// Output:
	// load: more than one DaemonSet in input: a/agent, b/agent
	// b 1 JSON value 2
}

func ExampleLoad() {
	in := `apiVersion: v1
kind: List
metadata: {name: dump}
items:
- apiVersion: apps/v1
  kind: DaemonSet
  metadata: {name: agent}
  spec:
    template:
      spec:
        nodeselector: {disk: ssd}
- apiVersion: v1
  kind: Pod
  metadata: {name: agent-x}
`
	objs, err := load.Load(load.Options{DefaultNamespace: "kube-system"}, load.Source{Name: "agent.yaml", R: strings.NewReader(in)})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(objs.DaemonSets[0].Namespace, objs.Pods[0].Namespace)
	for _, w := range objs.Warnings {
		fmt.Println(w)
	}
	_, err = load.Load(load.Options{Strict: true}, load.Source{Name: "agent.yaml", R: strings.NewReader(in)})
	fmt.Println(err)
	// Output:
	// kube-system kube-system
	// agent.yaml: YAML document 1, items[0] (apps/v1 DaemonSet agent): unknown field "spec.template.spec.nodeselector"
	// agent.yaml: YAML document 1, items[0] (apps/v1 DaemonSet agent): 2 object(s) without metadata.namespace read in namespace "kube-system", as kubectl reads them (-n sets another)
	// load: agent.yaml: YAML document 1, items[0] (apps/v1 DaemonSet agent): strict decoding error: unknown field "spec.template.spec.nodeselector"
}

// A YAML document whose aliases would add more than MaxAliasExpansion bytes
// once expanded is refused before it is decoded, naming the document.
func ExampleLoad_aliasExpansion() {
	in := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n  s: &s " + strings.Repeat("x", 100_000) +
		"\nl: [" + strings.TrimSuffix(strings.Repeat("*s, ", 3000), ", ") + "]\n"
	_, err := load.Load(load.Options{}, load.Source{Name: "a.yaml", R: strings.NewReader(in)})
	fmt.Println(errors.Is(err, load.ErrAliasExpansion))
	fmt.Println(err)
	// Output:
	// true
	// load: a.yaml: YAML document 1: YAML aliases expand the document too far: they add more than 4194304 bytes once expanded (load.MaxAliasExpansion); refused before decoding
}

// An OpenKruise DaemonSet's metadata is read as an apps/v1 DaemonSet's: a
// field given twice keeps its last value whole, and a namespace left out
// is the default one, which the warning names.
func ExampleLoad_kruiseNamespace() {
	in := `{"apiVersion":"apps.kruise.io/v1beta1","kind":"DaemonSet",` +
		`"metadata":{"name":"agent","namespace":"kube-system"},"metadata":{"name":"agent"}}`
	objs, err := load.Load(load.Options{DefaultNamespace: "team"}, load.Source{Name: "ds.json", R: strings.NewReader(in)})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(objs.Kruise[0].GetNamespace() + "/" + objs.Kruise[0].GetName())
	for _, w := range objs.Warnings {
		fmt.Println(w)
	}
	// Output:
	// team/agent
	// ds.json: JSON value 1 (apps.kruise.io/v1beta1 DaemonSet agent): duplicate field "metadata"
	// ds.json: JSON value 1 (apps.kruise.io/v1beta1 DaemonSet agent): 1 object(s) without metadata.namespace read in namespace "team", as kubectl reads them (-n sets another)
}
