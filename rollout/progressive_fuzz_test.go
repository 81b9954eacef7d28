package rollout_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/rollout"
)

// fuzzBytes hands out the fuzzer's bytes one at a time, then zeros.
type fuzzBytes struct {
	data []byte
	pos  int
}

func (b *fuzzBytes) next() byte {
	if b.pos >= len(b.data) {
		return 0
	}
	c := b.data[b.pos]
	b.pos++
	return c
}

func (b *fuzzBytes) intn(n int) int { return int(b.next()) % n }
func (b *fuzzBytes) bool() bool     { return b.next()&1 == 1 }

func fuzzPick[T any](b *fuzzBytes, pool []T) T { return pool[b.intn(len(pool))] }

var (
	fuzzPods    = []string{"O", "O", "o", "N", "n", "m", "G", "T", "F"}
	fuzzCounts  = []*api.IntOrPercent{api.Int(0), api.Int(1), api.Int(2), api.Int(5), api.Percent("0%"), api.Percent("30%"), api.Percent("100%")}
	fuzzBudget  = []*api.IntOrPercent{api.Int(0), api.Int(1), api.Int(3), api.Percent("25%"), api.Percent("100%")}
	fuzzHolders = []string{"", "", "!", "?"}
)

// fuzzFixture decodes a layout, labels, a strategy and valid options.
func fuzzFixture(data []byte) (*fixture, rollout.Progressive) {
	b := &fuzzBytes{data: data}
	n := 1 + b.intn(10)
	layout := make([]string, n)
	labels := make([]string, n)
	for i := range layout {
		e := fuzzPick(b, fuzzHolders)
		for range b.intn(3) {
			e += fuzzPick(b, fuzzPods)
		}
		layout[i] = e
		var kv []string
		if z := b.intn(4); z < 3 {
			kv = append(kv, rollout.LabelZone+"="+string(rune('a'+z)))
		}
		kv = append(kv, "pool="+fuzzPick(b, []string{"blue", "green"}))
		labels[i] = strings.Join(kv, ",")
	}
	f := build(rollingUpdate(fuzzPick(b, fuzzBudget), fuzzPick(b, fuzzBudget)), layout...)
	f.ds.MinReadySeconds = int32(b.intn(3) * 5)
	for i := range f.nodes { // vanished nodes are dropped from f.nodes: relabel by name
		idx := 0
		fmt.Sscanf(f.nodes[i].Name, "node-%d", &idx)
		f.label(append(make([]string, i), labels[idx]))
	}
	var p rollout.Progressive
	if b.bool() {
		p.Partition = fuzzPick(b, fuzzCounts)
		p.PartitionedScaling = b.bool()
	}
	if b.intn(3) == 0 {
		p.Scope = &api.LabelSelector{MatchLabels: map[string]string{"pool": "blue"}}
	}
	p.Pause = b.intn(6) == 0
	p.Freeze = b.intn(6) == 0
	p.StrictBudgets = b.bool()
	p.SurgeWithUnavailable = b.bool()
	if b.bool() {
		m := b.intn(6) // one byte, as before PerGroupBudgets
		p.Zones = &rollout.Zones{MaxConcurrent: m % 3, PerGroupBudgets: m >= 3}
	}
	if b.bool() {
		c := &rollout.Canary{Nodes: api.Int(int32(1 + b.intn(3))), Verdicts: map[string]rollout.Verdict{}, Restarts: map[string]int32{}}
		if b.bool() {
			c.SpreadKeys = []string{rollout.LabelZone}
		}
		if v := b.intn(4); v > 0 && v < 3 {
			c.Verdicts[hashNew] = rollout.Verdict(v)
		}
		if b.bool() {
			c.AutoFail = &rollout.AutoFail{MaxRestarts: int32(b.intn(3)), MaxUnready: time.Duration(b.intn(3)) * time.Hour}
		}
		for range b.intn(3) {
			if len(f.pods) > 0 {
				c.Restarts[f.pods[b.intn(len(f.pods))].Name] = int32(b.intn(5))
			}
		}
		p.Canary = c
	}
	return f, p
}

