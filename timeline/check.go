package timeline

import (
	"errors"
	"fmt"
	"slices"
)

// Check verifies the invariants of a recording and returns every
// violation found (nil when none):
//
//  1. syncs are in time order, within [0, Duration];
//  2. each sync's counts are consistent: updated and available at most
//     desired, unavailable what the others leave (desired - available,
//     never below 0), budgets not negative;
//  3. each node's intervals start at 0, end at Duration, each begins
//     where the previous ended, none but the last is empty, and no two
//     neighbours hold the same pods in the same states;
//  4. nodes are sorted by name, without duplicates;
//  5. the outcome is [Converged] without a [Stall], or [Stalled] with one.
func (t *Timeline) Check() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	for i, s := range t.Syncs {
		if s.At < 0 || s.At > t.Duration {
			bad("sync %d at %v: outside [0, %v]", i, s.At, t.Duration)
		}
		if i > 0 && s.At < t.Syncs[i-1].At {
			bad("sync %d at %v: before sync %d at %v", i, s.At, i-1, t.Syncs[i-1].At)
		}
		if s.Updated > s.Desired || s.Available > s.Desired || s.Unavailable != max(s.Desired-s.Available, 0) ||
			s.MaxUnavailable < 0 || s.MaxSurge < 0 || s.Creates < 0 || s.Deletes < 0 {
			bad("sync %d: inconsistent counts %+v", i, s)
		}
	}
	for i, n := range t.Nodes {
		if i > 0 && t.Nodes[i-1].Name >= n.Name {
			bad("node %q: not after %q", n.Name, t.Nodes[i-1].Name)
		}
		iv := n.Intervals
		if len(iv) == 0 {
			bad("node %q: no interval", n.Name)
			continue
		}
		if iv[0].From != 0 {
			bad("node %q: starts at %v", n.Name, iv[0].From)
		}
		if end := iv[len(iv)-1].To; end != t.Duration {
			bad("node %q: ends at %v, want %v", n.Name, end, t.Duration)
		}
		for j, v := range iv {
			if v.To < v.From || v.To == v.From && j+1 < len(iv) {
				bad("node %q interval %d: %v to %v is empty or runs backwards", n.Name, j, v.From, v.To)
			}
			if j > 0 && v.From != iv[j-1].To {
				bad("node %q interval %d: starts at %v, the previous ended at %v", n.Name, j, v.From, iv[j-1].To)
			}
			if j > 0 && slices.Equal(v.Pods, iv[j-1].Pods) {
				bad("node %q interval %d: same pods as the previous", n.Name, j)
			}
		}
	}
	if (t.Outcome == Converged) != (t.Stall == nil) || (t.Outcome != Converged && t.Outcome != Stalled) {
		bad("outcome %v with stall %v", t.Outcome, t.Stall)
	}
	return errors.Join(errs...)
}
