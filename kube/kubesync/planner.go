package kubesync

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/load"
)

// Planner runs syncs as [Sync] does, on snapshots of the same objects
// again and again, as a controller's listers return them, and keeps from
// one sync to the next what each node and pod converted to. Its plans are
// exactly Sync's.
//
// An object is the same as at the last sync when it is the very object that
// sync read (the same pointer: an informer's cache hands out an object
// until a write replaces it with a new one), or has the same UID, namespace,
// name and metadata.resourceVersion (a copy, or the object decoded again):
// the API server gives an object a new resourceVersion at every write, and
// an informer's objects carry it. Such an object is not converted again. A
// known UID and resourceVersion under another name is another object (the
// conversion holds the name), converted as new. An object without a UID or
// without a resourceVersion is converted at every sync. Objects must not be
// changed in place after a sync read them (an informer's are read-only): a
// changed object is a new object with a new resourceVersion. One changed
// without a new resourceVersion (client-go's fake object tracker stores
// updates that way) keeps its old conversion, and the plan may be wrong
// about it; package apply checks every create and delete against the
// snapshot's objects themselves before it issues them.
//
// The converted nodes carry that key as their api.Node.Version (UID and
// resourceVersion), so that the core's Planner decides again only the nodes
// that changed, and every node when the DaemonSet's placement changes.
//
// The Planner hands the core the converted nodes in name order and the pods
// in namespace and name order, in lists that keep their order from one
// sync to the next, and pods whose labels are equal share one label map:
// the core's look-ups per node and per pod then read memory that the
// previous sync read, instead of every object's own. The DaemonSet and the
// ControllerRevisions are converted at every sync.
//
// The per-node lists of a plan, [daemonplan.Plan.Nodes] and
// [daemonplan.Plan.Keep], are the Planner's, as a [daemonplan.Planner]'s
// are: valid until its next Sync.
//
// A Planner is not safe for concurrent use. Make one with [NewPlanner].
type Planner struct {
	opts Options
	core *daemonplan.Planner
	// hash is the revision hash of the DaemonSet of the sync under way,
	// which the core's Options.Hash calls.
	hash  func(*api.DaemonSet, *int32) string
	nodes objects[corev1.Node, api.Node]
	pods  objects[corev1.Pod, api.Pod]
	// shared is what the converted objects share.
	shared sharing
}

// NewPlanner returns a [Planner] that syncs with opts, as [Sync] does.
// A non-nil opts.Hash is an error, as it is for Sync.
func NewPlanner(opts Options) (*Planner, error) {
	if opts.Hash != nil {
		return nil, errors.New("kubesync: Options.Hash is set: the revision hash is upstream's of Options.KubernetesVersion")
	}
	p := &Planner{opts: opts}
	coreOpts := opts.Options
	coreOpts.Hash = func(ds *api.DaemonSet, collisionCount *int32) string { return p.hash(ds, collisionCount) }
	p.core = daemonplan.NewPlanner(coreOpts)
	p.nodes = objects[corev1.Node, api.Node]{
		meta:    func(n *corev1.Node) *metav1.ObjectMeta { return &n.ObjectMeta },
		convert: p.shared.node,
		compare: func(a, b *api.Node) int { return strings.Compare(a.Name, b.Name) },
		release: p.shared.release,
	}
	p.pods = objects[corev1.Pod, api.Pod]{
		meta:    func(q *corev1.Pod) *metav1.ObjectMeta { return &q.ObjectMeta },
		convert: p.shared.pod,
		compare: func(a, b *api.Pod) int {
			return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
		},
		release: p.shared.release,
	}
	return p, nil
}

// Sync plans one sync of s at now from state st, as Sync(s, now, st, opts)
// does with the Planner's options, and returns the same errors. A snapshot
// that the core refuses as input (daemonplan.ErrInvalidInput), and one that
// lists an object twice, is planned by Sync itself, whose findings name the
// positions in s; a nil node or pod is an error naming its position.
func (p *Planner) Sync(s *load.Snapshot, now time.Time, st State) (daemonplan.Plan, error) {
	if s == nil || s.DaemonSet == nil {
		return daemonplan.Plan{}, errors.New("kubesync: no DaemonSet")
	}
	ds, err := convert.DaemonSet(s.DaemonSet)
	if err != nil {
		return daemonplan.Plan{}, err
	}
	hash, err := convert.HashFunc(s.DaemonSet, p.opts.KubernetesVersion.OrLatest())
	if err != nil {
		return daemonplan.Plan{}, err
	}
	if i := slices.Index(s.Nodes, nil); i >= 0 {
		return daemonplan.Plan{}, fmt.Errorf("kubesync: nodes[%d] is nil", i)
	}
	if i := slices.Index(s.Pods, nil); i >= 0 {
		return daemonplan.Plan{}, fmt.Errorf("kubesync: pods[%d] is nil", i)
	}
	nodes, okNodes := p.nodes.update(s.Nodes)
	pods, okPods := p.pods.update(s.Pods)
	if !okNodes || !okPods {
		// An object listed twice: Sync refuses the snapshot, or plans it
		// with both copies, and names them by their positions in s.
		p.forget()
		return Sync(s, now, st, p.opts)
	}
	p.hash = hash
	plan, err := p.core.Sync(daemonplan.Input{
		DaemonSet: ds,
		Nodes:     nodes,
		Pods:      pods,
		Revisions: convert.Revisions(s.Revisions),
		Now:       now,

		Backoff:             st.Backoff,
		ExpectationsPending: st.ExpectationsPending,
	})
	p.hash = nil
	if errors.Is(err, daemonplan.ErrInvalidInput) {
		// The core's findings name positions in its own lists: Sync's name
		// them in s.
		return Sync(s, now, st, p.opts)
	}
	return plan, err
}

// forget drops every converted object: the next sync converts them all.
func (p *Planner) forget() {
	p.nodes.forget()
	p.pods.forget()
	p.shared = sharing{}
}
