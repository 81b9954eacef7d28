package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/kube/internal/bigdump"
)

// retainedObjects is how many objects a benchmark round holds at once:
// enough that the heap's own noise is far below the figure per object.
const retainedObjects = 1000

// realistic returns n nodes and n pods from bigdump (labels, annotations,
// conditions, capacity, addresses of real nodes; a Ready DaemonSet pod on
// each) and, with busy, what an API server adds on a busy cluster: the
// 50 images a kubelet reports at most (--node-status-max-images) and the
// managedFields of the kubelet and kube-controller-manager (their field
// sets made from the object's own fields).
func realistic(tb testing.TB, n int, busy bool) ([]*corev1.Node, []*corev1.Pod) {
	tb.Helper()
	var buf bytes.Buffer
	if err := bigdump.Write(&buf, n); err != nil {
		tb.Fatal(err)
	}
	objs, err := bigdump.DecodeTyped(buf.Bytes())
	if err != nil {
		tb.Fatal(err)
	}
	var nodes []*corev1.Node
	var pods []*corev1.Pod
	for _, o := range objs {
		switch o := o.(type) {
		case *corev1.Node:
			nodes = append(nodes, o)
		case *corev1.Pod:
			pods = append(pods, o)
		}
	}
	if !busy {
		return nodes, pods
	}
	at := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	for i, node := range nodes {
		for j := len(node.Status.Images); j < 50; j++ {
			node.Status.Images = append(node.Status.Images, corev1.ContainerImage{
				Names: []string{
					fmt.Sprintf("registry.example.com/team-%d/image-%d@sha256:%064x", j%20, j, i*50+j),
					fmt.Sprintf("registry.example.com/team-%d/image-%d:v1.%d.0", j%20, j, j),
				},
				SizeBytes: int64(10_000_000 + j*1_000_000),
			})
		}
		node.ManagedFields = []metav1.ManagedFieldsEntry{
			managed(tb, "kubelet", "", at, map[string]any{"metadata": map[string]any{"labels": node.Labels, "annotations": node.Annotations}}),
			managed(tb, "kube-controller-manager", "", at, map[string]any{"spec": node.Spec}),
			managed(tb, "kubelet", "status", at, map[string]any{"status": node.Status}),
		}
	}
	for _, pod := range pods {
		pod.ManagedFields = []metav1.ManagedFieldsEntry{
			managed(tb, "kube-controller-manager", "", at, map[string]any{"metadata": map[string]any{"labels": pod.Labels, "ownerReferences": pod.OwnerReferences}, "spec": pod.Spec}),
			managed(tb, "kubelet", "status", at, map[string]any{"status": pod.Status}),
		}
	}
	return nodes, pods
}

// managed is a managedFields entry of manager for the fields of v: the
// fieldsV1 set ({"f:name":{...}} for every field of v's JSON), as an API
// server records an update.
func managed(tb testing.TB, manager, subresource string, at metav1.Time, v any) metav1.ManagedFieldsEntry {
	data, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	var tree any
	if err := json.Unmarshal(data, &tree); err != nil {
		tb.Fatal(err)
	}
	var set func(v any) map[string]any
	set = func(v any) map[string]any {
		out := map[string]any{}
		switch v := v.(type) {
		case map[string]any:
			out["."] = map[string]any{}
			for k, e := range v {
				out["f:"+k] = set(e)
			}
		case []any:
			for i, e := range v {
				out[fmt.Sprintf("i:%d", i)] = set(e)
			}
		}
		return out
	}
	raw, err := json.Marshal(set(tree))
	if err != nil {
		tb.Fatal(err)
	}
	return metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
		Time: &at, FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(string(raw)), Subresource: subresource}
}

// BenchmarkRetained measures what an informer holds per node and per pod,
// whole and through the transform: each round decodes retainedObjects
// objects from protobuf (as the API server sends them to the controller),
// transforms them or not, and keeps them; retained-B/node (or /pod) is
// the live heap they hold after a garbage collection, per object.
//
//	go test ./examples/controller -run '^$' -bench Retained -benchmem -cpu 1 -count 10
func BenchmarkRetained(b *testing.B) {
	for _, shape := range []struct {
		name string
		busy bool
	}{{"bigdump", false}, {"busy", true}} {
		nodes, pods := realistic(b, retainedObjects, shape.busy)
		nodeData, podData := make([][]byte, len(nodes)), make([][]byte, len(pods))
		for i, n := range nodes {
			nodeData[i] = mustMarshal(b, n)
		}
		for i, p := range pods {
			podData[i] = mustMarshal(b, p)
		}
		for _, kind := range []struct {
			name   string
			data   [][]byte
			decode func([]byte) (any, error)
		}{
			{"node", nodeData, func(d []byte) (any, error) { n := &corev1.Node{}; return n, n.Unmarshal(d) }},
			{"pod", podData, func(d []byte) (any, error) { p := &corev1.Pod{}; return p, p.Unmarshal(d) }},
		} {
			for _, transform := range []struct {
				name string
				fn   func(any) (any, error)
			}{{"whole", func(o any) (any, error) { return o, nil }}, {"trimmed", trim}} {
				b.Run(shape.name+"/"+kind.name+"/"+transform.name, func(b *testing.B) {
					var retained float64
					held := make([]any, len(kind.data))
					for b.Loop() {
						clear(held)
						before := liveHeap()
						for i, d := range kind.data {
							obj, err := kind.decode(d)
							if err != nil {
								b.Fatal(err)
							}
							if held[i], err = transform.fn(obj); err != nil {
								b.Fatal(err)
							}
						}
						retained += float64(liveHeap() - before)
						runtime.KeepAlive(held)
					}
					b.ReportMetric(retained/float64(b.N)/float64(len(kind.data)), "retained-B/"+kind.name)
				})
			}
		}
	}
}

func mustMarshal(tb testing.TB, obj interface{ Marshal() ([]byte, error) }) []byte {
	tb.Helper()
	data, err := obj.Marshal()
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// liveHeap is the heap in use after a full garbage collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
