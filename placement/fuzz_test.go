package placement_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/internal/reference"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/plantest"
	"github.com/daemonplan/daemonplan/selector"
	"github.com/daemonplan/daemonplan/taints"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// byteSource hands out the fuzzer's bytes one at a time, then zeros.
type byteSource struct {
	data []byte
	pos  int
}

func (b *byteSource) next() byte {
	if b.pos >= len(b.data) {
		return 0
	}
	c := b.data[b.pos]
	b.pos++
	return c
}

func (b *byteSource) bool() bool { return b.next()&1 == 1 }

func (b *byteSource) intn(n int) int { return int(b.next()) % n }

func pick[T any](b *byteSource, pool []T) T { return pool[b.intn(len(pool))] }

// Pools for the byte-driven builder: valid and invalid values alike, so
// that the planner sees what validation would reject.
var (
	fuzzKeys      = []string{"a", "b", "zone", "", "bad key", "example.com/x", "-x", selector.NodeNameField}
	fuzzValues    = []string{"", "a", "b", "1", "-1", "x y", "99999999999999999999", "node-0"}
	fuzzNodeNames = []string{"node-0", "node-1", "node-2", "node-3", "", "node-0"}
	fuzzOps       = []selector.Operator{selector.In, selector.NotIn, selector.Exists, selector.DoesNotExist, selector.Gt, selector.Lt, "=", "bogus"}
	fuzzTolOps    = []taints.Operator{"", taints.Equal, taints.Exists, taints.Lt, taints.Gt, "bogus"}
	fuzzEffects   = []taints.Effect{"", taints.NoSchedule, taints.PreferNoSchedule, taints.NoExecute, "Other"}
	fuzzPhases    = []api.PodPhase{"", api.PodPending, api.PodRunning, api.PodSucceeded, api.PodFailed, api.PodUnknown, "Weird"}
	fuzzBudgets   = []*api.IntOrPercent{nil, api.Int(0), api.Int(1), api.Int(-3), api.Percent("50%"), api.Percent("x%"), api.Percent("%"), api.Percent("7"), api.Percent("-5%"), api.Percent("99999999999%")}
	fuzzTypes     = []api.StrategyType{"", api.RollingUpdate, api.OnDelete, "Bogus"}
)

func fuzzLabels(b *byteSource) map[string]string {
	if b.intn(4) == 0 {
		return nil
	}
	m := map[string]string{}
	for range b.intn(4) {
		m[pick(b, fuzzKeys)] = pick(b, fuzzValues)
	}
	return m
}

func fuzzRequirements(b *byteSource) []selector.NodeSelectorRequirement {
	var out []selector.NodeSelectorRequirement
	for range b.intn(3) {
		r := selector.NodeSelectorRequirement{Key: pick(b, fuzzKeys), Operator: pick(b, fuzzOps)}
		for range b.intn(3) {
			r.Values = append(r.Values, pick(b, fuzzValues))
		}
		out = append(out, r)
	}
	return out
}

func fuzzNodeSelector(b *byteSource) *selector.NodeSelector {
	if b.intn(3) == 0 {
		return nil
	}
	ns := &selector.NodeSelector{}
	for range b.intn(3) {
		ns.Terms = append(ns.Terms, selector.NodeSelectorTerm{MatchExpressions: fuzzRequirements(b), MatchFields: fuzzRequirements(b)})
	}
	return ns
}

