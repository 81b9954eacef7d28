package placement

import (
	"errors"
	"strconv"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
	"github.com/daemonplan/daemonplan/internal/base/enum"
	"github.com/daemonplan/daemonplan/internal/base/scratch"
	"github.com/daemonplan/daemonplan/selector"
	"github.com/daemonplan/daemonplan/taints"
)

// DefaultBurstReplicas is upstream's limit on creates and on deletes issued
// by one sync.
const DefaultBurstReplicas = 250

// Options are the switches of the planner. The zero value is upstream's
// behaviour (v1.34 to v1.37, which decide alike).
type Options struct {
	// BurstReplicas caps creates and, separately, deletes per plan; 0 means
	// DefaultBurstReplicas.
	BurstReplicas int
	// Taints configures toleration matching (Lt/Gt operators).
	Taints taints.Options
	// IgnoredDuringExecution keeps the pods of a node whose labels no
	// longer match the template's nodeSelector or required node affinity,
	// as the affinity's API name (requiredDuringSchedulingIgnoredDuring-
	// Execution) promises: see Eligibility.Decide. Off, the default, is
	// upstream's behaviour, which deletes them (kubernetes/kubernetes
	// issues 104984 and 129196).
	IgnoredDuringExecution bool
}

// Burst is the cap on creates, and separately on deletes, of one plan.
func (o Options) Burst() int {
	if o.BurstReplicas <= 0 {
		return DefaultBurstReplicas
	}
	return o.BurstReplicas
}

// Compiled is a DaemonSet compiled once for many decisions: its selector,
// its node predicate and its template generation. Get one from [Compile]: a
// nil *Compiled is not usable, and its methods panic.
type Compiled struct {
	ds          *api.DaemonSet
	opts        Options
	selector    selector.Selector
	elig        *Eligibility
	gen         *int64
	genLabel    string // *gen in decimal, the pod-template-generation label value
	surge       bool   // AllowsSurge(ds)
	prefetchKey string // a label the selector looks up, "" if none: see prefetchPods
	// oneLabel reports a selector that is one label and value (key=value),
	// as DaemonSet selectors nearly always are: prefetchPods then matches it
	// while it reads ahead, and the claim does not look it up again.
	oneLabel            bool
	labelKey, labelWant string
}

// Compile checks and compiles ds. It fails when ds is nil or when the
// DaemonSet's selector cannot be parsed (upstream's sync fails the same way); node
// eligibility alone never fails, see [NewEligibility]. ds is read, never
// changed, and must not be changed while the result is in use.
func Compile(ds *api.DaemonSet, opts Options) (*Compiled, error) {
	if ds == nil {
		return nil, errors.New("placement.Compile: nil DaemonSet")
	}
	sel, err := selector.Compile(ds.Selector)
	if err != nil {
		var fe field.ErrorList
		if errors.As(err, &fe) {
			return nil, fe.Prefix("spec.selector")
		}
		return nil, err
	}
	c := &Compiled{ds: ds, opts: opts, selector: sel, elig: NewEligibility(ds, opts), gen: api.TemplateGeneration(ds), surge: AllowsSurge(ds)}
	if c.gen != nil {
		c.genLabel = strconv.FormatInt(*c.gen, 10)
	}
	if reqs := sel.Requirements(); len(reqs) == 1 && len(reqs[0].Values) == 1 {
		switch reqs[0].Operator {
		case api.SelectorOpIn, selector.Equals, selector.DoubleEquals:
			c.oneLabel, c.labelKey, c.labelWant = true, reqs[0].Key, reqs[0].Values[0]
		}
	}
	if ds.Selector != nil {
		for k := range ds.Selector.MatchLabels {
			if c.prefetchKey == "" || k < c.prefetchKey {
				c.prefetchKey = k
			}
		}
	}
	return c, nil
}

// Options returns the options c was compiled with.
func (c *Compiled) Options() Options { return c.opts }

// DaemonSet returns the snapshot c was compiled from.
func (c *Compiled) DaemonSet() *api.DaemonSet { return c.ds }

// Decide evaluates one node; see [Eligibility.Decide]. n must not be nil.
func (c *Compiled) Decide(n *api.Node) Decision {
	if n == nil {
		panic("placement.Compiled.Decide: nil node")
	}
	return c.elig.Decide(n)
}

