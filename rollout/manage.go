package rollout

import (
	"maps"
	"slices"

	"github.com/daemonplan/daemonplan/placement"
)

// Manage applies the extensions that reach beyond the rolling update to a
// manage plan mp of nodes ([placement.Index.Manage], or the same plan
// assembled from another source, with the same hash), and
// returns the plan to issue and how many creates it held back. mp is not
// changed; with the zero [Progressive] it is returned as is.
//
//  1. Freeze: no creates and no deletes. The backoff state stays as it
//     was (backoff), nothing is requeued, and every pod placed on a node
//     is kept.
//  2. PartitionedScaling with a Partition P (at most the desired count):
//     only the first max(0, desired − nodes with a new pod − P) creates, by
//     node name, are kept, so that creates never push more than desired −
//     P nodes onto the current revision (OpenKruise's GetNodesNeedingPods).
//     The others are held back: those nodes stay without a pod.
//
// nodes must not be nil unless p is the zero [Progressive]: Manage panics
// on nil nodes it needs.
func (p Progressive) Manage(nodes Nodes, hash string, mp placement.ManagePlan, backoff placement.Backoff) (placement.ManagePlan, int) {
	if nodes == nil && (p.Freeze || p.PartitionedScaling && p.Partition != nil && len(mp.Create) > 0) {
		panic("rollout.Progressive.Manage: nil nodes")
	}
	switch {
	case p.Freeze:
		out := mp
		out.Create, out.Delete = nil, nil
		out.SkippedCreates, out.SkippedDeletes = 0, 0
		out.RequeueAfter = 0
		out.Backoff = maps.Clone(backoff)
		if out.Backoff == nil {
			out.Backoff = placement.Backoff{}
		}
		out.Keep = []string{}
		nodes.Visit(hash, func(n *NodeView, _ map[string]string) bool {
			for _, pod := range n.Pods {
				out.Keep = append(out.Keep, pod.Name)
			}
			return true
		})
		slices.Sort(out.Keep)
		return out, 0
	case !p.PartitionedScaling || p.Partition == nil || len(mp.Create) == 0:
		return mp, 0
	}
	desired, updated := 0, 0
	nodes.Visit(hash, func(n *NodeView, _ map[string]string) bool {
		if n.Present {
			if n.Desired {
				desired++
			}
			if n.New != nil {
				updated++
			}
		}
		return true
	})
	partition, _ := scaleCount(p.Partition, desired, false)
	allowed := max(desired-updated-min(partition, desired), 0)
	if allowed >= len(mp.Create) {
		return mp, 0
	}
	out := mp
	out.Create = nil
	if allowed > 0 {
		out.Create = mp.Create[:allowed:allowed]
	}
	return out, len(mp.Create) - allowed
}
