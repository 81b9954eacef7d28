package placement

import (
	"encoding/json"
	"runtime"
	"slices"
	"strings"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
	"github.com/daemonplan/daemonplan/internal/base/scratch"
)

// Reset indexes nodes and pods for c into ix as [Index] does, with the same
// errors, reusing the memory of ix's previous snapshot. Slices ix returned
// before are overwritten. After an error ix must not be used until a
// successful Reset.
//
// It runs in phases, each a method of an indexer, which holds what they
// share: the nodes are put in name order, checked, decided and indexed by
// name; then one pass over the pods claims and checks them and finds the
// node of each bucketed pod; then the buckets are filled.
func (ix *Index) Reset(c *Compiled, nodes []api.Node, pods []api.Pod) error {
	ix.c = c
	ix.updated = ix.updated[:0]
	x := indexer{ix: ix, c: c}
	x.orderNodes(nodes)
	if errs := x.checkNodes(nodes, pods); len(errs) > 0 {
		return errs
	}
	x.decideNodes()
	x.indexNodes()
	x.startPods(pods)
	x.claimPods(pods)
	if errs := x.checkPods(pods); len(errs) > 0 {
		return errs
	}
	x.listTargeted()
	x.fillBuckets()
	x.bucketVanished()
	slices.Sort(ix.adopt)
	slices.Sort(ix.release)
	runtime.KeepAlive(x.prefetched)
	return nil
}

// indexer is what the phases of one Index.Reset share. It lives on
// Reset's stack (escape analysis keeps it there: no phase keeps a pointer
// to it), so the phases allocate only what the Index keeps, as the one
// function they were did.
type indexer struct {
	ix *Index
	c  *Compiled
	// prefetched sums what the read-ahead loops read, so that the reads are
	// not dropped: Reset keeps it alive at the end.
	prefetched int
	// suspect: a node name is empty, not UTF-8 or repeated, and the node
	// list goes to the full check (checkNodes).
	suspect bool
	// indexed: orderNodes put every node in the name index already.
	indexed bool
	// counts[i+1] is the number of pods bucketed on node i, on the array
	// of ix.start, which fillBuckets turns it into.
	counts []int32
	// useHints: each pod position's node in the last snapshot is a hint
	// (see startPods).
	useHints bool
	// batch[:nb] are the bucketed pods whose node resolve finds next.
	batch [prefetchBatch]pending
	nb    int
	// vanished holds, by node name, the bucketed pods of nodes that are
	// not in the list: nil while there are none.
	vanished map[string][]*api.Pod
	// untargeted: some claimed pod has no target node.
	untargeted bool
}

// pending is a bucketed pod whose node is still to be found.
type pending struct {
	pod    *api.Pod
	target string
	pos    int   // the pod's position in the input
	claim  int32 // its position in claimed
	node   int32 // its node, as the last snapshot's hint or the name table finds it
}

// orderNodes points ix.nodes at nodes, in name order. The API server lists
// nodes in name order: the order is checked before sorting, and a list in
// order is not sorted. A name that is empty, not UTF-8 or repeated makes
// the list suspect.
//
// An index built once takes each name as it is checked, while the names
// are in order: the names are read once.
func (x *indexer) orderNodes(nodes []api.Node) {
	ix := x.ix
	ix.nodes = scratch.Resize(ix.nodes, len(nodes))
	for i := range nodes {
		ix.nodes[i] = &nodes[i]
	}
	suspect, sorted := false, true
	early := ix.index.Once
	if early {
		ix.index.Start(len(nodes))
	}
	for i, n := range ix.nodes {
		suspect = suspect || !api.NodeWellFormed(n)
		sorted = sorted && (i == 0 || ix.nodes[i-1].Name < n.Name)
		if early && sorted {
			ix.index.Put(ix.index.Hash(n.Name), i)
		}
	}
	if !sorted {
		var repeats bool
		ix.nodeSort, repeats = scratch.SortByName(ix.nodes, nodeName, ix.nodeSort)
		suspect = suspect || repeats
	}
	x.suspect, x.indexed = suspect, early && sorted
}

// checkNodes returns what api.ValidateNodes finds in a suspect node list,
// and then what api.ValidatePods finds in the pods too, so that a refused
// snapshot reports both lists. A list that is not suspect is valid: its
// names are non-empty, UTF-8 and distinct, all that api.ValidateNodes
// checks, and it is not checked again.
func (x *indexer) checkNodes(nodes []api.Node, pods []api.Pod) field.ErrorList {
	if !x.suspect {
		return nil
	}
	errs := api.ValidateNodes(nodes)
	if len(errs) > 0 && !x.ix.check.Valid(pods) {
		errs = append(errs, api.ValidatePods(pods)...)
	}
	return errs
}