// Selects reports whether the DaemonSet's selector matches labels.
func (c *Compiled) Selects(labels map[string]string) bool { return c.selector.Matches(labels) }

// TemplateGeneration is the DaemonSet's template generation, nil if unknown.
func (c *Compiled) TemplateGeneration() *int64 { return c.gen }

// IsUpdated is api.IsUpdated(p, hash, c.TemplateGeneration()) with the
// generation rendered once, at [Compile], instead of at every call.
func (c *Compiled) IsUpdated(p *api.Pod, hash string) bool {
	if hash != "" {
		if h, ok := p.Labels[api.LabelRevisionHash]; ok && h == hash {
			return true
		}
	}
	if c.gen != nil {
		if g, ok := p.Labels[api.LabelTemplateGeneration]; ok && g == c.genLabel {
			return true
		}
	}
	return false
}

// Ownership is how a DaemonSet's claim (upstream: ClaimObject, through
// getDaemonPods) treats one pod.
type Ownership uint8

// The outcomes of Claim.
const (
	// Ignored: another namespace, another controller, or an orphan the
	// DaemonSet does not adopt.
	Ignored Ownership = iota + 1
	// Owned: controlled by the DaemonSet and selected by it.
	Owned
	// Adopted: an orphan the DaemonSet selects and adopts.
	Adopted
	// Released: controlled by the DaemonSet but no longer selected; the
	// DaemonSet removes its owner reference and stops counting it.
	Released
	// Unselected: controlled by the DaemonSet, not selected, and not
	// released because the DaemonSet is being deleted.
	Unselected
)

var ownershipNames = [...]string{
	Ignored:    "Ignored",
	Owned:      "Owned",
	Adopted:    "Adopted",
	Released:   "Released",
	Unselected: "Unselected",
}

// String returns the outcome's stable name.
func (o Ownership) String() string {
	return enum.Name(ownershipNames[:], int(o), "Ownership")
}

// Claim decides what the DaemonSet does with pod p (docs/manage.md, M3):
//
//  1. a pod in another namespace, or controlled by another owner (by UID;
//     an owner reference with an empty UID is nobody's, and a DaemonSet
//     without a UID owns no pod), is [Ignored];
//  2. a pod it controls is [Owned] while its selector matches the labels;
//     otherwise [Released], or [Unselected] when the DaemonSet is being
//     deleted;
//  3. an orphan that matches is [Adopted] unless the DaemonSet or the pod is
//     being deleted, or the DaemonSet has no UID (the owner reference it
//     would write could never match it again; upstream's adoption checks
//     the UID first); otherwise, like every orphan that does not match,
//     it is [Ignored].
//
// [Owned] and [Adopted] pods are claimed: they count for the DaemonSet.
func (c *Compiled) Claim(p *api.Pod) Ownership { return c.claim(p, -1) }

// claim is Claim given whether the selector selects p: 1 yes, 0 no, -1 not
// known yet.
func (c *Compiled) claim(p *api.Pod, selected int8) Ownership {
	ds := c.ds
	if p.Namespace != ds.Namespace {
		return Ignored
	}
	matches := selected == 1 || selected < 0 && c.selector.Matches(p.Labels)
	switch {
	case p.Controller != nil && !ownedBy(p.Controller, ds):
		return Ignored
	case p.Controller != nil:
		switch {
		case matches:
			return Owned
		case ds.Deleting:
			return Unselected
		}
		return Released
	case ds.UID == "" || ds.Deleting || !matches || p.Deleting:
		return Ignored
	}
	return Adopted
}

