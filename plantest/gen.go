package plantest

import (
	"slices"
	"strconv"
	"strings"

	"fmt"
	"time"

	"github.com/daemonplan/daemonplan/internal/testsupport/reference"

	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/revision"
)

// Epoch is the instant generated snapshots are built around: a [Snapshot]'s
// Now, and the reference for pod ages, readiness and backoff windows.
var Epoch = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// The names generated objects carry. They are fixed so that failures read
// the same from one run to the next.
const (
	// Namespace, Name and UID identify the generated DaemonSet.
	Namespace = "ns"
	Name      = "ds"
	UID       = "ds-uid"
	// OtherNamespace holds the pods and revisions of Options.Orphans that
	// live outside the DaemonSet's namespace.
	OtherNamespace = "other"
)

// Options are the knobs of the generators. The zero value generates small,
// tidy snapshots: up to 8 nodes with labels and taints from the default
// pools, up to 14 pods, all of them the DaemonSet's own, Pending or
// Running, of the current revision, on nodes of the snapshot; the history
// holds at most the current revision. Each switch adds one kind of
// trouble.
type Options struct {
	// MaxNodes bounds the number of nodes; 0 means 8. Nodes are drawn from
	// a universe of MaxNodes+2 names, NodeName(0) to NodeName(MaxNodes+1),
	// so that with Orphans some pods target a node that is not in the
	// snapshot. A third of the snapshots hold at most two nodes, so that pods
	// pile up on them.
	MaxNodes int
	// MaxPods bounds the number of pods; 0 means 14.
	MaxPods int
	// Labels is the pool node labels, node selectors and node affinity
	// draw from. nil means the default pool: keys zone, disk and gpu, each
	// with values a, b and c. An empty, non-nil pool gives nodes no labels
	// and the DaemonSet no node selector or affinity.
	Labels []Label
	// Taints is the pool node taints draw from; nil means the default pool
	// (dedicated=infra with NoSchedule and NoExecute, gpu:NoExecute,
	// soft:PreferNoSchedule, and the not-ready, unreachable,
	// unschedulable, disk-pressure and network-unavailable taints the
	// controller's default tolerations deal with). Empty means no taints.
	Taints []api.Taint
	// Tolerations is the pool the DaemonSet's template draws from; nil
	// means the default pool, which tolerates some of the default taints
	// and not others. Empty means no tolerations.
	Tolerations []api.Toleration
	// Rollout puts an update in progress: the history holds up to three
	// old revisions (sometimes numbered above the current one, as after a
	// rollback), and pods carry their hashes, no hash, or a stale
	// template-generation label.
	Rollout bool
	// Failed adds pods in phase Failed, Succeeded, Unknown or with no
	// phase, and failed-pod backoff windows in Input.Backoff.
	Failed bool
	// Terminating adds pods being deleted and, in one snapshot in ten, a
	// DaemonSet being deleted.
	Terminating bool
	// Orphans adds what the DaemonSet may not own or cannot place: orphan
	// pods and revisions, pods and revisions of another controller or in
	// another namespace, pods whose labels the selector does not match,
	// pods without a target node or bound to a node that is gone, a
	// legacy revision without hash label, a duplicate of the current
	// revision, and (rarely) a revision whose name collides with the
	// current one's.
	Orphans bool
}

// Label is one key of a label pool and the values it takes. Nodes carry
// the first value more often than the others, so that selectors asking
// for it match often.
type Label struct {
	Key    string
	Values []string
}

