package reference

import (
	"fmt"
	"maps"
	"time"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/selector"
	"github.com/daemonplan/daemonplan/taints"
	"pgregory.net/rapid"
)

// Epoch is the fixed instant generated snapshots are built around.
var Epoch = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// The generators draw from small pools so that labels, taints and
// tolerations collide often. Node names are "node-0" … "node-9"; a pod may
// target one of them that is not in the node list (a vanished node).
const universe = 10

var (
	labelKeys   = []string{"zone", "disk", "gpu"}
	labelValues = []string{"a", "b", "c"}
	// nodeValues weighs node labels towards "a", the value selectors ask
	// for most, so that eligible nodes are common.
	nodeValues = []string{"a", "a", "a", "b", "c"}

	taintPool = []taints.Taint{
		{Key: "dedicated", Value: "infra", Effect: taints.NoSchedule},
		{Key: "dedicated", Value: "infra", Effect: taints.NoExecute},
		{Key: "gpu", Effect: taints.NoExecute},
		{Key: "soft", Effect: taints.PreferNoSchedule},
		{Key: taints.KeyNotReady, Effect: taints.NoExecute},
		{Key: taints.KeyNotReady, Effect: taints.NoSchedule},
		{Key: taints.KeyUnreachable, Effect: taints.NoSchedule},
		{Key: taints.KeyUnschedulable, Effect: taints.NoSchedule},
		{Key: taints.KeyDiskPressure, Effect: taints.NoSchedule},
		{Key: taints.KeyNetworkUnavailable, Effect: taints.NoSchedule},
	}
	tolerationPool = []taints.Toleration{
		{Key: "dedicated", Operator: taints.Equal, Value: "infra", Effect: taints.NoSchedule},
		{Key: "dedicated", Operator: taints.Exists},
		{Key: "gpu", Operator: taints.Exists, Effect: taints.NoExecute},
		{Key: taints.KeyNotReady, Operator: taints.Exists, Effect: taints.NoSchedule},
		{Key: taints.KeyUnreachable, Operator: taints.Exists},
		{Key: "", Operator: taints.Exists, Effect: taints.NoSchedule},
		{Key: "dedicated", Operator: taints.Equal, Value: "other", Effect: taints.NoExecute},
	}
	budgetPool = []*api.IntOrPercent{
		nil, api.Int(0), api.Int(1), api.Int(1), api.Int(2), api.Percent("0%"), api.Percent("50%"), api.Percent("50%"),
	}
)

// NodeName is the name of the i-th node of the generated universe.
func NodeName(i int) string { return fmt.Sprintf("node-%d", i) }

func drawLabels(t *rapid.T, label string) map[string]string {
	labels := map[string]string{}
	for _, k := range labelKeys {
		if rapid.IntRange(0, 2).Draw(t, label+"-has-"+k) > 0 {
			labels[k] = rapid.SampledFrom(nodeValues).Draw(t, label+"-"+k)
		}
	}
	return labels
}

// Node generates node i of the universe: labels and taints from the pools.
func Node(i int) *rapid.Generator[api.Node] {
	return rapid.Custom(func(t *rapid.T) api.Node {
		n := api.Node{Name: NodeName(i), Labels: drawLabels(t, "label")}
		for _, taint := range taintPool {
			if rapid.IntRange(0, 11).Draw(t, "taint") == 0 {
				n.Taints = append(n.Taints, taint)
			}
		}
		return n
	})
}

func drawRequirement(t *rapid.T) selector.NodeSelectorRequirement {
	op := rapid.SampledFrom([]selector.Operator{selector.In, selector.NotIn, selector.Exists, selector.DoesNotExist}).Draw(t, "op")
	r := selector.NodeSelectorRequirement{Key: rapid.SampledFrom(labelKeys).Draw(t, "key"), Operator: op}
	if op == selector.In || op == selector.NotIn {
		r.Values = rapid.SliceOfNDistinct(rapid.SampledFrom(labelValues), 1, 2, rapid.ID[string]).Draw(t, "values")
	}
	return r
}