// Index is one snapshot indexed for a sync: nodes in name order with
// their decisions, and the DaemonSet's claimed pods bucketed by target node.
// It holds pointers into the caller's slices, which must not change while
// it is in use; it changes nothing itself. Get one from [Compiled.Index],
// or Reset a zero Index: a nil *Index is not usable, and its methods
// panic. A zero Index holds no snapshot until Reset: Manage then returns
// an error and Status the zero Status.
//
// A Index made by Index is used once. Reset indexes another snapshot
// into the same Index and reuses its memory, so that a caller who plans
// again and again ([github.com/daemonplan/daemonplan.Planner]) allocates in
// proportion to the writes of a plan, not to the size of the cluster. Every
// slice a Index returns, directly or inside a [ManagePlan], stays valid until its
// next Reset. A Index is not safe for concurrent use: Keep and IsUpdated keep
// scratch memory in it.
type Index struct {
	c         *Compiled
	nodes     []*api.Node    // sorted by name
	decisions []NodeDecision // parallel to nodes
	pods      []*api.Pod     // claimed pods grouped by node index, each group oldest first
	start     []int32        // pods of node i are pods[start[i]:start[i+1]]
	vanished  []Bucket       // buckets of nodes not in the node list, by node name
	claimed   []*api.Pod     // every claimed pod, including terminal-and-deleting ones
	targeted  []*api.Pod     // claimed pods with a target node, terminal-and-deleting included: claimed itself when every claimed pod has one
	adopt     []string
	release   []string

	// Scratch memory kept across Reset.
	bucketed []placed                   // the pods in buckets (vanished ones included), in input order
	untarget []*api.Pod                 // targeted's own array, when some claimed pod has no target
	byName   []*api.Pod                 // the bucketed pods sorted by name, built by Keep when input order is not
	sorted   int8                       // whether bucketed is in name order: 0 unknown, 1 yes, -1 no
	index    scratch.NodeIndex          // node name → position in nodes
	keep     scratch.Arena              // backing store of Keep's results
	check    scratch.PodCheck           // the pod list's check
	hints    []int32                    // per pod position, its node in the last snapshot, +1; 0 when none
	nodeSort []scratch.Keyed[*api.Node] // SortByName's scratch for the nodes
	podsIn   []api.Pod                  // the snapshot's pods, for byName
	isBucket []uint64                   // a bit per position in podsIn: the pod is bucketed
	updated  []uint8                    // per position in pods, IsUpdated's answer for updHash: 0 not asked yet, 1 no, 2 yes; empty until asked after a Reset
	updHash  string                     // the hash updated holds answers for
	// memo is, in name order, what each node of the last snapshot with a
	// Version decided, for an Index that is Reset (see decideNodes);
	// memoKey is the placement it was decided for.
	memo, spareMemo []nodeMemo
	memoKey         string
	// todo are the nodes decideNodes decides again, todoAt their
	// positions, decided their decisions.
	todo    []*api.Node
	todoAt  []int32
	decided []NodeDecision
	// manage and deleteBuf are Manage's per-node results and scratch.
	manage    ManageLists
	deleteBuf []Delete
}

// nodeMemo is what one node, by name and Version, decided.
type nodeMemo struct {
	name, version string
	d             Decision
}

// prefetchBatch is how many nodes or pods an index pass looks ahead: enough for
// their cache misses to overlap.
const prefetchBatch = 16

// placed is a bucketed pod, by its position in claimed, and the index of
// its node, -1 for a vanished node. It holds no pointer: the collector
// does not scan the list.
type placed struct {
	claim int32
	node  int32
}

// bucketedPod returns the i-th bucketed pod.
func (ix *Index) bucketedPod(i int) *api.Pod { return ix.claimed[ix.bucketed[i].claim] }

// Index builds the Index for nodes and pods (upstream: getNodesToDaemonPods,
// ClaimObject; docs/manage.md, M3 and M5):
//
//  1. each pod is claimed or not as Claim says: [Owned] and [Adopted] pods are
//     claimed; [Released] pods are listed for release (Release); the others
//     are ignored (other namespaces, other owners, an owner reference
//     with an empty UID, orphans a DaemonSet without a UID or being
//     deleted does not adopt);
//  2. claimed pods are bucketed by TargetNodeName; pods without a target
//     are ignored, and pods both terminal and being deleted stay out of the
//     buckets (they still count as claimed, for revision cleanup).
//
// nodes and pods must each be a snapshot of distinct objects: a list that
// [api.ValidateNodes] or [api.ValidatePods] refuses is an error (that
// [field.ErrorList]), so that no object is planned twice.
func (c *Compiled) Index(nodes []api.Node, pods []api.Pod) (*Index, error) {
	ix := &Index{index: scratch.NodeIndex{Once: true}}
	if err := ix.Reset(c, nodes, pods); err != nil {
		return nil, err
	}
	return ix, nil
}

