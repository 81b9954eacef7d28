package placement

import (
	"iter"
	"runtime"

	"github.com/daemonplan/daemonplan/api"
)

// Bucket is the DaemonSet's pods that target one node, oldest first
// (scheduled before unscheduled, then by creation time, then by name), as
// a pass over an [Index] sees them: a node of the snapshot, or a vanished
// node (missing from the node list) that pods still target.
type Bucket struct {
	Node string
	Pods []*api.Pod
	// Present is false for a vanished node.
	Present bool
	// ShouldRun is the node's Decision.ShouldRun; false for a vanished
	// node.
	ShouldRun bool

	ix *Index
	at int // the node's position in the Index; -1 for a vanished node
}

// Labels returns the node's labels; nil for a vanished node (and a nil
// [Bucket]). The map is
// the caller's snapshot: do not modify it.
func (b *Bucket) Labels() map[string]string {
	if b == nil || b.ix == nil || b.at < 0 {
		return nil
	}
	return b.ix.nodes[b.at].Labels
}

// Updated reports whether Pods[j] is of the current template, the hash
// given to [Index.Buckets] ([Compiled.IsUpdated]). The [Index] remembers each
// answer until its next Reset, for the passes that ask again (the rolling
// update, then the status). A [Bucket] not from Index.Buckets calls every
// pod outdated.
func (b *Bucket) Updated(j int) bool {
	switch {
	case b.ix == nil:
		return false
	case b.at < 0:
		return b.ix.c.IsUpdated(b.Pods[j], b.ix.updHash)
	}
	return b.ix.isUpdated(b.at, j, b.ix.updHash)
}

// Buckets yields a [Bucket] for every node of the snapshot and every
// vanished node, in node-name order (upstream visits them in map order:
// docs/determinism.md, D2). hash is the current revision's hash, which
// [Bucket.Updated] answers for. It reads a few nodes ahead: the pods' fields
// a pass reads, and whether each is updated, in a loop that does nothing
// else, so that the cache misses of several pods overlap (pods listed in
// lister order lie in memory in no order the nodes follow, and the labels
// of decoded pods each in memory of their own). A zero [Index] yields
// nothing.
func (ix *Index) Buckets(hash string) iter.Seq[Bucket] {
	return func(yield func(Bucket) bool) {
		ix.useHash(hash)
		vanished := ix.vanished
		v, prefetched := 0, 0
		for i, n := range ix.nodes {
			if i%prefetchBatch == 0 {
				prefetched += ix.prefetchBuckets(i, min(i+prefetchBatch, len(ix.nodes)), hash)
			}
			for v < len(vanished) && vanished[v].Node < n.Name {
				if !yield(Bucket{Node: vanished[v].Node, Pods: vanished[v].Pods, ix: ix, at: -1}) {
					return
				}
				v++
			}
			if !yield(Bucket{Node: n.Name, Pods: ix.podsOn(i), Present: true, ShouldRun: ix.decisions[i].ShouldRun, ix: ix, at: i}) {
				return
			}
		}
		runtime.KeepAlive(prefetched)
		ix.vanishedBuckets(v, yield)
	}
}

// vanishedBuckets yields the vanished buckets from the v-th on.
func (ix *Index) vanishedBuckets(v int, yield func(Bucket) bool) {
	for ; v < len(ix.vanished); v++ {
		if !yield(Bucket{Node: ix.vanished[v].Node, Pods: ix.vanished[v].Pods, ix: ix, at: -1}) {
			return
		}
	}
}

// prefetchBuckets reads, for the nodes lo to hi, the fields of each pod
// that a pass reads, and asks whether the pod is updated (which the Index
// remembers), returning something of what it read so that the reads are
// not dropped.
func (ix *Index) prefetchBuckets(lo, hi int, hash string) int {
	n := 0
	for i := lo; i < hi; i++ {
		for j, p := range ix.podsOn(i) {
			if p.Ready {
				n++
			}
			if !p.Deleting && ix.isUpdated(i, j, hash) {
				n++
			}
		}
	}
	return n
}
