package plantest_test

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/plantest"
	"github.com/daemonplan/daemonplan/revision"
)

// bytes hands out the fuzzer's bytes one at a time, then zeros.
type bytes struct {
	data []byte
	pos  int
}

func (b *bytes) next() byte {
	if b.pos >= len(b.data) {
		return 0
	}
	c := b.data[b.pos]
	b.pos++
	return c
}

func (b *bytes) intn(n int) int { return int(b.next()) % n }

func pick[T any](b *bytes, pool []T) T { return pool[b.intn(len(pool))] }

// Pools for the byte-driven input: well-formed and malformed values, so
// that the checkers meet what validation would reject.
var (
	fuzzLabelSets = []map[string]string{nil, {}, {"app": "ds"}, {"app": "ds", "tier": "web"}, {"app": "other"}, {"app": "ds", "bad key": "x"}}
	fuzzSelectors = []*api.LabelSelector{
		nil, {}, {MatchLabels: map[string]string{"app": "ds"}},
		{MatchLabels: map[string]string{"app": "ds"}, MatchExpressions: []api.LabelSelectorRequirement{{Key: "tier", Operator: api.SelectorOpIn, Values: []string{"web"}}}},
		{MatchExpressions: []api.LabelSelectorRequirement{{Key: "app", Operator: "bogus"}}},
	}
	fuzzNodes   = []string{"node-0", "node-1", "node-2", "node-3", ""}
	fuzzTaints  = []api.Taint{{Key: "a", Effect: api.TaintEffectNoSchedule}, {Key: "a", Effect: api.TaintEffectNoExecute}, {Key: "b", Effect: api.TaintEffectPreferNoSchedule}, {Key: api.TaintNodeNotReady, Effect: api.TaintEffectNoExecute}, {Key: "x", Effect: "Other"}}
	fuzzTols    = []api.Toleration{{Key: "a", Operator: api.TolerationOpExists}, {Key: "a", Operator: api.TolerationOpEqual, Effect: api.TaintEffectNoSchedule}, {Operator: api.TolerationOpExists}, {Key: "a", Operator: "bogus"}}
	fuzzPhases  = []api.PodPhase{"", api.PodPending, api.PodRunning, api.PodRunning, api.PodSucceeded, api.PodFailed, api.PodUnknown}
	fuzzBudgets = []*api.IntOrPercent{nil, api.Int(0), api.Int(1), api.Int(2), api.Int(-1), api.Percent("50%"), api.Percent("x%"), api.Percent("7"), api.Percent("200%")}
	fuzzTypes   = []api.StrategyType{"", api.RollingUpdate, api.RollingUpdate, api.OnDelete, "Bogus"}
	fuzzHashes  = []string{"", "current", "old", "gone"}
)