// Affinity generates a required node affinity: nil most of the time, else
// one or two terms of label expressions and, rarely, a metadata.name field
// requirement or an empty term.
func Affinity() *rapid.Generator[*selector.NodeSelector] {
	return rapid.Custom(func(t *rapid.T) *selector.NodeSelector {
		if rapid.IntRange(0, 3).Draw(t, "hasAffinity") > 0 {
			return nil
		}
		ns := &selector.NodeSelector{}
		for range rapid.IntRange(0, 2).Draw(t, "terms") {
			var term selector.NodeSelectorTerm
			for range rapid.IntRange(0, 2).Draw(t, "exprs") {
				term.MatchExpressions = append(term.MatchExpressions, drawRequirement(t))
			}
			if rapid.IntRange(0, 4).Draw(t, "hasField") == 0 {
				op := rapid.SampledFrom([]selector.Operator{selector.In, selector.NotIn}).Draw(t, "fieldOp")
				term.MatchFields = append(term.MatchFields, selector.NodeSelectorRequirement{
					Key: selector.NodeNameField, Operator: op, Values: []string{NodeName(rapid.IntRange(0, universe-1).Draw(t, "fieldNode"))},
				})
			}
			ns.Terms = append(ns.Terms, term)
		}
		return ns
	})
}

// DaemonSet generates a valid DaemonSet "ns/ds" (UID "ds-uid") selecting
// app=ds: node selector, affinity, tolerations, strategy (surge on or off),
// minReadySeconds, template generation, and rarely a template nodeName or
// a deletion timestamp.
func DaemonSet() *rapid.Generator[*api.DaemonSet] {
	return rapid.Custom(func(t *rapid.T) *api.DaemonSet {
		gen := rapid.Int64Range(1, 3).Draw(t, "generation")
		ds := &api.DaemonSet{
			Namespace:  "ns",
			Name:       "ds",
			UID:        "ds-uid",
			Generation: gen,
			Deleting:   rapid.IntRange(0, 9).Draw(t, "deleting") == 0,
			Selector:   &selector.LabelSelector{MatchLabels: map[string]string{"app": "ds"}},
			Template: api.PodTemplate{
				Labels:               map[string]string{"app": "ds", "tier": "web"},
				RequiredNodeAffinity: Affinity().Draw(t, "affinity"),
				HostNetwork:          rapid.Bool().Draw(t, "hostNetwork"),
			},
			MinReadySeconds: rapid.SampledFrom([]int32{0, 10}).Draw(t, "minReady"),
			Status:          api.Status{ObservedGeneration: rapid.Int64Range(0, gen).Draw(t, "observedGeneration")},
		}
		if rapid.Bool().Draw(t, "hasTemplateGeneration") {
			ds.Annotations = map[string]string{api.AnnotationTemplateGeneration: fmt.Sprint(gen)}
		}
		if rapid.Bool().Draw(t, "selectTier") {
			ds.Selector.MatchExpressions = []selector.LabelSelectorRequirement{{Key: "tier", Operator: selector.In, Values: []string{"web", "db"}}}
		}
		for range rapid.SampledFrom([]int{0, 0, 0, 0, 1, 2}).Draw(t, "nodeSelectorKeys") {
			if ds.Template.NodeSelector == nil {
				ds.Template.NodeSelector = map[string]string{}
			}
			ds.Template.NodeSelector[rapid.SampledFrom(labelKeys).Draw(t, "nsKey")] = rapid.SampledFrom(nodeValues).Draw(t, "nsValue")
		}
		if rapid.IntRange(0, 19).Draw(t, "hasNodeName") == 0 {
			ds.Template.NodeName = NodeName(rapid.IntRange(0, universe).Draw(t, "nodeName"))
		}
		for _, tol := range tolerationPool {
			if rapid.IntRange(0, 3).Draw(t, "toleration") == 0 {
				ds.Template.Tolerations = append(ds.Template.Tolerations, tol)
			}
		}
		if rapid.IntRange(0, 3).Draw(t, "onDelete") == 0 {
			ds.UpdateStrategy = api.UpdateStrategy{Type: api.OnDelete}
		} else {
			ds.UpdateStrategy = api.UpdateStrategy{Type: api.RollingUpdate, RollingUpdate: &api.RollingUpdateParams{
				MaxUnavailable: api.Int(1),
				MaxSurge:       rapid.SampledFrom(budgetPool).Draw(t, "maxSurge"),
			}}
		}
		return ds
	})
}

