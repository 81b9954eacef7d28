// Package syncrule holds the rules of a sync that
// [github.com/daemonplan/daemonplan.Sync] and the incremental
// [github.com/daemonplan/daemonplan/daemonplan.Tracker] both apply, written once so
// that the two planners cannot drift apart: which selector gets no writes, when
// the status is written, and how revision deletes are merged. It imports only
// the standard library and daemonplan's own packages.
package syncrule

import (
	"slices"
	"time"

	"github.com/daemonplan/daemonplan/api"
)

// SelectsAll reports a non-nil selector with no matchLabels and no
// matchExpressions, which selects every pod: a sync writes nothing for it
// (docs/manage.md, M1). Upstream refuses to act on the selector deep-equal
// to an empty LabelSelector (nil maps and slices) and would act on
// {matchLabels: {}}; the API server refuses every such selector for a
// DaemonSet, so none of them is ever acted on.
func SelectsAll(s *api.LabelSelector) bool {
	return s != nil && len(s.MatchLabels) == 0 && len(s.MatchExpressions) == 0
}

// EqualCount reports whether two collision counts are equal: both nil, or
// both set to the same value.
func EqualCount(a, b *int32) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// StatusWrite returns the status st to write for ds, with the input's
// collision count (a copy), whether upstream writes it at all (a count
// changed or observedGeneration is behind; docs/status.md, S9), and the
// resync upstream asks for, 0 if none: minReadySeconds after a status in
// which some Ready pods are not yet available, so that they are counted
// once they are (upstream: updateDaemonSetStatus).
func StatusWrite(st api.Status, ds *api.DaemonSet) (out api.Status, changed bool, requeue time.Duration) {
	st.CollisionCount = ds.Status.DeepCopy().CollisionCount
	old := ds.Status
	changed = old.ObservedGeneration < ds.Generation ||
		st.CurrentNumberScheduled != old.CurrentNumberScheduled || st.NumberMisscheduled != old.NumberMisscheduled ||
		st.DesiredNumberScheduled != old.DesiredNumberScheduled || st.NumberReady != old.NumberReady ||
		st.UpdatedNumberScheduled != old.UpdatedNumberScheduled || st.NumberAvailable != old.NumberAvailable ||
		st.NumberUnavailable != old.NumberUnavailable
	if ds.MinReadySeconds > 0 && st.NumberReady != st.NumberAvailable {
		requeue = time.Duration(ds.MinReadySeconds) * time.Second
	}
	return st, changed, requeue
}

// MergeSorted returns the sorted union of the name lists a and b, without
// repeats; a is returned as it is when b is empty, and never changed.
func MergeSorted(a, b []string) []string {
	if len(b) == 0 {
		return a
	}
	out := append(slices.Clone(a), b...)
	slices.Sort(out)
	return slices.Compact(out)
}