// fuzzInput decodes bytes into the input of one sync. Node, pod and
// revision names are unique: a list that names an object twice is not a
// snapshot (Sync's decisions for such nodes follow input order).
func fuzzInput(data []byte) daemonplan.Input {
	b := &bytes{data: data}
	ds := &api.DaemonSet{
		Namespace: "ns", Name: "ds", UID: "ds-uid", Generation: int64(b.intn(3)),
		Selector: pick(b, fuzzSelectors), Deleting: b.intn(10) == 0,
		Template:        api.PodTemplate{Labels: pick(b, fuzzLabelSets), NodeSelector: pick(b, []map[string]string{nil, {"zone": "a"}, {"zone": "-"}})},
		UpdateStrategy:  api.UpdateStrategy{Type: pick(b, fuzzTypes)},
		MinReadySeconds: pick(b, []int32{0, 10, -1}),
		Status:          api.Status{ObservedGeneration: int64(b.intn(3))},
	}
	if b.intn(3) == 0 {
		ds.Template.NodeName = pick(b, fuzzNodes)
	}
	for range b.intn(3) {
		ds.Template.Tolerations = append(ds.Template.Tolerations, pick(b, fuzzTols))
	}
	if b.intn(4) > 0 {
		ds.UpdateStrategy.RollingUpdate = &api.RollingUpdateParams{MaxUnavailable: pick(b, fuzzBudgets), MaxSurge: pick(b, fuzzBudgets)}
	}
	if b.intn(2) == 0 {
		ds.Annotations = map[string]string{api.AnnotationTemplateGeneration: pick(b, []string{"1", "2", "x"})}
	}
	if b.intn(4) == 0 {
		ds.Status.CollisionCount = new(int32)
	}
	ds.RevisionHistoryLimit = pick(b, []*int32{nil, new(int32), new(int32), &[]int32{1}[0]})
	hashes := map[string]string{"current": plantest.CurrentHash(ds), "old": "old", "gone": "gone"}
	in := daemonplan.Input{DaemonSet: ds, Now: plantest.Epoch.Add(time.Duration(b.intn(30)) * time.Second), ExpectationsPending: b.intn(8) == 0}
	for range b.intn(5) {
		n := api.Node{Name: pick(b, fuzzNodes), Labels: pick(b, []map[string]string{nil, {"zone": "a"}, {"zone": "b"}})}
		for range b.intn(3) {
			n.Taints = append(n.Taints, pick(b, fuzzTaints))
		}
		if !slices.ContainsFunc(in.Nodes, func(o api.Node) bool { return o.Name == n.Name }) {
			in.Nodes = append(in.Nodes, n)
		}
	}
	for i := range b.intn(10) {
		p := api.Pod{
			Namespace: pick(b, []string{"ns", "ns", "ns", "other"}), Name: fmt.Sprintf("pod-%d", i),
			Labels: map[string]string{}, Phase: pick(b, fuzzPhases), Ready: b.intn(3) > 0, Deleting: b.intn(5) == 0,
			Created: plantest.Epoch.Add(-time.Duration(b.intn(3)) * time.Minute),
		}
		for k, v := range pick(b, fuzzLabelSets) {
			p.Labels[k] = v
		}
		if h := hashes[pick(b, fuzzHashes)]; h != "" {
			p.Labels[api.LabelRevisionHash] = h
		}
		if p.Ready {
			p.ReadySince = plantest.Epoch.Add(-time.Duration(b.intn(20)) * time.Second)
		}
		switch b.intn(4) {
		case 0:
		case 1:
			p.Controller = &api.OwnerRef{UID: "other-uid"}
		default:
			p.Controller = &api.OwnerRef{UID: "ds-uid"}
		}
		if node := pick(b, fuzzNodes); b.intn(4) > 0 {
			p.NodeName = node
		} else {
			p.RequiredNodeAffinity = placement.PodNodeAffinity(node)
		}
		in.Pods = append(in.Pods, p)
	}
	old := ds.DeepCopy()
	old.Template.Annotations = map[string]string{"v": "old"}
	for i := range b.intn(4) {
		r := revision.Revision{Namespace: pick(b, []string{"ns", "ns", "other"}), Name: fmt.Sprintf("ds-r%d", i), Revision: int64(b.intn(4)),
			Labels: map[string]string{"app": "ds"}, Data: pick(b, [][]byte{revision.TemplateData(ds), revision.TemplateData(old), []byte("junk")})}
		switch b.intn(4) {
		case 0:
		case 1:
			r.Controller = &api.OwnerRef{UID: "other-uid"}
		default:
			r.Controller = &api.OwnerRef{UID: "ds-uid"}
		}
		switch b.intn(4) {
		case 0:
			r.Name = "ds-" + plantest.CurrentHash(ds) // the current name: used, or a collision
		case 1:
			delete(r.Labels, api.LabelRevisionHash)
		default:
			r.Labels[api.LabelRevisionHash] = hashes[pick(b, fuzzHashes[1:])]
		}
		if !slices.ContainsFunc(in.Revisions, func(o revision.Revision) bool { return o.Namespace == r.Namespace && o.Name == r.Name }) {
			in.Revisions = append(in.Revisions, r)
		}
	}
	for range b.intn(3) {
		if in.Backoff == nil {
			in.Backoff = placement.Backoff{}
		}
		in.Backoff[placement.BackoffKey{DaemonSetUID: "ds-uid", ObservedGeneration: int64(b.intn(3)), Node: pick(b, fuzzNodes)}] =
			placement.BackoffEntry{Delay: time.Duration(b.intn(5)) * time.Second, LastUpdate: plantest.Epoch.Add(-time.Duration(b.intn(10)) * time.Second)}
	}
	return in
}

func reversed[S ~[]E, E any](s S) S {
	out := slices.Clone(s)
	slices.Reverse(out)
	return out
}

// FuzzSyncInvariants decodes arbitrary bytes into a sync input, malformed
// specs included, and plans it: Sync never panics nor changes its input,
// every checker of the kit holds on the plan (and never panics), and the
// plan does not depend on the order of the input.
func FuzzSyncInvariants(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("daemonplan"))
	f.Add([]byte{0, 2, 0, 2, 1, 0, 1, 1, 2, 3, 0, 4, 1, 2, 0, 1, 3, 2, 1, 0, 0, 2, 1, 1, 2, 3, 2, 2, 1, 0, 1, 2, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := fuzzInput(data)
		before := fuzzInput(data)
		p, err := sync(in)
		if !reflect.DeepEqual(before, in) {
			t.Fatalf("Sync changed its input")
		}
		// Sync refuses a snapshot that lists a node twice or without a
		// name (daemonplan.CheckInput); the bytes make such input too.
		if errors.Is(err, daemonplan.ErrInvalidInput) && len(daemonplan.CheckInput(in)) > 0 {
			return
		}
		if err != nil {
			t.Fatalf("Sync: %v", err)
		}
		if err := plantest.CheckSync(in, p); err != nil {
			t.Fatalf("%v\nplan: %s\n%s", err, plantest.Describe(p), plantest.Snapshot{Input: in})
		}
		permuted := in
		permuted.Nodes, permuted.Pods, permuted.Revisions = reversed(in.Nodes), reversed(in.Pods), reversed(in.Revisions)
		if err := plantest.CheckPermutation(sync, in, permuted); err != nil {
			t.Fatal(err)
		}
	})
}