// ownedBy reports whether ref names ds: equal UIDs, never an empty one.
func ownedBy(ref *api.OwnerRef, ds *api.DaemonSet) bool {
	return ref.UID != "" && ref.UID == ds.UID
}

func nodeName(n *api.Node) string { return n.Name }

// Forget drops the [Index]'s references to its snapshot (the caller's
// nodes, pods and their names, and the DaemonSet) and keeps its memory for
// the next Reset, so that a Index kept for later, in a pool say, keeps
// no snapshot alive. From then on the Index indexes as one made by Index
// does, taking nothing from one snapshot to the next (a reused Index
// takes each pod's node in the last snapshot as a hint). Every slice the
// Index returned before is cleared. Reset it before using it again.
func (ix *Index) Forget() {
	clearAll(ix.nodes)
	clearAll(ix.decisions)
	clearAll(ix.pods)
	clearAll(ix.claimed)
	clearAll(ix.untarget)
	clearAll(ix.byName)
	ix.keep.Forget()
	ix.index.Forget()
	ix.c, ix.podsIn, ix.vanished, ix.targeted, ix.adopt, ix.release = nil, nil, nil, nil, nil, nil
	// The next snapshot is another: index it as Index indexes a new one
	// (index.Forget made the index one built once), taking no hint from
	// this one.
	ix.hints = nil
	clearAll(ix.memo)
	clearAll(ix.spareMemo)
	ix.memo, ix.memoKey = ix.memo[:0], ""
}

// clearAll zeroes s up to its capacity: what lies past its length may
// still hold pointers from a larger snapshot.
func clearAll[T any](s []T) { clear(s[:cap(s)]) }

// Compiled returns the DaemonSet the cluster was indexed for.
func (ix *Index) Compiled() *Compiled { return ix.c }

// NodeDecisions returns the decision for every node, in name order. The
// slice is shared: do not modify it.
func (ix *Index) NodeDecisions() []NodeDecision { return ix.decisions }

// podsOn returns the claimed pods targeting the i-th node, oldest first.
func (ix *Index) podsOn(i int) []*api.Pod { return ix.pods[ix.start[i]:ix.start[i+1]] }

// useHash makes hash the one the remembered answers of isUpdated are
// for, forgetting them if they were for another.
func (ix *Index) useHash(hash string) {
	if len(ix.updated) != len(ix.pods) || hash != ix.updHash {
		ix.updated = scratch.Resize(ix.updated, len(ix.pods))
		clear(ix.updated)
		ix.updHash = hash
	}
}

// isUpdated reports whether the j-th pod on the i-th node, podsOn(i)[j],
// is of the current template (Compiled.IsUpdated with hash). A sync asks it
// of the same pods in the rolling update and again in the status, and for
// an outdated pod the answer takes two label lookups: the Index keeps
// each answer until the next Reset or a call with another hash.
func (ix *Index) isUpdated(i, j int, hash string) bool {
	ix.useHash(hash)
	p := ix.podsOn(i)[j] // out of range as podsOn(i)[j] is
	k := int(ix.start[i]) + j
	switch ix.updated[k] {
	case 1:
		return false
	case 2:
		return true
	}
	up := ix.c.IsUpdated(p, hash)
	ix.updated[k] = 1
	if up {
		ix.updated[k] = 2
	}
	return up
}

// Vanished returns the buckets of nodes that are not in the node list, by
// node name. The slices are shared: do not modify them.
func (ix *Index) Vanished() []Bucket { return ix.vanished }

// Claimed returns every pod the DaemonSet claims (adopted ones included),
// in input order, including terminal pods being deleted and pods without a
// target node.
func (ix *Index) Claimed() []*api.Pod { return ix.claimed }

// Targeted returns the claimed pods that have a target node, in input
// order, terminal pods being deleted included: the pods whose revision
// hashes keep revisions alive (docs/history.md, H13).
func (ix *Index) Targeted() []*api.Pod { return ix.targeted }

// Adopt returns the names of orphans the DaemonSet adopts, sorted.
func (ix *Index) Adopt() []string { return ix.adopt }

// Release returns the names of pods the DaemonSet releases, sorted.
func (ix *Index) Release() []string { return ix.release }