// Pod generates pod i: in the DaemonSet's namespace or not; owned by the
// DaemonSet, by another owner, or orphaned; matching the selector or not;
// bound, pinned by affinity or without target, mostly to one of nodes and
// otherwise to any node of the universe (present or not); any phase, ready
// or not, being deleted or not; with a current, old or no hash label.
func Pod(i int, hash string, nodes []string) *rapid.Generator[api.Pod] {
	return rapid.Custom(func(t *rapid.T) api.Pod {
		p := api.Pod{
			Namespace: "ns",
			Name:      fmt.Sprintf("pod-%02d", i),
			UID:       fmt.Sprintf("uid-%02d", i),
			Labels:    map[string]string{"app": "ds", "tier": "web"},
			Controller: &api.OwnerRef{
				Kind: "DaemonSet", Name: "ds", UID: "ds-uid",
			},
			Phase:   rapid.SampledFrom([]api.PodPhase{api.PodRunning, api.PodRunning, api.PodPending, api.PodFailed, api.PodSucceeded, api.PodUnknown, ""}).Draw(t, "phase"),
			Created: Epoch.Add(-time.Duration(rapid.IntRange(1, 4).Draw(t, "age")) * time.Minute),
		}
		if rapid.IntRange(0, 9).Draw(t, "otherNamespace") == 0 {
			p.Namespace = "other"
		}
		switch rapid.IntRange(0, 9).Draw(t, "owner") {
		case 0:
			p.Controller = nil
		case 1:
			p.Controller = &api.OwnerRef{Kind: "DaemonSet", Name: "other", UID: "other-uid"}
		}
		switch rapid.IntRange(0, 9).Draw(t, "labels") {
		case 0:
			p.Labels["app"] = "other"
		case 1:
			p.Labels["tier"] = "cache"
		}
		switch rapid.IntRange(0, 2).Draw(t, "hash") {
		case 0:
			p.Labels[api.LabelRevisionHash] = hash
		case 1:
			p.Labels[api.LabelRevisionHash] = "old"
		}
		if rapid.IntRange(0, 3).Draw(t, "hasGeneration") == 0 {
			p.Labels[api.LabelTemplateGeneration] = fmt.Sprint(rapid.IntRange(1, 3).Draw(t, "podGeneration"))
		}
		node := NodeName(rapid.IntRange(0, universe-1).Draw(t, "target"))
		if len(nodes) > 0 && rapid.IntRange(0, 4).Draw(t, "targetPresent") > 0 {
			node = rapid.SampledFrom(nodes).Draw(t, "presentTarget")
		}
		switch rapid.IntRange(0, 14).Draw(t, "binding") {
		case 0, 1, 2:
			p.RequiredNodeAffinity = placement.PodNodeAffinity(node)
		case 3:
			// no target node
		case 4:
			p.RequiredNodeAffinity = &selector.NodeSelector{Terms: []selector.NodeSelectorTerm{{
				MatchFields: []selector.NodeSelectorRequirement{{Key: selector.NodeNameField, Operator: selector.In, Values: []string{node, "node-x"}}},
			}}}
		default:
			p.NodeName = node
		}
		if rapid.Bool().Draw(t, "ready") {
			p.Ready = true
			p.ReadySince = Epoch.Add(-time.Duration(rapid.SampledFrom([]int{0, 5, 10, 30}).Draw(t, "readyFor")) * time.Second)
		}
		p.Deleting = rapid.IntRange(0, 5).Draw(t, "deleting") == 0
		return p
	})
}

// Snapshots generates coherent snapshots: a DaemonSet, up to eight of the
// ten universe nodes (at most two in a third of them), up to fourteen pods, a clock near Epoch, a hash and
// sometimes failed-pod backoff windows.
func Snapshots() *rapid.Generator[Snapshot] {
	return rapid.Custom(func(t *rapid.T) Snapshot {
		s := Snapshot{
			DaemonSet: DaemonSet().Draw(t, "ds"),
			Now:       Epoch,
			Hash:      rapid.SampledFrom([]string{"h1", "h1", "h1", ""}).Draw(t, "hash"),
		}
		// A third of the snapshots are crowded: at most two nodes, so that
		// pods pile up on them (duplicates, surge pairs, failed pods).
		maxNodes := 8
		if rapid.IntRange(0, 2).Draw(t, "crowded") == 0 {
			maxNodes = 2
		}
		present := rapid.SliceOfNDistinct(rapid.IntRange(0, universe-1), 0, maxNodes, rapid.ID[int]).Draw(t, "nodes")
		var names []string
		for _, i := range present {
			s.Nodes = append(s.Nodes, Node(i).Draw(t, "node"))
			names = append(names, NodeName(i))
		}
		for i := range rapid.IntRange(0, 14).Draw(t, "pods") {
			s.Pods = append(s.Pods, Pod(i, s.Hash, names).Draw(t, "pod"))
		}
		for range rapid.IntRange(0, min(2, len(present))).Draw(t, "backoffs") {
			key := placement.BackoffKey{
				DaemonSetUID:       "ds-uid",
				ObservedGeneration: s.DaemonSet.Status.ObservedGeneration,
				Node:               NodeName(rapid.SampledFrom(present).Draw(t, "backoffNode")),
			}
			if s.Backoff == nil {
				s.Backoff = placement.Backoff{}
			}
			s.Backoff[key] = placement.BackoffEntry{
				Delay:      rapid.SampledFrom([]time.Duration{time.Second, 2 * time.Second, 4 * time.Second}).Draw(t, "delay"),
				LastUpdate: Epoch.Add(-rapid.SampledFrom([]time.Duration{0, time.Second, 3 * time.Second, 31 * time.Minute}).Draw(t, "since")),
			}
		}
		return s
	})
}