// fuzzSnapshot decodes bytes into a snapshot and planner options.
func fuzzSnapshot(data []byte) (reference.Snapshot, placement.Options) {
	b := &byteSource{data: data}
	ds := &api.DaemonSet{Namespace: "ns", Name: "ds", UID: "ds-uid", Generation: int64(b.next())}
	switch b.intn(4) {
	case 0:
		ds.Selector = nil
	case 1:
		ds.Selector = &selector.LabelSelector{}
	default:
		ds.Selector = &selector.LabelSelector{MatchLabels: fuzzLabels(b)}
		for range b.intn(2) {
			e := selector.LabelSelectorRequirement{Key: pick(b, fuzzKeys), Operator: pick(b, fuzzOps)}
			for range b.intn(3) {
				e.Values = append(e.Values, pick(b, fuzzValues))
			}
			ds.Selector.MatchExpressions = append(ds.Selector.MatchExpressions, e)
		}
	}
	ds.Deleting = b.intn(8) == 0
	ds.Template.Labels = fuzzLabels(b)
	if b.intn(4) == 0 {
		ds.Template.NodeName = pick(b, fuzzNodeNames)
	}
	ds.Template.NodeSelector = fuzzLabels(b)
	ds.Template.RequiredNodeAffinity = fuzzNodeSelector(b)
	ds.Template.HostNetwork = b.bool()
	for range b.intn(4) {
		ds.Template.Tolerations = append(ds.Template.Tolerations, taints.Toleration{
			Key: pick(b, fuzzKeys), Operator: pick(b, fuzzTolOps), Value: pick(b, fuzzValues), Effect: pick(b, fuzzEffects),
		})
	}
	ds.UpdateStrategy.Type = pick(b, fuzzTypes)
	if b.bool() {
		ds.UpdateStrategy.RollingUpdate = &api.RollingUpdateParams{MaxUnavailable: pick(b, fuzzBudgets), MaxSurge: pick(b, fuzzBudgets)}
	}
	ds.MinReadySeconds = int32(int8(b.next()))
	ds.Status.ObservedGeneration = int64(b.intn(3))
	if b.bool() {
		ds.Annotations = map[string]string{api.AnnotationTemplateGeneration: pick(b, fuzzValues)}
	}

	s := reference.Snapshot{DaemonSet: ds, Now: plantest.Epoch.Add(time.Duration(int8(b.next())) * time.Second), Hash: pick(b, []string{"", "h1", "old"})}
	for range b.intn(6) {
		n := api.Node{Name: pick(b, fuzzNodeNames), Labels: fuzzLabels(b)}
		for range b.intn(3) {
			n.Taints = append(n.Taints, taints.Taint{Key: pick(b, fuzzKeys), Value: pick(b, fuzzValues), Effect: pick(b, fuzzEffects)})
		}
		s.Nodes = append(s.Nodes, n)
	}
	for i := range b.intn(12) {
		p := api.Pod{
			Namespace: pick(b, []string{"ns", "ns", "other"}),
			Name:      fmt.Sprintf("pod-%02d", i),
			Labels:    fuzzLabels(b),
			Phase:     pick(b, fuzzPhases),
			Ready:     b.bool(),
			Deleting:  b.intn(4) == 0,
			Created:   plantest.Epoch.Add(-time.Duration(b.intn(4)) * time.Minute),
		}
		if p.Ready && b.bool() {
			p.ReadySince = plantest.Epoch.Add(-time.Duration(b.intn(20)) * time.Second)
		}
		switch b.intn(4) {
		case 0:
		case 1:
			p.Controller = &api.OwnerRef{UID: "other-uid"}
		default:
			p.Controller = &api.OwnerRef{UID: "ds-uid"}
		}
		if b.bool() {
			p.NodeName = pick(b, fuzzNodeNames)
		} else {
			p.RequiredNodeAffinity = fuzzNodeSelector(b)
			if b.bool() {
				p.RequiredNodeAffinity = placement.PodNodeAffinity(pick(b, fuzzNodeNames))
			}
		}
		s.Pods = append(s.Pods, p)
	}
	for range b.intn(3) {
		if s.Backoff == nil {
			s.Backoff = placement.Backoff{}
		}
		key := placement.BackoffKey{DaemonSetUID: pick(b, []string{"ds-uid", "other"}), ObservedGeneration: int64(b.intn(3)), Node: pick(b, fuzzNodeNames)}
		s.Backoff[key] = placement.BackoffEntry{
			Delay:      time.Duration(int8(b.next())) * time.Second,
			LastUpdate: plantest.Epoch.Add(-time.Duration(b.next()) * time.Minute),
		}
	}
	var opts placement.Options
	if b.intn(4) == 0 {
		opts.BurstReplicas = b.intn(4) - 1
		opts.Taints.ComparisonOperators = b.bool()
	}
	return s, opts
}

// FuzzManage decodes arbitrary bytes into a snapshot and plans it: bad
// input may produce errors, never a panic. With the default options and a
// plan within the burst limit, the plan must also agree with the reference
// and satisfy its invariants.
func FuzzManage(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("daemonplan"))
	f.Add([]byte{2, 0, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 5, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Fuzz(func(t *testing.T, data []byte) {
		s, opts := fuzzSnapshot(data)
		before := s.Clone()
		for i := range s.Nodes {
			_ = placement.NewEligibility(s.DaemonSet, opts).Decide(&s.Nodes[i]).Message()
		}
		c, err := placement.Compile(s.DaemonSet, opts)
		if err != nil {
			return
		}
		cl, err := c.Index(s.Nodes, s.Pods)
		if err != nil {
			return
		}
		p, manageErr := cl.Manage(s.Now, s.Hash, s.Backoff)
		st := cl.Status(s.Now, s.Hash)
		_ = placement.SlowStartBatches(len(p.Create))
		_, _ = placement.SurgeCount(s.DaemonSet, len(s.Nodes))
		_, _ = placement.UnavailableCount(s.DaemonSet, len(s.Nodes))
		if diff := cmp.Diff(before, s); diff != "" {
			t.Fatalf("inputs changed (-before +after):\n%s", diff)
		}
		if manageErr != nil || opts != (placement.Options{}) {
			return
		}
		if err := reference.CheckPlan(s, p); err != nil {
			t.Fatalf("CheckPlan: %v\n%s", err, reference.Render(s))
		}
		want := reference.Manage(s.DaemonSet, s.Nodes, s.Pods, s.Now, s.Hash, s.Backoff)
		if diff := cmp.Diff(want, asResult(p, st), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("Manage() mismatch (-want +got):\n%s\n%s", diff, reference.Render(s))
		}
	})
}