// decideNodes decides every node, a batch at a time: the nodeSelector
// labels of a batch are read first, in a tight loop, so that their cache
// misses overlap, and the usual node (selected, untainted, for a template
// that names no node and requires no affinity) is then eligible without a
// call.
//
// An Index that is Reset keeps what each node with a Version decided
// (memo), and takes a node's decision from there when the node has the
// same name and Version as in the last snapshot and the placement is the
// same (memoKey): its labels are not read. A decision that names a taint
// points into the node's own Taints, and is made again.
func (x *indexer) decideNodes() {
	ix := x.ix
	ix.decisions = scratch.Resize(ix.decisions, len(ix.nodes))
	if ix.index.Once {
		x.decide(ix.nodes, ix.decisions)
		return
	}
	key := placementKey(x.c)
	memo := ix.memo
	if key == "" || key != ix.memoKey {
		memo = nil
	}
	todo, at := ix.todo[:0], ix.todoAt[:0]
	j := 0
	for i, n := range ix.nodes {
		for j < len(memo) && memo[j].name < n.Name {
			j++
		}
		if j < len(memo) && memo[j].name == n.Name && n.Version != "" && memo[j].version == n.Version && memo[j].d.Taint == nil {
			ix.decisions[i] = NodeDecision{Node: n.Name, Decision: memo[j].d}
			continue
		}
		todo, at = append(todo, n), append(at, int32(i))
	}
	if len(todo) == len(ix.nodes) {
		x.decide(ix.nodes, ix.decisions)
	} else {
		decided := scratch.Resize(ix.decided, len(todo))
		x.decide(todo, decided)
		for k, i := range at {
			ix.decisions[i] = decided[k]
		}
		clear(decided)
		ix.decided = decided[:0]
	}
	clear(todo)
	ix.todo, ix.todoAt = todo[:0], at[:0]
	next := ix.spareMemo[:0]
	for i, n := range ix.nodes {
		if n.Version != "" {
			next = append(next, nodeMemo{name: n.Name, version: n.Version, d: ix.decisions[i].Decision})
		}
	}
	clearAll(ix.memo)
	ix.memo, ix.spareMemo, ix.memoKey = next, ix.memo[:0], key
}

// decide decides nodes into out, a batch at a time (see decideNodes).
func (x *indexer) decide(nodes []*api.Node, out []NodeDecision) {
	elig := x.c.elig
	prefetched := 0
	var failed [prefetchBatch]int
	for lo := 0; lo < len(nodes); lo += prefetchBatch {
		hi := min(lo+prefetchBatch, len(nodes))
		prefetched += elig.selectBatch(nodes[lo:hi], failed[:hi-lo])
		for i, n := range nodes[lo:hi] {
			d := eligible
			if !elig.eligibleAfterSelect(n, failed[i]) {
				d = elig.decideSelected(n, failed[i])
			}
			out[lo+i] = NodeDecision{Node: n.Name, Decision: d}
		}
	}
	x.prefetched += prefetched
}

// placementKey is what a node's decision depends on besides the node: the
// DaemonSet's template nodeName, nodeSelector, required node affinity,
// tolerations and hostNetwork, and the options, written out.
func placementKey(c *Compiled) string {
	t := &c.ds.Template
	b, err := json.Marshal(struct {
		NodeName     string
		NodeSelector map[string]string
		Affinity     *api.NodeSelector
		Tolerations  []api.Toleration
		HostNetwork  bool
		Opts         Options
	}{t.NodeName, t.NodeSelector, t.RequiredNodeAffinity, t.Tolerations, t.HostNetwork, c.opts})
	if err != nil {
		// Plain data always encodes; should it not, nothing is kept.
		return ""
	}
	return string(b)
}

// indexNodes builds the name index of the nodes, in name order, unless
// orderNodes put them in already. A reused Index's index is rebuilt only
// when the names changed (NodeIndex.Build).
func (x *indexer) indexNodes() {
	if !x.indexed {
		x.ix.index.Build(x.ix.nodes)
	}
}