var (
	defaultLabels = []Label{
		{Key: "zone", Values: []string{"a", "b", "c"}},
		{Key: "disk", Values: []string{"a", "b", "c"}},
		{Key: "gpu", Values: []string{"a", "b", "c"}},
	}
	defaultTaints = []api.Taint{
		{Key: "dedicated", Value: "infra", Effect: api.TaintEffectNoSchedule},
		{Key: "dedicated", Value: "infra", Effect: api.TaintEffectNoExecute},
		{Key: "gpu", Effect: api.TaintEffectNoExecute},
		{Key: "soft", Effect: api.TaintEffectPreferNoSchedule},
		{Key: api.TaintNodeNotReady, Effect: api.TaintEffectNoExecute},
		{Key: api.TaintNodeNotReady, Effect: api.TaintEffectNoSchedule},
		{Key: api.TaintNodeUnreachable, Effect: api.TaintEffectNoSchedule},
		{Key: api.TaintNodeUnschedulable, Effect: api.TaintEffectNoSchedule},
		{Key: api.TaintNodeDiskPressure, Effect: api.TaintEffectNoSchedule},
		{Key: api.TaintNodeNetworkUnavailable, Effect: api.TaintEffectNoSchedule},
	}
	defaultTolerations = []api.Toleration{
		{Key: "dedicated", Operator: api.TolerationOpEqual, Value: "infra", Effect: api.TaintEffectNoSchedule},
		{Key: "dedicated", Operator: api.TolerationOpExists},
		{Key: "gpu", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute},
		{Key: api.TaintNodeNotReady, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
		{Key: api.TaintNodeUnreachable, Operator: api.TolerationOpExists},
		{Key: "", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
		{Key: "dedicated", Operator: api.TolerationOpEqual, Value: "other", Effect: api.TaintEffectNoExecute},
	}
	unavailablePool = []*api.IntOrPercent{api.Int(0), api.Int(1), api.Int(1), api.Int(2), api.Percent("50%")}
	surgePool       = []*api.IntOrPercent{nil, api.Int(0), api.Int(1), api.Int(1), api.Int(2), api.Percent("0%"), api.Percent("50%"), api.Percent("50%")}
)

func (o Options) maxNodes() int {
	if o.MaxNodes > 0 {
		return o.MaxNodes
	}
	return 8
}

func (o Options) maxPods() int {
	if o.MaxPods > 0 {
		return o.MaxPods
	}
	return 14
}

func (o Options) universe() int { return o.maxNodes() + 2 }

func (o Options) labels() []Label {
	if o.Labels == nil {
		return defaultLabels
	}
	return o.Labels
}

func (o Options) taints() []api.Taint {
	if o.Taints == nil {
		return defaultTaints
	}
	return o.Taints
}

func (o Options) tolerations() []api.Toleration {
	if o.Tolerations == nil {
		return defaultTolerations
	}
	return o.Tolerations
}

// NodeName is the name of node i of the generated universe: "node-<i>".
func NodeName(i int) string { return fmt.Sprintf("node-%d", i) }

// labelValue draws a value of l, its first one half of the time.
func labelValue(t *rapid.T, l Label, name string) string {
	if len(l.Values) == 0 {
		return ""
	}
	if rapid.Bool().Draw(t, name+"-first") {
		return l.Values[0]
	}
	return rapid.SampledFrom(l.Values).Draw(t, name)
}

// Node generates node i of the universe (named NodeName(i)): each label
// of the pool in two cases out of three; a third of the nodes are
// tainted, each with every taint of the pool in one case out of six.
func Node(opts Options, i int) *rapid.Generator[api.Node] {
	return rapid.Custom(func(t *rapid.T) api.Node {
		n := api.Node{Name: NodeName(i), Labels: map[string]string{}}
		for _, l := range opts.labels() {
			if rapid.IntRange(0, 2).Draw(t, "has-"+l.Key) > 0 {
				n.Labels[l.Key] = labelValue(t, l, l.Key)
			}
		}
		if rapid.IntRange(0, 2).Draw(t, "tainted") == 0 {
			for _, taint := range opts.taints() {
				if rapid.IntRange(0, 5).Draw(t, "taint") == 0 {
					n.Taints = append(n.Taints, taint)
				}
			}
		}
		return n
	})
}

func drawRequirement(t *rapid.T, opts Options) api.NodeSelectorRequirement {
	l := rapid.SampledFrom(opts.labels()).Draw(t, "key")
	op := rapid.SampledFrom([]api.SelectorOperator{api.SelectorOpIn, api.SelectorOpNotIn, api.SelectorOpExists, api.SelectorOpDoesNotExist}).Draw(t, "op")
	r := api.NodeSelectorRequirement{Key: l.Key, Operator: op}
	if (op == api.SelectorOpIn || op == api.SelectorOpNotIn) && len(l.Values) > 0 {
		r.Values = rapid.SliceOfNDistinct(rapid.SampledFrom(l.Values), 1, 2, rapid.ID[string]).Draw(t, "values")
	}
	if (op == api.SelectorOpIn || op == api.SelectorOpNotIn) && len(r.Values) == 0 {
		r.Operator = api.SelectorOpExists
	}
	return r
}

// affinity draws a required node affinity: nil three times in four, else
// one or two terms of label expressions and, rarely, a metadata.name field
// requirement or an empty term.
func affinity(t *rapid.T, opts Options) *api.NodeSelector {
	if len(opts.labels()) == 0 || rapid.IntRange(0, 3).Draw(t, "hasAffinity") > 0 {
		return nil
	}
	ns := &api.NodeSelector{}
	for range rapid.IntRange(0, 2).Draw(t, "terms") {
		var term api.NodeSelectorTerm
		for range rapid.IntRange(0, 2).Draw(t, "exprs") {
			term.MatchExpressions = append(term.MatchExpressions, drawRequirement(t, opts))
		}
		if rapid.IntRange(0, 4).Draw(t, "hasField") == 0 {
			op := rapid.SampledFrom([]api.SelectorOperator{api.SelectorOpIn, api.SelectorOpNotIn}).Draw(t, "fieldOp")
			node := NodeName(rapid.IntRange(0, opts.universe()-1).Draw(t, "fieldNode"))
			term.MatchFields = append(term.MatchFields, api.NodeSelectorRequirement{Key: api.NodeNameField, Operator: op, Values: []string{node}})
		}
		ns.Terms = append(ns.Terms, term)
	}
	return ns
}

// DaemonSet generates a DaemonSet Namespace/Name with UID UID, selecting
// app=ds (and sometimes tier in {web, db}) with template labels app=ds and
// tier=web. It draws a node selector and a required node affinity from the
// label pool, tolerations from the toleration pool, rarely a template
// nodeName, hostNetwork, minReadySeconds 0 or 10, a generation of 1 to 3
// with the template-generation annotation half of the time, an observed
// generation up to it, a revision history limit, and an update strategy:
// OnDelete in one case out of four, else RollingUpdate with maxUnavailable
// from {0, 1, 2, 50%} and maxSurge from {nil, 0, 1, 2, 0%, 50%}. Budgets
// are drawn independently, so some strategies are ones validation rejects
// (both budgets set, or both zero), which the planner still plans. With
// [Options.Terminating] one DaemonSet in ten is being deleted.
func DaemonSet(opts Options) *rapid.Generator[*api.DaemonSet] {
	return rapid.Custom(func(t *rapid.T) *api.DaemonSet {
		gen := rapid.Int64Range(1, 3).Draw(t, "generation")
		ds := &api.DaemonSet{
			Namespace:  Namespace,
			Name:       Name,
			UID:        UID,
			Generation: gen,
			Selector:   &api.LabelSelector{MatchLabels: map[string]string{"app": "ds"}},
			Template: api.PodTemplate{
				Labels:               map[string]string{"app": "ds", "tier": "web"},
				RequiredNodeAffinity: affinity(t, opts),
				HostNetwork:          rapid.Bool().Draw(t, "hostNetwork"),
			},
			MinReadySeconds: rapid.SampledFrom([]int32{0, 10}).Draw(t, "minReady"),
			Status:          api.Status{ObservedGeneration: rapid.Int64Range(0, gen).Draw(t, "observedGeneration")},
		}
		if opts.Terminating {
			ds.Deleting = rapid.IntRange(0, 9).Draw(t, "deleting") == 0
		}
		if rapid.Bool().Draw(t, "hasTemplateGeneration") {
			ds.Annotations = map[string]string{api.AnnotationTemplateGeneration: fmt.Sprint(gen)}
		}
		if rapid.Bool().Draw(t, "selectTier") {
			ds.Selector.MatchExpressions = []api.LabelSelectorRequirement{{Key: "tier", Operator: api.SelectorOpIn, Values: []string{"web", "db"}}}
		}
		if pool := opts.labels(); len(pool) > 0 {
			for range rapid.SampledFrom([]int{0, 0, 0, 0, 1, 2}).Draw(t, "nodeSelectorKeys") {
				if ds.Template.NodeSelector == nil {
					ds.Template.NodeSelector = map[string]string{}
				}
				l := rapid.SampledFrom(pool).Draw(t, "nsKey")
				ds.Template.NodeSelector[l.Key] = labelValue(t, l, "nsValue")
			}
		}
		if rapid.IntRange(0, 19).Draw(t, "hasNodeName") == 0 {
			ds.Template.NodeName = NodeName(rapid.IntRange(0, opts.universe()-1).Draw(t, "nodeName"))
		}
		for _, tol := range opts.tolerations() {
			if rapid.IntRange(0, 3).Draw(t, "toleration") == 0 {
				ds.Template.Tolerations = append(ds.Template.Tolerations, tol)
			}
		}
		if rapid.IntRange(0, 3).Draw(t, "onDelete") == 0 {
			ds.UpdateStrategy = api.UpdateStrategy{Type: api.OnDelete}
		} else {
			ds.UpdateStrategy = api.UpdateStrategy{Type: api.RollingUpdate, RollingUpdate: &api.RollingUpdateParams{
				MaxUnavailable: rapid.SampledFrom(unavailablePool).Draw(t, "maxUnavailable"),
				MaxSurge:       rapid.SampledFrom(surgePool).Draw(t, "maxSurge"),
			}}
		}
		switch rapid.IntRange(0, 3).Draw(t, "historyLimit") {
		case 0:
			ds.RevisionHistoryLimit = new(int32)
		case 1:
			one := int32(1)
			ds.RevisionHistoryLimit = &one
		}
		if rapid.IntRange(0, 5).Draw(t, "collided") == 0 {
			one := int32(1)
			ds.Status.CollisionCount = &one
		}
		return ds
	})
}

// Pod generates pod i of ds, named "pod-<ii>" with UID "uid-<ii>", on one
// of nodes (at random, so that a node may hold several pods). hashes are
// the revision hashes in use: hashes[0] is the current revision's, the
// others old ones; without [Options.Rollout] the pod carries hashes[0] and
// the DaemonSet's template generation, with it hashes[0] half of the time
// and otherwise any of hashes or none, and sometimes a template-generation
// label of 1 to 3. Pods are Pending or Running, Ready
// (since 0 to 30 seconds before [Epoch]) three times in four, created one to
// four minutes before Epoch, bound to their node or, one time in five,
// pinned to it by node affinity only. The knobs add the other cases (see
// [Options]). With no node and no Orphans, the pod targets NodeName(0).
func Pod(opts Options, ds *api.DaemonSet, i int, nodes []string, hashes []string) *rapid.Generator[api.Pod] {
	return rapid.Custom(func(t *rapid.T) api.Pod {
		p := api.Pod{
			Namespace:  ds.Namespace,
			Name:       fmt.Sprintf("pod-%02d", i),
			UID:        fmt.Sprintf("uid-%02d", i),
			Labels:     map[string]string{},
			Controller: &api.OwnerRef{Kind: "DaemonSet", Name: ds.Name, UID: ds.UID},
			Phase:      rapid.SampledFrom([]api.PodPhase{api.PodRunning, api.PodRunning, api.PodPending}).Draw(t, "phase"),
			Created:    Epoch.Add(-time.Duration(rapid.IntRange(1, 4).Draw(t, "age")) * time.Minute),
		}
		for k, v := range ds.Template.Labels {
			p.Labels[k] = v
		}
		gen := api.TemplateGeneration(ds)
		if opts.Rollout {
			h := ""
			if len(hashes) > 0 && rapid.Bool().Draw(t, "upToDate") {
				h = hashes[0]
			} else {
				h = rapid.SampledFrom(append([]string{""}, hashes...)).Draw(t, "hash")
			}
			if h != "" {
				p.Labels[api.LabelRevisionHash] = h
			}
			if rapid.IntRange(0, 3).Draw(t, "hasGeneration") == 0 {
				p.Labels[api.LabelTemplateGeneration] = fmt.Sprint(rapid.IntRange(1, 3).Draw(t, "podGeneration"))
			}
		} else {
			if len(hashes) > 0 && hashes[0] != "" {
				p.Labels[api.LabelRevisionHash] = hashes[0]
			}
			if gen != nil {
				p.Labels[api.LabelTemplateGeneration] = fmt.Sprint(*gen)
			}
		}
		if opts.Failed {
			p.Phase = rapid.SampledFrom([]api.PodPhase{api.PodRunning, api.PodRunning, api.PodPending, api.PodFailed, api.PodSucceeded, api.PodUnknown, ""}).Draw(t, "failedPhase")
		}
		if opts.Terminating {
			p.Deleting = rapid.IntRange(0, 5).Draw(t, "deleting") == 0
		}
		if rapid.IntRange(0, 3).Draw(t, "ready") > 0 {
			p.Ready = true
			p.ReadySince = Epoch.Add(-time.Duration(rapid.SampledFrom([]int{0, 5, 10, 30}).Draw(t, "readyFor")) * time.Second)
		}

		node := NodeName(0)
		if len(nodes) > 0 {
			node = rapid.SampledFrom(nodes).Draw(t, "node")
		}
		binding := rapid.IntRange(0, 4).Draw(t, "binding")
		if opts.Orphans {
			if len(nodes) == 0 || rapid.IntRange(0, 4).Draw(t, "targetGone") == 0 {
				node = NodeName(rapid.IntRange(0, opts.universe()-1).Draw(t, "anyNode"))
			}
			if p.Namespace == ds.Namespace && rapid.IntRange(0, 9).Draw(t, "otherNamespace") == 0 {
				p.Namespace = OtherNamespace
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
			binding = rapid.IntRange(0, 14).Draw(t, "strayBinding")
		}
		switch binding {
		case 0:
			p.RequiredNodeAffinity = placement.PodNodeAffinity(node)
		case 1:
			// No target node: the planner ignores the pod.
		case 2:
			// Two candidate nodes: no target either.
			p.RequiredNodeAffinity = &api.NodeSelector{Terms: []api.NodeSelectorTerm{{
				MatchFields: []api.NodeSelectorRequirement{{Key: api.NodeNameField, Operator: api.SelectorOpIn, Values: []string{node, "node-x"}}},
			}}}
		default:
			p.NodeName = node
		}
		if !opts.Orphans && binding != 0 {
			p.RequiredNodeAffinity, p.NodeName = nil, node
		}
		return p
	})
}

// revisionOf returns the revision of ds's template numbered n: named
// "<ds>-<hash>", labelled with the template labels and the hash, owned by
// ds.
func revisionOf(ds *api.DaemonSet, hash string, n int64) revision.Revision {
	labels := map[string]string{api.LabelRevisionHash: hash}
	for k, v := range ds.Template.Labels {
		labels[k] = v
	}
	return revision.Revision{
		Namespace:  ds.Namespace,
		Name:       ds.Name + "-" + hash,
		Labels:     labels,
		Controller: &api.OwnerRef{Kind: "DaemonSet", Name: ds.Name, UID: ds.UID},
		Revision:   n,
		Data:       revision.TemplateData(ds),
	}
}

// oldTemplate returns a copy of ds whose template is an older version k:
// it differs from the current one by a template annotation.
func oldTemplate(ds *api.DaemonSet, k int) *api.DaemonSet {
	old := ds.DeepCopy()
	old.TemplateData = nil
	if old.Template.Annotations == nil {
		old.Template.Annotations = map[string]string{}
	}
	old.Template.Annotations["plantest/version"] = fmt.Sprint(k)
	return old
}

// CurrentHash is the hash a sync of ds with a well-formed history labels
// new pods with: [revision.DefaultHash] of ds with its collision count. It
// is the hash of the current revision the generators create ([Revisions],
// [Snapshots]).
func CurrentHash(ds *api.DaemonSet) string {
	return revision.DefaultHash(ds, ds.Status.CollisionCount)
}

// Revisions generates the ControllerRevisions of ds's namespace: the
// current revision (named and labelled with [CurrentHash]) in two cases out
// of three; with [Options.Rollout] up to three old revisions of older
// templates, numbered 1 to 3, the current one numbered after them or, one
// time in four, first (as after a rollback); with [Options.Orphans], each in
// one case out of six, an orphan old revision, one of another controller,
// one in another namespace, a legacy revision without hash label, a
// duplicate of the current revision with a lower number; and, one time in
// ten when no current revision is drawn, a revision that holds an old
// template under the current revision's name (a name collision: Sync then
// fails to construct the history).
func Revisions(opts Options, ds *api.DaemonSet) *rapid.Generator[[]revision.Revision] {
	return rapid.Custom(func(t *rapid.T) []revision.Revision {
		var revs []revision.Revision
		olds := 0
		if opts.Rollout {
			olds = rapid.IntRange(0, 3).Draw(t, "oldRevisions")
		}
		for k := 1; k <= olds; k++ {
			old := oldTemplate(ds, k)
			revs = append(revs, revisionOf(old, revision.DefaultHash(old, nil), int64(k)))
		}
		hash := CurrentHash(ds)
		current := rapid.IntRange(0, 2).Draw(t, "hasCurrent") > 0
		if current {
			n := int64(olds + 1)
			if olds > 0 && rapid.IntRange(0, 3).Draw(t, "rolledBack") == 0 {
				n = 1
			}
			revs = append(revs, revisionOf(ds, hash, n))
		}
		if !opts.Orphans {
			return revs
		}
		kind := func(name string) bool { return rapid.IntRange(0, 5).Draw(t, name) == 0 }
		stray := func(k int) revision.Revision {
			old := oldTemplate(ds, k)
			return revisionOf(old, revision.DefaultHash(old, nil), int64(k))
		}
		if kind("orphanRevision") {
			r := stray(7)
			r.Controller = nil
			revs = append(revs, r)
		}
		if kind("foreignRevision") {
			r := stray(8)
			r.Controller = &api.OwnerRef{Kind: "DaemonSet", Name: "other", UID: "other-uid"}
			revs = append(revs, r)
		}
		if kind("otherNamespaceRevision") {
			r := stray(9)
			r.Namespace = OtherNamespace
			revs = append(revs, r)
		}
		if kind("legacyRevision") {
			r := stray(6)
			r.Name = ds.Name + "-legacy"
			delete(r.Labels, api.LabelRevisionHash)
			revs = append(revs, r)
		}
		if current && kind("duplicateRevision") {
			r := revisionOf(ds, "dup", 0)
			revs = append(revs, r)
		}
		if !current && rapid.IntRange(0, 9).Draw(t, "collision") == 0 {
			r := stray(5)
			r.Name = ds.Name + "-" + hash
			revs = append(revs, r)
		}
		return revs
	})
}

// Snapshot is one generated snapshot of a cluster: the input of one sync,
// and the hash that pods of the current template carry. (A cluster that
// syncs, changes and syncs again is a
// [github.com/daemonplan/daemonplan/sim.Cluster].)
type Snapshot struct {
	daemonplan.Input
	// Hash is CurrentHash(DaemonSet): the hash Sync computes when the
	// history is well formed, and the one to pass to lower-level planners
	// such as placement.Index.Manage.
	Hash string
}

// Snapshots generates coherent snapshots: a DaemonSet ([DaemonSet]), up to
// MaxNodes distinct nodes of the universe ([Node]), its revisions
// ([Revisions]), up to MaxPods pods ([Pod]) labelled with the revisions'
// hashes (in half of the snapshots one per node plus up to two more, in
// the others spread at random), Now at [Epoch], and with [Options.Failed] up to
// two failed-pod backoff windows. ExpectationsPending is false: set it yourself
// to test that path.
func Snapshots(opts Options) *rapid.Generator[Snapshot] {
	return rapid.Custom(func(t *rapid.T) Snapshot {
		ds := DaemonSet(opts).Draw(t, "ds")
		c := Snapshot{Input: daemonplan.Input{DaemonSet: ds, Now: Epoch}, Hash: CurrentHash(ds)}
		c.Revisions = Revisions(opts, ds).Draw(t, "revisions")
		hashes := []string{c.Hash}
		for _, r := range c.Revisions {
			if h := r.Labels[api.LabelRevisionHash]; h != "" && h != c.Hash {
				hashes = append(hashes, h)
			}
		}
		if opts.Rollout {
			hashes = append(hashes, "gone")
		}

		maxNodes := opts.maxNodes()
		if rapid.IntRange(0, 2).Draw(t, "crowded") == 0 {
			maxNodes = min(maxNodes, 2)
		}
		present := rapid.SliceOfNDistinct(rapid.IntRange(0, opts.universe()-1), 0, maxNodes, rapid.ID[int]).Draw(t, "nodes")
		var names []string
		for _, i := range present {
			c.Nodes = append(c.Nodes, Node(opts, i).Draw(t, "node"))
			names = append(names, NodeName(i))
		}
		switch {
		case len(names) > 0 && rapid.Bool().Draw(t, "spread"):
			// One pod per node, then a few more at random: the shape of
			// a snapshot mid-rollout, where the rolling update has work.
			n := min(opts.maxPods(), len(names)+rapid.SampledFrom([]int{0, 0, 1, 2}).Draw(t, "extraPods"))
			for i := range n {
				on := names
				if i < len(names) {
					on = names[i : i+1]
				}
				c.Pods = append(c.Pods, Pod(opts, ds, i, on, hashes).Draw(t, "pod"))
			}
		case len(names) > 0 || opts.Orphans:
			for i := range rapid.IntRange(0, opts.maxPods()).Draw(t, "pods") {
				c.Pods = append(c.Pods, Pod(opts, ds, i, names, hashes).Draw(t, "pod"))
			}
		}
		if opts.Failed && len(names) > 0 {
			for range rapid.IntRange(0, min(2, len(names))).Draw(t, "backoffs") {
				key := placement.BackoffKey{
					DaemonSetUID:       ds.UID,
					ObservedGeneration: ds.Status.ObservedGeneration,
					Node:               rapid.SampledFrom(names).Draw(t, "backoffNode"),
				}
				if c.Backoff == nil {
					c.Backoff = placement.Backoff{}
				}
				c.Backoff[key] = placement.BackoffEntry{
					Delay:      rapid.SampledFrom([]time.Duration{time.Second, 2 * time.Second, 4 * time.Second}).Draw(t, "delay"),
					LastUpdate: Epoch.Add(-rapid.SampledFrom([]time.Duration{0, time.Second, 3 * time.Second, 31 * time.Minute}).Draw(t, "since")),
				}
			}
		}
		return c
	})
}

// Permutation generates in with its nodes, pods and revisions in another
// order. The slices are new; their elements are shared with in.
func Permutation(in daemonplan.Input) *rapid.Generator[daemonplan.Input] {
	return rapid.Custom(func(t *rapid.T) daemonplan.Input {
		out := in
		out.Nodes = rapid.Permutation(in.Nodes).Draw(t, "nodes")
		out.Pods = rapid.Permutation(in.Pods).Draw(t, "pods")
		out.Revisions = rapid.Permutation(in.Revisions).Draw(t, "revisions")
		return out
	})
}

// String renders the snapshot on a few lines, one per object, for failure
// messages; GoString is the same, so that rapid prints drawn snapshots
// this way.
func (c Snapshot) String() string {
	var b strings.Builder
	if c.DaemonSet == nil {
		b.WriteString("no DaemonSet\n")
	} else {
		b.WriteString(reference.Render(reference.Snapshot{DaemonSet: c.DaemonSet, Nodes: c.Nodes, Pods: c.Pods, Now: c.Now, Hash: c.Hash}))
		ds := c.DaemonSet
		fmt.Fprintf(&b, "  ds generation=%d annotations=%v selector=%v strategy=%+v historyLimit=%s status=%+v\n",
			ds.Generation, ds.Annotations, ds.Selector, rollingUpdate(ds), renderCount(ds.RevisionHistoryLimit), ds.Status)
	}
	for _, r := range c.Revisions {
		fmt.Fprintf(&b, "  revision %s/%s owner=%s labels=%v number=%d data=%d bytes deleting=%v\n",
			r.Namespace, r.Name, owner(r.Controller), r.Labels, r.Revision, len(r.Data), r.Deleting)
	}
	keys := make([]placement.BackoffKey, 0, len(c.Backoff))
	for k := range c.Backoff {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b placement.BackoffKey) int { return strings.Compare(a.Node, b.Node) })
	for _, k := range keys {
		e := c.Backoff[k]
		fmt.Fprintf(&b, "  backoff %s generation=%d delay=%s since=%s\n", k.Node, k.ObservedGeneration, e.Delay, c.Now.Sub(e.LastUpdate))
	}
	if c.ExpectationsPending {
		b.WriteString("  expectations pending\n")
	}
	return b.String()
}

// GoString is String.
func (c Snapshot) GoString() string { return c.String() }

func rollingUpdate(ds *api.DaemonSet) string {
	ru := ds.UpdateStrategy.RollingUpdate
	if ru == nil {
		return string(ds.UpdateStrategy.Type)
	}
	budget := func(x *api.IntOrPercent) string {
		switch {
		case x == nil:
			return "nil"
		case x.IsString:
			return x.StrVal
		}
		return strconv.Itoa(int(x.IntVal))
	}
	return fmt.Sprintf("%s(maxUnavailable %s, maxSurge %s)", ds.UpdateStrategy.Type, budget(ru.MaxUnavailable), budget(ru.MaxSurge))
}

func owner(ref *api.OwnerRef) string {
	if ref == nil {
		return "orphan"
	}
	return "controller " + ref.UID
}
