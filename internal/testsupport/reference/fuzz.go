package reference

import (
	"fmt"
	"time"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/revision"
)

// fuzzEpoch is the instant FuzzSnapshot builds around (plantest.Epoch,
// which this package cannot import).
var fuzzEpoch = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// NewBytes returns the source of data's bytes.
func NewBytes(data []byte) *Bytes { return &Bytes{data: data} }

// Bytes hands out the fuzzer's bytes one at a time, then zeros.
type Bytes struct {
	data []byte
	pos  int
}

func (b *Bytes) Next() byte {
	if b.pos >= len(b.data) {
		return 0
	}
	c := b.data[b.pos]
	b.pos++
	return c
}

func (b *Bytes) Bool() bool { return b.Next()&1 == 1 }

func (b *Bytes) Intn(n int) int { return int(b.Next()) % n }

func Pick[T any](b *Bytes, pool []T) T { return pool[b.Intn(len(pool))] }

// Pools for the byte-driven builder: valid and invalid values alike, so
// that the planner sees what validation would reject.
var (
	fuzzKeys      = []string{"a", "b", "zone", "", "bad key", "example.com/x", "-x", api.NodeNameField}
	fuzzValues    = []string{"", "a", "b", "1", "-1", "x y", "99999999999999999999", "node-0"}
	fuzzNodeNames = []string{"node-0", "node-1", "node-2", "node-3", "", "node-0"}
	fuzzOps       = []api.SelectorOperator{api.SelectorOpIn, api.SelectorOpNotIn, api.SelectorOpExists, api.SelectorOpDoesNotExist, api.SelectorOpGt, api.SelectorOpLt, "=", "bogus"}
	fuzzTolOps    = []api.TolerationOperator{"", api.TolerationOpEqual, api.TolerationOpExists, api.TolerationOpLt, api.TolerationOpGt, "bogus"}
	fuzzEffects   = []api.TaintEffect{"", api.TaintEffectNoSchedule, api.TaintEffectPreferNoSchedule, api.TaintEffectNoExecute, "Other"}
	fuzzPhases    = []api.PodPhase{"", api.PodPending, api.PodRunning, api.PodSucceeded, api.PodFailed, api.PodUnknown, "Weird"}
	fuzzBudgets   = []*api.IntOrPercent{nil, api.Int(0), api.Int(1), api.Int(-3), api.Percent("50%"), api.Percent("x%"), api.Percent("%"), api.Percent("7"), api.Percent("-5%"), api.Percent("99999999999%")}
	fuzzTypes     = []api.StrategyType{"", api.RollingUpdate, api.OnDelete, "Bogus"}
)

func fuzzLabels(b *Bytes) map[string]string {
	if b.Intn(4) == 0 {
		return nil
	}
	m := map[string]string{}
	for range b.Intn(4) {
		m[Pick(b, fuzzKeys)] = Pick(b, fuzzValues)
	}
	return m
}

func fuzzRequirements(b *Bytes) []api.NodeSelectorRequirement {
	var out []api.NodeSelectorRequirement
	for range b.Intn(3) {
		r := api.NodeSelectorRequirement{Key: Pick(b, fuzzKeys), Operator: Pick(b, fuzzOps)}
		for range b.Intn(3) {
			r.Values = append(r.Values, Pick(b, fuzzValues))
		}
		out = append(out, r)
	}
	return out
}

func fuzzNodeSelector(b *Bytes) *api.NodeSelector {
	if b.Intn(3) == 0 {
		return nil
	}
	ns := &api.NodeSelector{}
	for range b.Intn(3) {
		ns.Terms = append(ns.Terms, api.NodeSelectorTerm{MatchExpressions: fuzzRequirements(b), MatchFields: fuzzRequirements(b)})
	}
	return ns
}

