package convert_test

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/kube/upstream"
)

func ExampleDaemonSet() {
	in := `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system, uid: u1}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      tolerations: [{key: dedicated, operator: Exists}]
      containers: [{name: agent, image: agent:v1}]
  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 10%}}
`
	c, err := load.Read(strings.NewReader(in))
	if err != nil {
		fmt.Println(err)
		return
	}
	ds, err := convert.DaemonSet(c.DaemonSet)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ds.Name, ds.Selector.MatchLabels, ds.Template.Tolerations[0].Key)
	fmt.Println(ds.UpdateStrategy.RollingUpdate.MaxUnavailable.StrVal)
	fmt.Println(string(ds.TemplateData))
	// Output:
	// agent map[app:agent] dedicated
	// 10%
	// {"spec":{"template":{"$patch":"replace","metadata":{"labels":{"app":"agent"}},"spec":{"containers":[{"image":"agent:v1","name":"agent","resources":{}}],"tolerations":[{"key":"dedicated","operator":"Exists"}]}}}}
}

func ExampleHashFunc() {
	in := `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"agent"},
"spec":{"template":{"metadata":{"labels":{"app":"agent"}}}}}`
	c, _ := load.Read(strings.NewReader(in))
	ds, _ := convert.DaemonSet(c.DaemonSet)
	for _, v := range []upstream.Version{upstream.V1_34, upstream.Latest} {
		hash, err := convert.HashFunc(c.DaemonSet, v) // a revision.HashFunc
		if err != nil {
			panic(err)
		}
		fmt.Println(v, ds.Name+"-"+hash(ds, ds.Status.CollisionCount))
	}
	// Output:
	// 1.34 agent-d4454bbf
	// 1.37 agent-67f6f89b97
}

func ExamplePods() {
	in := `apiVersion: v1
kind: Pod
metadata:
  name: agent-x1
  creationTimestamp: "2025-06-01T12:00:00+02:00"
  ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: u1, controller: true}]
spec: {nodeName: node-1, containers: [{name: agent}]}
status:
  phase: Running
  conditions: [{type: Ready, status: "True", lastTransitionTime: "2025-06-01T10:05:00Z"}]
`
	objs, _ := load.Decode(strings.NewReader(in))
	for _, p := range convert.Pods(objs.Pods) {
		fmt.Println(p.Name, p.NodeName, p.Controller.UID, p.Phase, p.Ready, p.ReadySince, p.Created)
	}
	// Output:
	// agent-x1 node-1 u1 Running true 2025-06-01 10:05:00 +0000 UTC 2025-06-01 10:00:00 +0000 UTC
}

func ExampleNodes() {
	in := `{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-1","labels":{"pool":"infra"}},
"spec":{"taints":[{"key":"node.kubernetes.io/not-ready","effect":"NoExecute","timeAdded":"2025-06-01T11:50:41Z"}]}}`
	objs, _ := load.Decode(strings.NewReader(in))
	for _, n := range convert.Nodes(objs.Nodes) {
		fmt.Println(n.Name, n.Labels, n.Taints[0].Key, n.Taints[0].Effect)
	}
	// Output:
	// node-1 map[pool:infra] node.kubernetes.io/not-ready NoExecute
}

func ExampleRevisions() {
	in := `{"apiVersion":"apps/v1","kind":"ControllerRevision",
"metadata":{"name":"agent-d4454bbf","labels":{"controller-revision-hash":"d4454bbf"}},
"revision":3,
"data":{
  "spec": {"template": {"$patch": "replace"}}
}}`
	objs, _ := load.Decode(strings.NewReader(in))
	for _, r := range convert.Revisions(objs.Revisions) {
		fmt.Println(r.Name, r.Revision, r.Controller == nil, string(r.Data))
	}
	// Output:
	// agent-d4454bbf 3 true {"spec":{"template":{"$patch":"replace"}}}
}

func ExampleValidateObjects() {
	objs, _ := load.Decode(strings.NewReader(`apiVersion: v1
kind: Node
metadata: {name: node-1}
spec:
  taints: [{key: dedicated, value: gpu, effect: NoSchedul}]
`))
	for _, e := range convert.ValidateObjects(objs.Nodes, objs.Pods, api.ValidateOptions{}) {
		fmt.Println(e)
	}
	// Output:
	// nodes[0].spec.taints[0].effect: Unsupported value: "NoSchedul": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"
}

// A status write changes the status alone: a caller that kept the
// DaemonSet's conversion replaces its status and encodes nothing again.
func ExampleStatus() {
	three := int32(3)
	st := convert.Status(appsv1.DaemonSetStatus{
		DesiredNumberScheduled: 3, NumberReady: 2, NumberAvailable: 2, NumberUnavailable: 1,
		ObservedGeneration: 4, CollisionCount: &three,
	})
	fmt.Println(st.DesiredNumberScheduled, st.NumberReady, st.NumberUnavailable, st.ObservedGeneration, *st.CollisionCount)
	// Output:
	// 3 2 1 4 3
}

// A canary's size and its node selector, from a policy's Kubernetes types
// to daemonplan's, as the rollout driver reads them.
func ExampleLabelSelector() {
	sel := convert.LabelSelector(&metav1.LabelSelector{MatchLabels: map[string]string{"pool": "canary"}})
	size := convert.IntOrPercent(&intstr.IntOrString{Type: intstr.String, StrVal: "10%"})
	n, _ := size.Scaled(42, true)
	fmt.Println(sel.MatchLabels, n)
	// Output: map[pool:canary] 5
}