// startPods empties what the Index held of the last snapshot's pods and
// sizes the lists for pods, of which nearly every one is usually claimed,
// targeted and bucketed: they are sized once.
//
// A pod at the same position as in the last snapshot, targeting the same
// node, is usually the same pod: a Index that is Reset keeps each
// position's node as a hint, which resolve checks before the name table,
// while the pod list keeps its length. An index built once takes none.
func (x *indexer) startPods(pods []api.Pod) {
	ix := x.ix
	ix.bucketed, ix.claimed = ix.bucketed[:0], ix.claimed[:0]
	ix.adopt, ix.release = nil, nil
	ix.vanished = nil
	ix.byName, ix.sorted = ix.byName[:0], 0
	ix.podsIn = pods
	ix.isBucket = scratch.Resize(ix.isBucket, (len(pods)+63)/64)
	clear(ix.isBucket)
	ix.keep.Reset()
	x.counts = scratch.Resize(ix.start, len(ix.nodes)+1)
	clear(x.counts)
	if cap(ix.claimed) < len(pods) {
		ix.claimed = make([]*api.Pod, 0, len(pods))
	}
	if cap(ix.bucketed) < len(pods) {
		ix.bucketed = make([]placed, 0, len(pods))
	}
	x.useHints = !ix.index.Once && len(ix.hints) == len(pods)
	if !x.useHints && !ix.index.Once {
		ix.hints = scratch.Resize(ix.hints, len(pods))
		clear(ix.hints)
	}
}

// claimPods claims the pods (Compiled.Claim), lists the adopted and the
// released, and hands each bucketed pod to resolve: a claimed pod with a
// target node, unless it is terminal and being deleted. It goes a batch
// at a time, reading ahead the labels and owners of a batch (prefetchPods),
// and resolves each batch once it is claimed, so that the cache misses of
// a batch overlap.
//
// The pod list is checked in the same pass, with the check api.ValidatePods
// would make (scratch.PodCheck): the pods are read once.
func (x *indexer) claimPods(pods []api.Pod) {
	ix, c := x.ix, x.c
	prefetched := 0
	var selected [prefetchBatch]int8
	ix.check.Start(len(pods))
	for lo := 0; lo < len(pods); lo += prefetchBatch {
		hi := min(lo+prefetchBatch, len(pods))
		prefetched += c.prefetchPods(pods[lo:hi], selected[:hi-lo])
		for i := lo; i < hi; i++ {
			ix.check.Add(pods, i)
			p := &pods[i]
			switch c.claim(p, selected[i-lo]) {
			case Owned:
			case Adopted:
				ix.adopt = append(ix.adopt, p.Name)
			case Released:
				ix.release = append(ix.release, p.Name)
				continue
			default:
				continue
			}
			ix.claimed = append(ix.claimed, p)
			target, err := api.TargetNodeName(p)
			if err != nil {
				x.untargeted = true
				continue
			}
			if p.Deleting && api.IsTerminal(p) {
				continue
			}
			x.batch[x.nb] = pending{pod: p, target: target, pos: i, claim: int32(len(ix.claimed) - 1)}
			x.nb++
		}
		x.resolve()
	}
	x.prefetched += prefetched
}

// prefetchPods looks up, for a few pods, a label the selector reads and their
// owner's UID, as Eligibility.prefetch does for nodes. With a one-label
// selector it matches it: selected[i] is then 1 when pods[i] carries the
// label, 0 when not; otherwise -1, for the claim to match the selector.
func (c *Compiled) prefetchPods(pods []api.Pod, selected []int8) int {
	n := 0
	for i := range pods {
		selected[i] = -1
		if c.oneLabel {
			v, ok := pods[i].Labels[c.labelKey]
			selected[i] = 0
			if ok && v == c.labelWant {
				selected[i] = 1
			}
		} else if c.prefetchKey != "" {
			n += len(pods[i].Labels[c.prefetchKey])
		}
		if o := pods[i].Controller; o != nil {
			n += len(o.UID)
		}
	}
	return n
}