// FuzzProgressiveStep decodes a cluster and valid extensions from bytes
// and checks the step against the invariants of the state machine
// (progressive_invariants_test.go) and a few of its own: no panic, the same
// step twice, every delete names a pod of its node, every create a present
// node without a new pod, a delete reason of the rolling update, and
// Freeze and Pause write nothing; Manage under Freeze keeps nothing and
// under PartitionedScaling only cuts.
func FuzzProgressiveStep(f *testing.F) {
	for _, seed := range []string{
		"\x05\x00\x01\x00\x00\x01\x00\x00\x00\x01\x01\x00\x01\x00\x02\x00\x01\x01",
		"\x08\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19",
		"\x09\x00\x02\x00\x00\x00\x02\x00\x00\x01\x02\x01\x01\x02\x00\x02\x03\x02\x00\x00\x01\x01\x01\x01\x01\x01\x01\x01",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fx, p := fuzzFixture(data)
		if errs := p.Validate(); len(errs) > 0 {
			t.Fatalf("decoder built invalid options: %v", errs)
		}
		ix := fx.cluster(t)
		step, prog, err := rollout.RollingUpdate(ix, t0, hashNew, p)
		step2, prog2, err2 := rollout.RollingUpdate(fx.cluster(t), t0, hashNew, p)
		if !errors.Is(err, err2) && (err == nil) != (err2 == nil) {
			t.Fatalf("errors differ between runs: %v, %v", err, err2)
		}
		if diff := cmp.Diff(step, step2, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("steps differ between runs:\n%s", diff)
		}
		if diff := cmp.Diff(prog, prog2, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("progress differs between runs:\n%s", diff)
		}
		if err != nil {
			return
		}
		s := &snap{ds: *fx.ds, nodes: fx.nodes, pods: fx.pods, now: t0, opts: p}
		if p.Canary != nil {
			s.restarts = p.Canary.Restarts
		}
		plan := daemonplan.Plan{Hash: hashNew, Create: step.Create, Delete: step.Delete, Progress: prog}
		vs := s.visit(hashNew)
		errs := []error{
			checkHolds(s, vs, plan), checkScope(s, vs, plan), checkPartition(s, vs, plan),
			checkCanary(s, vs, plan), checkBudgets(s, vs, plan), checkZones(s, vs, plan),
		}
		if (p.Pause || p.Freeze) && len(step.Create)+len(step.Delete) > 0 {
			errs = append(errs, fmt.Errorf("held (pause %v, freeze %v), yet writes", p.Pause, p.Freeze))
		}
		pods := map[string]string{}
		for _, pod := range fx.pods {
			pods[pod.Name] = pod.NodeName
		}
		seen := map[string]bool{}
		for _, d := range step.Delete {
			if pods[d.Pod] != d.Node || seen[d.Pod] {
				errs = append(errs, fmt.Errorf("delete %+v names no pod of its node, or twice", d))
			}
			seen[d.Pod] = true
			if r := d.Reason.String(); r != "Outdated" && r != "SurgeReplaced" && r != "Unschedulable" {
				errs = append(errs, fmt.Errorf("delete %+v: not a rolling-update reason", d))
			}
		}
		present := map[string]bool{}
		for _, n := range fx.nodes {
			present[n.Name] = true
		}
		for _, c := range step.Create {
			if !present[c.Node] || seen[c.Node] {
				errs = append(errs, fmt.Errorf("create on %s: not a present node, or twice", c.Node))
			}
			seen[c.Node] = true
		}

		mp, err := ix.Manage(t0, hashNew, nil)
		if err == nil {
			out, held := p.Manage(rollout.IndexNodes(ix), hashNew, mp, nil)
			switch {
			case p.Freeze && len(out.Create)+len(out.Delete) > 0:
				errs = append(errs, errors.New("Manage under Freeze keeps writes"))
			case !p.Freeze && (len(out.Create)+held != len(mp.Create) || len(out.Delete) != len(mp.Delete)):
				errs = append(errs, fmt.Errorf("Manage changed more than creates: %d+%d of %d creates, %d of %d deletes",
					len(out.Create), held, len(mp.Create), len(out.Delete), len(mp.Delete)))
			}
		}
		if err := errors.Join(errs...); err != nil {
			t.Fatalf("options %s, layout %v:\n%v\nstep: %s", describeOpts(p), data, err, describePlan(plan))
		}
	})
}
