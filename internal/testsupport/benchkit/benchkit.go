// Package benchkit holds what the module's benchmarks share: the cluster
// sizes they run at and a loop that reports, besides the wall time, the
// CPU time of the whole process. Only benchmarks import it.
package benchkit

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/revision"
)

// Sizes are the cluster sizes of the sync benchmarks. 1M nodes takes
// seconds to build; -short stops at 100k.
func Sizes() []int {
	if testing.Short() {
		return []int{1000, 10000, 100000}
	}
	return []int{1000, 10000, 100000, 1000000}
}

// ReportCPU runs body b.N times, passing the iteration, and reports,
// besides the wall time, the CPU time of the whole process per operation
// (cpu-ns/op): on a machine shared with other work the wall time grows
// with the load, the CPU time much less.
func ReportCPU(b *testing.B, body func(i int)) {
	b.ReportAllocs()
	b.ResetTimer()
	start := processCPU()
	for i := 0; i < b.N; i++ {
		body(i)
	}
	b.StopTimer()
	if used := processCPU() - start; used > 0 {
		b.ReportMetric(float64(used.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// Cluster builds n nodes of 20 labels, every 50th tainted, and one
// Ready pod per node. With rolling, half of the pods are of the old
// revision and the rolling update (maxUnavailable 10%) has a burst of
// deletes to plan in every sync; without, every pod is up to date and a
// sync writes nothing.
func Cluster(n int, rolling bool) daemonplan.Input {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	ds := &api.DaemonSet{
		Namespace: "kube-system", Name: "agent", UID: "ds-uid", Generation: 2,
		Annotations: map[string]string{api.AnnotationTemplateGeneration: "2"},
		Selector:    &api.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
		Template: api.PodTemplate{
			Labels:        map[string]string{"app": "agent"},
			RestartPolicy: "Always",
			NodeSelector:  map[string]string{"kubernetes.io/os": "linux"},
			Tolerations:   []api.Toleration{{Key: "dedicated", Operator: api.TolerationOpEqual, Value: "infra", Effect: api.TaintEffectNoSchedule}},
		},
		UpdateStrategy: api.UpdateStrategy{Type: api.RollingUpdate,
			RollingUpdate: &api.RollingUpdateParams{MaxUnavailable: api.Percent("10%"), MaxSurge: api.Int(0)}},
		Status: api.Status{ObservedGeneration: 2},
	}
	oldDS := *ds
	oldDS.Template.Tolerations = nil
	oldHash, newHash := revision.DefaultHash(&oldDS, nil), revision.DefaultHash(ds, nil)
	owner := &api.OwnerRef{Kind: "DaemonSet", Name: "agent", UID: "ds-uid"}
	revs := []revision.Revision{
		{Namespace: "kube-system", Name: "agent-" + oldHash, Labels: map[string]string{"app": "agent", api.LabelRevisionHash: oldHash}, Controller: owner, Revision: 1, Data: revision.TemplateData(&oldDS)},
		{Namespace: "kube-system", Name: "agent-" + newHash, Labels: map[string]string{"app": "agent", api.LabelRevisionHash: newHash}, Controller: owner, Revision: 2, Data: revision.TemplateData(ds)},
	}
	oldLabels := map[string]string{"app": "agent", api.LabelRevisionHash: oldHash, api.LabelTemplateGeneration: "1"}
	newLabels := map[string]string{"app": "agent", api.LabelRevisionHash: newHash, api.LabelTemplateGeneration: "2"}
	in := daemonplan.Input{DaemonSet: ds, Revisions: revs, Now: now, Nodes: make([]api.Node, n), Pods: make([]api.Pod, 0, n)}
	for i := range in.Nodes {
		name := fmt.Sprintf("node-%06d", i)
		labels := make(map[string]string, 20)
		for j := 0; j < 18; j++ {
			labels[fmt.Sprintf("example.com/label-%02d", j)] = "v"
		}
		labels["kubernetes.io/os"] = "linux"
		labels["kubernetes.io/hostname"] = name
		in.Nodes[i] = api.Node{Name: name, Labels: labels}
		if i%50 == 7 {
			in.Nodes[i].Taints = []api.Taint{{Key: "dedicated", Value: "infra", Effect: api.TaintEffectNoSchedule}}
		}
		l := newLabels
		if rolling && i%2 == 1 {
			l = oldLabels
		}
		in.Pods = append(in.Pods, api.Pod{Namespace: "kube-system", Name: fmt.Sprintf("agent-%06d", i), Labels: l, Controller: owner,
			NodeName: name, Phase: api.PodRunning, Ready: true, ReadySince: now.Add(-time.Hour), Created: now.Add(-2 * time.Hour)})
	}
	return in
}

// Decoded returns a copy of in in which every node and pod holds its own
// strings and label maps, as objects decoded from the API server do.
// [Cluster] shares them (one owner reference, two label maps and the node's
// name for every pod), which a lookup then finds in the processor's cache,
// and compares by address. The DaemonSet and revisions are shared with in.
func Decoded(in daemonplan.Input) daemonplan.Input {
	out := in
	out.Nodes = make([]api.Node, len(in.Nodes))
	for i, n := range in.Nodes {
		n.Name = strings.Clone(n.Name)
		n.Labels = ownLabels(n.Labels)
		n.Taints = slices.Clone(n.Taints)
		for j := range n.Taints {
			t := &n.Taints[j]
			t.Key, t.Value = strings.Clone(t.Key), strings.Clone(t.Value)
		}
		out.Nodes[i] = n
	}
	out.Pods = make([]api.Pod, len(in.Pods))
	for i, p := range in.Pods {
		p.Namespace, p.Name, p.UID, p.NodeName = strings.Clone(p.Namespace), strings.Clone(p.Name), strings.Clone(p.UID), strings.Clone(p.NodeName)
		p.Phase = api.PodPhase(strings.Clone(string(p.Phase)))
		p.Labels = ownLabels(p.Labels)
		if p.Controller != nil {
			o := *p.Controller
			o.Kind, o.Name, o.UID = strings.Clone(o.Kind), strings.Clone(o.Name), strings.Clone(o.UID)
			p.Controller = &o
		}
		out.Pods[i] = p
	}
	return out
}

// ownLabels copies labels, keys and values included.
func ownLabels(labels map[string]string) map[string]string {
	if labels == nil {
		return nil
	}
	out := make(map[string]string, len(labels))
	for k, v := range labels {
		out[strings.Clone(k)] = strings.Clone(v)
	}
	return out
}
