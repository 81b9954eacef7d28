package rollout_test

import (
	"math"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/internal/testsupport/reference"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/rollout"
)

// exactScaled is api.IntOrPercent.Scaled computed exactly, with big integers, and
// clamped to the int32 range: the oracle of FuzzBudgets.
func exactScaled(pct string, total int, roundUp bool) (int, bool) {
	s, ok := strings.CutSuffix(pct, "%")
	if !ok {
		return 0, false
	}
	n, ok := new(big.Int).SetString(s, 10)
	if !ok || !n.IsInt64() {
		return 0, false
	}
	num := new(big.Int).Mul(n, big.NewInt(int64(total)))
	q, m := new(big.Int).DivMod(num, big.NewInt(100), new(big.Int)) // floor division (Euclidean; 100 > 0)
	if roundUp && m.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	switch {
	case q.Cmp(big.NewInt(math.MaxInt32)) >= 0:
		return math.MaxInt32, true
	case q.Cmp(big.NewInt(math.MinInt32)) <= 0:
		return math.MinInt32, true
	}
	return int(q.Int64()), true
}

// FuzzBudgets: scaled budgets are exact (big-integer arithmetic, clamped
// to the int32 range) whatever the percentage, the same on every platform,
// never panic, and ResolveBudgets applies its rules on top: an error
// exactly when a budget does not scale, and maxUnavailable 1 when both are
// zero with nodes to update.
func FuzzBudgets(f *testing.F) {
	for _, s := range []string{"25%", "0%", "100%", "9223372036854775807%", "-9223372036854775808%", "9223372036854775808%",
		"+5%", "-0%", "1.5%", "%", "x", "", "007%", "4294967296%", " 5%"} {
		f.Add(s, int32(3), 10, true)
	}
	f.Add("", int32(-7), 0, false)
	f.Fuzz(func(t *testing.T, pct string, intVal int32, total int, isInt bool) {
		total = int(uint(total) % (1 << 20)) // node counts are not negative
		budget := api.Percent(pct)
		if isInt {
			budget = api.Int(intVal)
		}
		for _, roundUp := range []bool{true, false} {
			got, err := budget.Scaled(total, roundUp)
			want, ok := int(intVal), true
			if !isInt {
				want, ok = exactScaled(pct, total, roundUp)
			}
			if ok != (err == nil) {
				t.Fatalf("Scaled(%+v, %d, %v) error = %v, want error %v", budget, total, roundUp, err, !ok)
			}
			if ok && got != want {
				t.Fatalf("Scaled(%+v, %d, %v) = %d, want %d", budget, total, roundUp, got, want)
			}
		}

		ds := &api.DaemonSet{UpdateStrategy: api.UpdateStrategy{Type: api.RollingUpdate,
			RollingUpdate: &api.RollingUpdateParams{MaxUnavailable: budget, MaxSurge: api.Percent(pct)}}}
		b, err := rollout.ResolveBudgets(ds, total)
		_, errU := budget.Scaled(total, true)
		_, errS := api.Percent(pct).Scaled(total, true)
		if (err != nil) != (errU != nil || errS != nil) {
			t.Fatalf("ResolveBudgets error %v, scaling errors %v, %v", err, errU, errS)
		}
		if err == nil && total > 0 && b.MaxUnavailable == 0 && b.MaxSurge == 0 {
			t.Fatalf("ResolveBudgets(%d nodes) = %+v: both zero", total, b)
		}
	})
}

// FuzzRollingUpdate runs one rolling-update step on snapshots decoded from
// the fuzzer's bytes and checks what it may never do: delete a pod the
// DaemonSet does not claim or a pod twice, create on a node that should not
// run the pod or twice on one node, exceed the burst limit, delete more
// available pods than maxUnavailable allows (none with surge), leave its
// lists unsorted, depend on the input's order, or change its input.
func FuzzRollingUpdate(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("rolling update"))
	f.Add([]byte{3, 2, 1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 0, 0, 2, 1, 7, 9, 2, 5, 3, 5, 1, 4, 5, 6, 1, 9})
	f.Fuzz(func(t *testing.T, data []byte) {
		b := reference.NewBytes(data)
		s, opts := reference.FuzzSnapshot(b)
		before := s.Clone()
		c, err := placement.Compile(s.DaemonSet, opts)
		if err != nil {
			return
		}
		ix, err := c.Index(s.Nodes, s.Pods)
		if err != nil {
			return
		}
		step, _, err := rollout.RollingUpdate(ix, s.Now, s.Hash, rollout.Progressive{})
		if d := cmp.Diff(before, s); d != "" {
			t.Fatalf("RollingUpdate changed its input (-before +after):\n%s", d)
		}
		if err != nil {
			if len(step.Create)+len(step.Delete) > 0 {
				t.Fatalf("RollingUpdate failed (%v) but plans writes", err)
			}
			return
		}
		claimed := map[string]bool{}
		for _, p := range ix.Targeted() {
			claimed[p.Name] = true
		}
		decided := map[string]placement.Decision{}
		for _, d := range ix.NodeDecisions() {
			decided[d.Node] = d.Decision
		}
		burst := opts.Burst()
		if len(step.Delete) > burst || len(step.Create) > burst {
			t.Fatalf("step exceeds the burst limit %d: %d creates, %d deletes", burst, len(step.Create), len(step.Delete))
		}
		available := 0
		for i, d := range step.Delete {
			if !claimed[d.Pod] {
				t.Fatalf("deletes pod %s, which the DaemonSet does not claim", d.Pod)
			}
			if i > 0 && step.Delete[i-1].Pod >= d.Pod {
				t.Fatalf("deletes not sorted without repeats: %v", step.Delete)
			}
			for j := range s.Pods {
				if p := &s.Pods[j]; p.Namespace == s.DaemonSet.Namespace && p.Name == d.Pod && d.Reason == placement.Outdated &&
					api.IsAvailable(p, s.DaemonSet.MinReadySeconds, s.Now) {
					available++
				}
			}
		}
		limit := max(step.Budgets.MaxUnavailable, 0)
		if step.Budgets.Surge() {
			limit = 0
		}
		if available > limit {
			t.Fatalf("deletes %d available pods as outdated, budget %d: %+v", available, limit, step)
		}
		for i, cr := range step.Create {
			if !decided[cr.Node].ShouldRun {
				t.Fatalf("creates on node %s, which should not run the pod", cr.Node)
			}
			if i > 0 && step.Create[i-1].Node >= cr.Node {
				t.Fatalf("creates not sorted without repeats")
			}
		}

		// The same snapshot in another order plans the same step.
		nodes, pods := slices.Clone(s.Nodes), slices.Clone(s.Pods)
		reference.Shuffle(b, nodes)
		reference.Shuffle(b, pods)
		cl2, err := c.Index(nodes, pods)
		if err != nil {
			t.Fatal(err)
		}
		again, _, err := rollout.RollingUpdate(cl2, s.Now, s.Hash, rollout.Progressive{})
		if err != nil || !slices.Equal(deleteNames(step), deleteNames(again)) || !slices.Equal(createNodes(step), createNodes(again)) {
			t.Fatalf("shuffled input steps differently: %v, %v vs %v, %v (%v)", deleteNames(step), createNodes(step), deleteNames(again), createNodes(again), err)
		}
	})
}

func deleteNames(s rollout.Step) []string {
	var out []string
	for _, d := range s.Delete {
		out = append(out, d.Pod)
	}
	return out
}

func createNodes(s rollout.Step) []string {
	var out []string
	for _, c := range s.Create {
		out = append(out, c.Node)
	}
	return out
}
