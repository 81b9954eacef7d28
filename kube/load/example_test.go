package load_test

import (
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
	_, err := objs.Cluster("", "")
	fmt.Println(err)
	c, _ := objs.Cluster("", "b")
	fmt.Println(c.DaemonSet.Name)
	// Output:
	// load: more than one DaemonSet in input: /a, /b
	// b
}