// CrowdedSnapshots generates snapshots that exercise one node's pods: one
// or two plain nodes that the DaemonSet should run on (and sometimes an
// empty node with an untolerated NoSchedule taint), up to eight of its
// own pods on them (new and old, ready for various times, some failed or
// terminating), surge on or off, minReadySeconds 0 or 10.
func CrowdedSnapshots() *rapid.Generator[Snapshot] {
	return rapid.Custom(func(t *rapid.T) Snapshot {
		s := Snapshot{
			DaemonSet: &api.DaemonSet{
				Namespace: "ns", Name: "ds", UID: "ds-uid", Generation: 1,
				Selector:        &selector.LabelSelector{MatchLabels: map[string]string{"app": "ds"}},
				Template:        api.PodTemplate{Labels: map[string]string{"app": "ds"}},
				MinReadySeconds: rapid.SampledFrom([]int32{0, 10}).Draw(t, "minReady"),
				UpdateStrategy: api.UpdateStrategy{Type: api.RollingUpdate, RollingUpdate: &api.RollingUpdateParams{
					MaxUnavailable: api.Int(0), MaxSurge: rapid.SampledFrom([]*api.IntOrPercent{api.Int(0), api.Int(1)}).Draw(t, "maxSurge"),
				}},
			},
			Now:  Epoch,
			Hash: "h1",
		}
		names := []string{NodeName(0), NodeName(1)}[:rapid.IntRange(1, 2).Draw(t, "nodes")]
		for _, n := range names {
			s.Nodes = append(s.Nodes, api.Node{Name: n})
		}
		if rapid.Bool().Draw(t, "cordoned") {
			// An empty node whose pods could stay but get no new one.
			s.Nodes = append(s.Nodes, api.Node{Name: NodeName(2), Taints: []taints.Taint{taintPool[0]}})
		}
		for i := range rapid.IntRange(0, 8).Draw(t, "pods") {
			p := api.Pod{
				Namespace:  "ns",
				Name:       fmt.Sprintf("pod-%02d", i),
				Labels:     map[string]string{"app": "ds", api.LabelRevisionHash: rapid.SampledFrom([]string{"h1", "old"}).Draw(t, "hash")},
				Controller: &api.OwnerRef{Kind: "DaemonSet", Name: "ds", UID: "ds-uid"},
				NodeName:   rapid.SampledFrom(names).Draw(t, "node"),
				Phase:      rapid.SampledFrom([]api.PodPhase{api.PodRunning, api.PodRunning, api.PodRunning, api.PodPending, api.PodFailed}).Draw(t, "phase"),
				Created:    Epoch.Add(-time.Duration(rapid.IntRange(1, 3).Draw(t, "age")) * time.Minute),
				Deleting:   rapid.IntRange(0, 7).Draw(t, "deleting") == 0,
			}
			if rapid.IntRange(0, 2).Draw(t, "ready") > 0 {
				p.Ready = true
				p.ReadySince = Epoch.Add(-time.Duration(rapid.SampledFrom([]int{0, 9, 10, 30}).Draw(t, "readyFor")) * time.Second)
			}
			if rapid.IntRange(0, 5).Draw(t, "unbound") == 0 {
				p.RequiredNodeAffinity = placement.PodNodeAffinity(p.NodeName)
				p.NodeName = ""
			}
			s.Pods = append(s.Pods, p)
		}
		return s
	})
}

// Clone returns a deep copy of s.
func (s Snapshot) Clone() Snapshot {
	c := s
	c.DaemonSet = s.DaemonSet.DeepCopy()
	c.Nodes = nil
	for _, n := range s.Nodes {
		c.Nodes = append(c.Nodes, n.DeepCopy())
	}
	c.Pods = nil
	for _, p := range s.Pods {
		c.Pods = append(c.Pods, p.DeepCopy())
	}
	c.Backoff = maps.Clone(s.Backoff)
	return c
}
