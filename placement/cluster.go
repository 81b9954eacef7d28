package placement

import (
	"errors"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
	"github.com/daemonplan/daemonplan/selector"
	"github.com/daemonplan/daemonplan/taints"
)

// DefaultBurstReplicas is upstream's limit on creates and on deletes issued
// by one sync.
const DefaultBurstReplicas = 250

// Options are the switches of the planner. The zero value is upstream's
// v1.34 behaviour.
type Options struct {
	// BurstReplicas caps creates and, separately, deletes per plan; 0 means
	// DefaultBurstReplicas.
	BurstReplicas int
	// Taints configures toleration matching (Lt/Gt operators).
	Taints taints.Options
}

// Burst is the cap on creates, and separately on deletes, of one plan.
func (o Options) Burst() int {
	if o.BurstReplicas <= 0 {
		return DefaultBurstReplicas
	}
	return o.BurstReplicas
}

// Compiled is a DaemonSet compiled once for many decisions: its selector,
// its node predicate and its template generation. Get one from Compile: a
// nil *Compiled is not usable, and its methods panic.
type Compiled struct {
	ds       *api.DaemonSet
	opts     Options
	selector selector.Selector
	elig     *Eligibility
	gen      *int64
}

// Compile checks and compiles ds. It fails only when the DaemonSet's
// selector cannot be parsed (upstream's sync fails the same way); node
// eligibility alone never fails, see NewEligibility. ds is read, never
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
	return &Compiled{ds: ds, opts: opts, selector: sel, elig: NewEligibility(ds, opts), gen: api.TemplateGeneration(ds)}, nil
}

// Options returns the options c was compiled with.
func (c *Compiled) Options() Options { return c.opts }

// DaemonSet returns the snapshot c was compiled from.
func (c *Compiled) DaemonSet() *api.DaemonSet { return c.ds }

// Decide evaluates one node; see Eligibility.Decide. n must not be nil.
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

// Bucket is the DaemonSet's pods that target one node, oldest first
// (scheduled before unscheduled, then by creation time, then by name).
type Bucket struct {
	Node string
	Pods []*api.Pod
}

// Cluster is one snapshot indexed for a sync: nodes in name order with
// their decisions, and the DaemonSet's claimed pods bucketed by target node.
// It holds pointers into the caller's slices, which must not change while
// it is in use; it changes nothing itself. Get one from Compiled.Index: a
// nil *Cluster is not usable, and its methods panic.
type Cluster struct {
	c         *Compiled
	nodes     []*api.Node    // sorted by name
	decisions []NodeDecision // parallel to nodes
	pods      []*api.Pod     // claimed pods grouped by node index, each group oldest first
	start     []int32        // pods of node i are pods[start[i]:start[i+1]]
	vanished  []Bucket       // buckets of nodes not in the node list, by node name
	claimed   []*api.Pod     // every claimed pod, including terminal-and-deleting ones
	targeted  []*api.Pod     // claimed pods with a target node, terminal-and-deleting included
	adopt     []string
	release   []string
}