// resolve finds the node of each pod in the batch (-1 for a node not in
// the list), buckets the pod, counts it for its node or files it under its
// vanished node's name, keeps its node as the next snapshot's hint, and
// empties the batch. It reads ahead in tight loops, so that the misses of
// the batch overlap: the hinted node or each pod's slot in the name table,
// then the node it names, then that node's name.
func (x *indexer) resolve() {
	ix, useHints := x.ix, x.useHints
	batch := x.batch[:x.nb]
	prefetched := 0
	var h [prefetchBatch]uint64
	for j := range batch {
		q := &batch[j]
		q.node = -1
		if useHints {
			if hint := ix.hints[q.pos] - 1; hint >= 0 && int(hint) < len(ix.nodes) {
				q.node = hint
				continue
			}
		}
		h[j] = ix.index.Hash(q.target)
		q.node = ix.index.First(h[j])
	}
	for j := range batch {
		if n := batch[j].node; n >= 0 {
			prefetched += len(ix.nodes[n].Name)
		}
	}
	for j := range batch {
		if n := batch[j].node; n >= 0 && len(ix.nodes[n].Name) > 0 {
			prefetched += int(ix.nodes[n].Name[0])
		}
	}
	for j, q := range batch {
		ni := q.node
		if ni < 0 || ix.nodes[ni].Name != q.target {
			if useHints && h[j] == 0 {
				h[j] = ix.index.Hash(q.target)
			}
			ni = ix.index.Lookup(ix.nodes, q.target, h[j])
		}
		if !ix.index.Once {
			ix.hints[q.pos] = ni + 1
		}
		ix.bucketed = append(ix.bucketed, placed{claim: q.claim, node: ni})
		ix.isBucket[q.pos/64] |= 1 << (q.pos % 64)
		if ni < 0 {
			if x.vanished == nil {
				x.vanished = map[string][]*api.Pod{}
			}
			x.vanished[q.target] = append(x.vanished[q.target], q.pod)
			continue
		}
		x.counts[ni+1]++
	}
	x.nb = 0
	x.prefetched += prefetched
}

// checkPods finishes the pod list's check claimPods made, and returns what
// api.ValidatePods finds when the check doubts the list: it is called only
// then, for the findings. A list that passed came in (namespace, name)
// order or not: in order, as from the API server, the claimed pods, which
// share the DaemonSet's namespace, are in name order, and Keep need not
// sort them.
func (x *indexer) checkPods(pods []api.Pod) field.ErrorList {
	ix := x.ix
	if !ix.check.Done(pods) {
		if errs := api.ValidatePods(pods); len(errs) > 0 {
			return errs
		}
	}
	if ix.check.Sorted() {
		ix.sorted = 1
	}
	return nil
}

// listTargeted lists the claimed pods that have a target node, whose
// revision hashes keep revisions alive. Claimed pods nearly always have
// one: the list is then claimed itself, and is made apart only when
// claimPods met a pod without.
func (x *indexer) listTargeted() {
	ix := x.ix
	ix.targeted = ix.claimed
	if x.untargeted {
		ix.untarget = ix.untarget[:0]
		for _, p := range ix.claimed {
			if _, err := api.TargetNodeName(p); err == nil {
				ix.untarget = append(ix.untarget, p)
			}
		}
		ix.targeted = ix.untarget
	}
}

// fillBuckets puts the bucketed pods of the listed nodes into one flat
// slice by a counting sort on the counts resolve made, node i's pods at
// pods[start[i]:start[i+1]], and orders each bucket that holds more than
// one pod oldest first (OlderPod). start[i+1] serves as node i's fill
// cursor, and ends as node i+1's start.
func (x *indexer) fillBuckets() {
	ix := x.ix
	ix.start = x.counts
	for i := 1; i < len(ix.start); i++ {
		ix.start[i] += ix.start[i-1]
	}
	n := 0
	if len(ix.start) > 0 {
		n = int(ix.start[len(ix.start)-1])
	}
	ix.pods = scratch.Resize(ix.pods, n)
	for i := len(ix.start) - 1; i > 0; i-- {
		ix.start[i] = ix.start[i-1]
	}
	for _, pl := range ix.bucketed {
		if pl.node >= 0 {
			ix.pods[ix.start[pl.node+1]] = ix.claimed[pl.claim]
			ix.start[pl.node+1]++
		}
	}
	for i := range ix.nodes {
		if b := ix.pods[ix.start[i]:ix.start[i+1]]; len(b) > 1 {
			slices.SortFunc(b, OlderPod)
		}
	}
}

// bucketVanished makes a Bucket, oldest pod first, of each node that pods
// target but the node list lacks, sorted by node name: Manage deletes
// their unbound pods (M12).
func (x *indexer) bucketVanished() {
	if len(x.vanished) == 0 {
		return
	}
	ix := x.ix
	ix.vanished = make([]Bucket, 0, len(x.vanished))
	for name, ps := range x.vanished {
		slices.SortFunc(ps, OlderPod)
		ix.vanished = append(ix.vanished, Bucket{Node: name, Pods: ps})
	}
	slices.SortFunc(ix.vanished, func(a, b Bucket) int { return strings.Compare(a.Node, b.Node) })
}
