package revision

import (
	"sort"

	"github.com/daemonplan/daemonplan/api"
)

// Cleanup returns, sorted, the names of the old revisions to delete at the
// end of a sync (upstream: cleanupHistory; docs/history.md, H13). old is
// [History.Old]; livePods are the DaemonSet's claimed pods that have a
// target node ([github.com/daemonplan/daemonplan/placement.Index.Targeted]),
// including pods that are terminal and being deleted (upstream lists them with
// includeDeletedTerminal).
//
//  1. limit = *ds.RevisionHistoryLimit, or [api.DefaultRevisionHistoryLimit]
//     when nil. Nothing is deleted when len(old) <= limit.
//  2. A revision is live when it has a hash label and some live pod carries
//     that non-empty value in its [api.LabelRevisionHash] label.
//  3. Old revisions are visited by number, oldest first (equal numbers by
//     name); each one that is not live is deleted, until len(old) - limit
//     are deleted or none is left. Live revisions are never deleted, so
//     more than limit old revisions may remain.
//
// The result is nil when nothing is to be deleted. ds must not be nil:
// Cleanup panics on a nil DaemonSet. Nil pods in livePods are skipped.
func Cleanup(ds *api.DaemonSet, old []Revision, livePods []*api.Pod) []string {
	if ds == nil {
		panic("revision.Cleanup: nil DaemonSet")
	}
	toKill := len(old) - HistoryLimit(ds)
	if toKill <= 0 {
		return nil
	}
	live := map[string]bool{}
	for _, p := range livePods {
		if p == nil {
			continue
		}
		if h := p.Labels[api.LabelRevisionHash]; h != "" {
			live[h] = true
		}
	}
	order := make([]*Revision, len(old))
	for i := range old {
		order[i] = &old[i]
	}
	sort.Slice(order, func(i, j int) bool {
		if order[i].Revision != order[j].Revision {
			return order[i].Revision < order[j].Revision
		}
		return order[i].Name < order[j].Name
	})
	var out []string
	for _, r := range order {
		if toKill <= 0 {
			break
		}
		if h, ok := r.Labels[api.LabelRevisionHash]; ok && live[h] {
			continue
		}
		out = append(out, r.Name)
		toKill--
	}
	sort.Strings(out)
	return out
}

// HistoryLimit is how many old revisions ds keeps: its
// revisionHistoryLimit, or [api.DefaultRevisionHistoryLimit] when unset.
// [Cleanup] deletes nothing while old holds at most that many, so a caller
// that must gather the live pods for it can skip them then. A nil ds keeps
// the default.
func HistoryLimit(ds *api.DaemonSet) int {
	if ds == nil || ds.RevisionHistoryLimit == nil {
		return api.DefaultRevisionHistoryLimit
	}
	return int(*ds.RevisionHistoryLimit)
}