// Index builds the Cluster for nodes and pods (upstream: getNodesToDaemonPods,
// ClaimObject; docs/manage.md, M3 and M5):
//
//  1. pods in other namespaces, and pods controlled by another owner, are
//     ignored; a controller reference with an empty UID is nobody's, and
//     a DaemonSet without a UID owns no pod;
//  2. pods controlled by the DaemonSet whose labels no longer match the
//     selector are released (unless the DaemonSet is being deleted);
//  3. orphans that match are adopted, unless the DaemonSet or the pod is
//     being deleted, or the DaemonSet has no UID (the owner reference it
//     would write could never match it again; upstream's adoption checks
//     the UID first);
//  4. claimed pods are bucketed by TargetNodeName; pods without a target
//     are ignored, and pods both terminal and being deleted stay out of the
//     buckets (they still count as claimed, for revision cleanup).
//
// nodes and pods must each be a snapshot of distinct objects: a list that
// api.ValidateNodes or api.ValidatePods refuses is an error (that
// field.ErrorList), so that no object is planned twice.
func (c *Compiled) Index(nodes []api.Node, pods []api.Pod) (*Cluster, error) {
	// The node map is needed below anyway: filling it tells whether the
	// node list needs the full check.
	nodeIndex := make(map[string]int32, len(nodes))
	suspect := false
	for i := range nodes {
		name := nodes[i].Name
		suspect = suspect || name == "" || !utf8.ValidString(name)
		nodeIndex[name] = int32(i)
	}
	var errs field.ErrorList
	if suspect || len(nodeIndex) != len(nodes) {
		errs = api.ValidateNodes(nodes)
	}
	if errs = append(errs, api.ValidatePods(pods)...); len(errs) > 0 {
		return nil, errs
	}
	ds := c.ds
	cl := &Cluster{c: c}
	cl.nodes = make([]*api.Node, len(nodes))
	for i := range nodes {
		cl.nodes[i] = &nodes[i]
	}
	if !slices.IsSortedFunc(cl.nodes, byNodeName) {
		slices.SortFunc(cl.nodes, byNodeName)
	}
	cl.decisions = make([]NodeDecision, len(cl.nodes))
	for i, n := range cl.nodes {
		cl.decisions[i] = NodeDecision{Node: n.Name, Decision: c.elig.Decide(n)}
		nodeIndex[n.Name] = int32(i)
	}

	// First pass: claim, and find each bucketed pod's node index (or -1 for
	// a vanished node).
	type placed struct {
		pod  *api.Pod
		node int32
	}
	inBuckets := make([]placed, 0, len(pods))
	counts := make([]int32, len(cl.nodes)+1)
	// Nearly every pod is usually claimed and targeted: size the lists once.
	cl.claimed = make([]*api.Pod, 0, len(pods))
	cl.targeted = make([]*api.Pod, 0, len(pods))
	var vanished map[string][]*api.Pod
	for i := range pods {
		p := &pods[i]
		if p.Namespace != ds.Namespace {
			continue
		}
		matches := c.selector.Matches(p.Labels)
		switch {
		case p.Controller != nil && !ownedBy(p.Controller, ds):
			continue
		case p.Controller != nil:
			if !matches {
				if !ds.Deleting {
					cl.release = append(cl.release, p.Name)
				}
				continue
			}
		default:
			if ds.UID == "" || ds.Deleting || !matches || p.Deleting {
				continue
			}
			cl.adopt = append(cl.adopt, p.Name)
		}
		cl.claimed = append(cl.claimed, p)
		target, err := api.TargetNodeName(p)
		if err != nil {
			continue
		}
		cl.targeted = append(cl.targeted, p)
		if api.IsTerminal(p) && p.Deleting {
			continue
		}
		ni, ok := nodeIndex[target]
		if !ok {
			if vanished == nil {
				vanished = map[string][]*api.Pod{}
			}
			vanished[target] = append(vanished[target], p)
			continue
		}
		inBuckets = append(inBuckets, placed{pod: p, node: ni})
		counts[ni+1]++
	}

	// Second pass: a counting sort into one flat slice, then order each
	// bucket that holds more than one pod.
	cl.start = counts
	for i := 1; i < len(cl.start); i++ {
		cl.start[i] += cl.start[i-1]
	}
	cl.pods = make([]*api.Pod, len(inBuckets))
	fill := make([]int32, len(cl.nodes))
	for _, pl := range inBuckets {
		cl.pods[cl.start[pl.node]+fill[pl.node]] = pl.pod
		fill[pl.node]++
	}
	for i := range cl.nodes {
		if b := cl.pods[cl.start[i]:cl.start[i+1]]; len(b) > 1 {
			slices.SortFunc(b, olderPod)
		}
	}
	if len(vanished) > 0 {
		cl.vanished = make([]Bucket, 0, len(vanished))
		for name, ps := range vanished {
			slices.SortFunc(ps, olderPod)
			cl.vanished = append(cl.vanished, Bucket{Node: name, Pods: ps})
		}
		slices.SortFunc(cl.vanished, func(a, b Bucket) int { return strings.Compare(a.Node, b.Node) })
	}
	slices.Sort(cl.adopt)
	slices.Sort(cl.release)
	return cl, nil
}

// ownedBy reports whether ref names ds: equal UIDs, never an empty one.
func ownedBy(ref *api.OwnerRef, ds *api.DaemonSet) bool {
	return ref.UID != "" && ref.UID == ds.UID
}

func byNodeName(a, b *api.Node) int { return strings.Compare(a.Name, b.Name) }

// Compiled returns the DaemonSet the cluster was indexed for.
func (cl *Cluster) Compiled() *Compiled { return cl.c }

// NumNodes is the number of nodes in the snapshot.
func (cl *Cluster) NumNodes() int { return len(cl.nodes) }

// Node returns the i-th node in name order.
func (cl *Cluster) Node(i int) *api.Node { return cl.nodes[i] }

// Decision returns the decision for the i-th node in name order.
func (cl *Cluster) Decision(i int) Decision { return cl.decisions[i].Decision }

// NodeDecisions returns the decision for every node, in name order. The
// slice is shared: do not modify it.
func (cl *Cluster) NodeDecisions() []NodeDecision { return cl.decisions }

// PodsOn returns the claimed pods targeting the i-th node, oldest first.
// The slice is shared: do not modify it.
func (cl *Cluster) PodsOn(i int) []*api.Pod { return cl.pods[cl.start[i]:cl.start[i+1]] }

// Vanished returns the buckets of nodes that are not in the node list, by
// node name. The slices are shared: do not modify them.
func (cl *Cluster) Vanished() []Bucket { return cl.vanished }

// Claimed returns every pod the DaemonSet claims (adopted ones included),
// in input order, including terminal pods being deleted and pods without a
// target node.
func (cl *Cluster) Claimed() []*api.Pod { return cl.claimed }

// Targeted returns the claimed pods that have a target node, in input
// order, terminal pods being deleted included: the pods whose revision
// hashes keep revisions alive (docs/history.md, H13).
func (cl *Cluster) Targeted() []*api.Pod { return cl.targeted }

// Adopt returns the names of orphans the DaemonSet adopts, sorted.
func (cl *Cluster) Adopt() []string { return cl.adopt }

// Release returns the names of pods the DaemonSet releases, sorted.
func (cl *Cluster) Release() []string { return cl.release }
