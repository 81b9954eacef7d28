package convert_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/kubesync"
	"github.com/daemonplan/daemonplan/kube/load"
)

const exampleCluster = `apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: DaemonSet
  metadata: {name: agent, namespace: kube-system, uid: u1, generation: 1, annotations: {deprecated.daemonset.template.generation: "1"}}
  spec:
    selector: {matchLabels: {app: agent}}
    template:
      metadata: {labels: {app: agent}}
      spec:
        affinity:
          nodeAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
              nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/os, operator: In, values: [linux]}]}]
        containers: [{name: agent, image: agent:v1}]
- {apiVersion: v1, kind: Node, metadata: {name: node-1, labels: {kubernetes.io/os: linux}}}
`

func ExampleNewPod() {
	c, _ := load.Read(strings.NewReader(exampleCluster))
	p, _ := kubesync.Sync(c, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), kubesync.State{}, kubesync.Options{})
	pod, err := convert.NewPod(c.DaemonSet, p.Create[0])
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(pod.GenerateName, pod.Namespace, pod.Labels)
	fmt.Println(pod.OwnerReferences[0].Kind, pod.OwnerReferences[0].Name, *pod.OwnerReferences[0].Controller)
	fmt.Println(pod.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchFields[0].Values)
	fmt.Println(len(pod.Spec.Tolerations), pod.Spec.Tolerations[0].Key)
	// Output:
	// agent- kube-system map[app:agent controller-revision-hash:65679594bd pod-template-generation:1]
	// DaemonSet agent true
	// [node-1]
	// 6 node.kubernetes.io/not-ready
}

func ExampleReplaceNodeNameNodeAffinity() {
	a := convert.ReplaceNodeNameNodeAffinity(nil, "node-1")
	fmt.Printf("%+v\n", a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchFields)
	// Output:
	// [{Key:metadata.name Operator:In Values:[node-1]}]
}

func ExampleControllerRef() {
	c, _ := load.Read(strings.NewReader(exampleCluster))
	ref := convert.ControllerRef(c.DaemonSet)
	fmt.Println(ref.APIVersion, ref.Kind, ref.Name, ref.UID, *ref.Controller, *ref.BlockOwnerDeletion)
	// Output:
	// apps/v1 DaemonSet agent u1 true true
}

func ExampleNewControllerRevision() {
	c, _ := load.Read(strings.NewReader(exampleCluster))
	p, _ := kubesync.Sync(c, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), kubesync.State{}, kubesync.Options{})
	cr := convert.NewControllerRevision(c.DaemonSet, p.Revisions.Create[0])
	fmt.Println(cr.Name, cr.Revision, cr.Labels[api.LabelRevisionHash], cr.OwnerReferences[0].Name)
	// Output:
	// agent-65679594bd 1 65679594bd agent
}

func ExampleUpdatedControllerRevision() {
	c, _ := load.Read(strings.NewReader(exampleCluster))
	p, _ := kubesync.Sync(c, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), kubesync.State{}, kubesync.Options{})
	stored := convert.NewControllerRevision(c.DaemonSet, p.Revisions.Create[0])
	stored.ResourceVersion = "42"
	next := p.Revisions.Create[0]
	next.Revision = 3 // as a plan's Revisions.Update would renumber it
	up := convert.UpdatedControllerRevision(stored, next)
	fmt.Println(up.Name, up.Revision, up.ResourceVersion)
	// Output:
	// agent-65679594bd 3 42
}

func ExampleDaemonSetStatus() {
	c, _ := load.Read(strings.NewReader(exampleCluster))
	p, _ := kubesync.Sync(c, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), kubesync.State{}, kubesync.Options{})
	st := convert.DaemonSetStatus(c.DaemonSet.Status, p.Status)
	fmt.Println(p.StatusChanged, st.DesiredNumberScheduled, st.NumberUnavailable, st.ObservedGeneration)
	// Output:
	// true 1 1 1
}

func ExampleDaemonSetWithStatus() {
	c, _ := load.Read(strings.NewReader(exampleCluster))
	p, _ := kubesync.Sync(c, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), kubesync.State{}, kubesync.Options{})
	ds := convert.DaemonSetWithStatus(c.DaemonSet, p.Status) // pass to UpdateStatus
	fmt.Println(ds.Name, ds.Status.DesiredNumberScheduled, c.DaemonSet.Status.DesiredNumberScheduled)
	// Output:
	// agent 1 0
}