// FuzzSnapshot decodes bytes into a snapshot and planner options. Every
// byte string decodes to some snapshot; bytes past the end read as zeros.
func FuzzSnapshot(b *Bytes) (Snapshot, placement.Options) {
	ds := &api.DaemonSet{Namespace: "ns", Name: "ds", UID: "ds-uid", Generation: int64(b.Next())}
	switch b.Intn(4) {
	case 0:
		ds.Selector = nil
	case 1:
		ds.Selector = &api.LabelSelector{}
	default:
		ds.Selector = &api.LabelSelector{MatchLabels: fuzzLabels(b)}
		for range b.Intn(2) {
			e := api.LabelSelectorRequirement{Key: Pick(b, fuzzKeys), Operator: Pick(b, fuzzOps)}
			for range b.Intn(3) {
				e.Values = append(e.Values, Pick(b, fuzzValues))
			}
			ds.Selector.MatchExpressions = append(ds.Selector.MatchExpressions, e)
		}
	}
	ds.Deleting = b.Intn(8) == 0
	ds.Template.Labels = fuzzLabels(b)
	if b.Intn(4) == 0 {
		ds.Template.NodeName = Pick(b, fuzzNodeNames)
	}
	ds.Template.NodeSelector = fuzzLabels(b)
	ds.Template.RequiredNodeAffinity = fuzzNodeSelector(b)
	ds.Template.HostNetwork = b.Bool()
	for range b.Intn(4) {
		ds.Template.Tolerations = append(ds.Template.Tolerations, api.Toleration{
			Key: Pick(b, fuzzKeys), Operator: Pick(b, fuzzTolOps), Value: Pick(b, fuzzValues), Effect: Pick(b, fuzzEffects),
		})
	}
	ds.UpdateStrategy.Type = Pick(b, fuzzTypes)
	if b.Bool() {
		ds.UpdateStrategy.RollingUpdate = &api.RollingUpdateParams{MaxUnavailable: Pick(b, fuzzBudgets), MaxSurge: Pick(b, fuzzBudgets)}
	}
	ds.MinReadySeconds = int32(int8(b.Next()))
	ds.Status.ObservedGeneration = int64(b.Intn(3))
	if b.Bool() {
		ds.Annotations = map[string]string{api.AnnotationTemplateGeneration: Pick(b, fuzzValues)}
	}

	s := Snapshot{DaemonSet: ds, Now: fuzzEpoch.Add(time.Duration(int8(b.Next())) * time.Second), Hash: Pick(b, []string{"", "h1", "old"})}
	for range b.Intn(6) {
		n := api.Node{Name: Pick(b, fuzzNodeNames), Labels: fuzzLabels(b)}
		for range b.Intn(3) {
			n.Taints = append(n.Taints, api.Taint{Key: Pick(b, fuzzKeys), Value: Pick(b, fuzzValues), Effect: Pick(b, fuzzEffects)})
		}
		s.Nodes = append(s.Nodes, n)
	}
	for i := range b.Intn(12) {
		p := api.Pod{
			Namespace: Pick(b, []string{"ns", "ns", "other"}),
			Name:      fmt.Sprintf("pod-%02d", i),
			Labels:    fuzzLabels(b),
			Phase:     Pick(b, fuzzPhases),
			Ready:     b.Bool(),
			Deleting:  b.Intn(4) == 0,
			Created:   fuzzEpoch.Add(-time.Duration(b.Intn(4)) * time.Minute),
		}
		if p.Ready && b.Bool() {
			p.ReadySince = fuzzEpoch.Add(-time.Duration(b.Intn(20)) * time.Second)
		}
		switch b.Intn(4) {
		case 0:
		case 1:
			p.Controller = &api.OwnerRef{UID: "other-uid"}
		default:
			p.Controller = &api.OwnerRef{UID: "ds-uid"}
		}
		if b.Bool() {
			p.NodeName = Pick(b, fuzzNodeNames)
		} else {
			p.RequiredNodeAffinity = fuzzNodeSelector(b)
			if b.Bool() {
				p.RequiredNodeAffinity = placement.PodNodeAffinity(Pick(b, fuzzNodeNames))
			}
		}
		s.Pods = append(s.Pods, p)
	}
	for range b.Intn(3) {
		if s.Backoff == nil {
			s.Backoff = placement.Backoff{}
		}
		key := placement.BackoffKey{DaemonSetUID: Pick(b, []string{"ds-uid", "other"}), ObservedGeneration: int64(b.Intn(3)), Node: Pick(b, fuzzNodeNames)}
		s.Backoff[key] = placement.BackoffEntry{
			Delay:      time.Duration(int8(b.Next())) * time.Second,
			LastUpdate: fuzzEpoch.Add(-time.Duration(b.Next()) * time.Minute),
		}
	}
	var opts placement.Options
	if b.Intn(4) == 0 {
		opts.BurstReplicas = b.Intn(4) - 1
		opts.Taints.ComparisonOperators = b.Bool()
	}
	return s, opts
}

// FuzzRevisions decodes bytes into ControllerRevisions around ds: owned,
// orphaned, foreign or owned by an empty UID; holding ds's template, an old
// one or another; with or without a hash label; sometimes in another
// namespace, sometimes being deleted.
func FuzzRevisions(b *Bytes, ds *api.DaemonSet) []revision.Revision {
	current := revision.TemplateData(ds)
	datas := [][]byte{current, []byte(`{"old":1}`), []byte(`{"old":2}`), nil}
	var out []revision.Revision
	for i := range b.Intn(6) {
		r := revision.Revision{
			Namespace: Pick(b, []string{ds.Namespace, ds.Namespace, "other"}),
			Name:      fmt.Sprintf("%s-r%d", ds.Name, i),
			Labels:    fuzzLabels(b),
			Revision:  int64(b.Intn(5)) - 1,
			Data:      Pick(b, datas),
			Deleting:  b.Intn(6) == 0,
		}
		if b.Bool() {
			if r.Labels == nil {
				r.Labels = map[string]string{}
			}
			r.Labels[api.LabelRevisionHash] = Pick(b, []string{"h1", "old", ""})
		}
		switch b.Intn(5) {
		case 0:
		case 1:
			r.Controller = &api.OwnerRef{Kind: "DaemonSet", UID: "other-uid"}
		case 2:
			r.Controller = &api.OwnerRef{Kind: "StatefulSet"}
		default:
			r.Controller = &api.OwnerRef{Kind: "DaemonSet", Name: ds.Name, UID: ds.UID}
		}
		out = append(out, r)
	}
	return out
}

// Shuffle permutes s in place, driven by b.
func Shuffle[T any](b *Bytes, s []T) {
	for i := len(s) - 1; i > 0; i-- {
		j := int(b.Next()) % (i + 1)
		s[i], s[j] = s[j], s[i]
	}
}
