package kubetrack

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/kubesync"
	"github.com/daemonplan/daemonplan/revision"
)

// ErrNoDaemonSet is returned by [Tracker.Plan] and [Tracker.FullPlan]
// while the Tracker holds no DaemonSet: before the first SetDaemonSet, and
// after DeleteDaemonSet.
var ErrNoDaemonSet = errors.New("kubetrack: no DaemonSet")

// Tracker plans the syncs of one DaemonSet from its informers' events. See
// the package documentation. It is not safe for concurrent use: a
// controller serializes its event handlers and syncs around it. Make one
// with [NewTracker].
type Tracker struct {
	namespace, name string
	opts            kubesync.Options

	// ds is the DaemonSet, nil while there is none; dsErr is why it could
	// not be converted (the plan's error until a good one comes).
	ds    *appsv1.DaemonSet
	dsErr error
	// conv is ds converted, while dsErr is nil.
	conv *api.DaemonSet
	// hash is upstream's revision hash of ds's template: the Tracker's
	// Options.Hash calls it, so that a new template changes it in place.
	hash revision.HashFunc

	// tr holds the cluster once a DaemonSet has been seen; before, the
	// objects wait in nodes and pods.
	tr    *daemonplan.Tracker
	nodes map[string]api.Node
	pods  map[string]api.Pod // of the namespace, by name
	// revisions are the ControllerRevisions of the namespace, by name.
	revisions map[string]revision.Revision
}

// NewTracker returns an empty [Tracker] for the DaemonSet namespace/name, planning
// with opts as [kubesync.Sync] does. A non-nil opts.Hash, or an unsupported
// opts.KubernetesVersion, is an error.
func NewTracker(namespace, name string, opts kubesync.Options) (*Tracker, error) {
	if opts.Hash != nil {
		return nil, errors.New("kubetrack: Options.Hash is set: the revision hash is upstream's of Options.KubernetesVersion")
	}
	if v := opts.KubernetesVersion.OrLatest(); !v.Supported() {
		return nil, fmt.Errorf("kubetrack: unsupported Kubernetes version %d", int(opts.KubernetesVersion))
	}
	return &Tracker{
		namespace: namespace, name: name, opts: opts,
		nodes: map[string]api.Node{}, pods: map[string]api.Pod{}, revisions: map[string]revision.Revision{},
	}, nil
}

// SetDaemonSet takes an add or update of a DaemonSet; another DaemonSet
// than the Tracker's is ignored. A DaemonSet that cannot be converted (a
// quantity out of range, a template that does not encode) makes every
// plan fail with that error until the next good one.
func (p *Tracker) SetDaemonSet(ds *appsv1.DaemonSet) {
	if ds == nil || ds.Namespace != p.namespace || ds.Name != p.name {
		return
	}
	if p.tr != nil && p.ds != nil && p.dsErr == nil && sameButStatus(p.ds, ds) {
		// The controller's own status write, mostly: the template need
		// not be encoded and hashed again (most of the cost of a
		// conversion), and the Tracker decides nothing again.
		conv := *p.conv
		conv.Status = convert.Status(ds.Status)
		p.ds, p.conv = ds, &conv
		p.tr.SetDaemonSet(&conv)
		return
	}
	p.ds = ds
	conv, err := convert.DaemonSet(ds)
	var hash revision.HashFunc
	if err == nil {
		hash, err = convert.HashFunc(ds, p.opts.KubernetesVersion.OrLatest())
	}
	if p.dsErr = err; err != nil {
		return
	}
	p.hash, p.conv = hash, conv
	if p.tr != nil {
		p.tr.SetDaemonSet(conv)
		return
	}
	in := daemonplan.Input{DaemonSet: conv, Revisions: p.revisionList()}
	in.Nodes = slices.SortedFunc(maps.Values(p.nodes), func(a, b api.Node) int { return strings.Compare(a.Name, b.Name) })
	in.Pods = slices.SortedFunc(maps.Values(p.pods), func(a, b api.Pod) int { return strings.Compare(a.Name, b.Name) })
	opts := p.opts.Options
	opts.Hash = func(d *api.DaemonSet, collisionCount *int32) string { return p.hash(d, collisionCount) }
	tr, err := daemonplan.NewTracker(in, opts)
	if err != nil {
		// Nodes and pods are keyed by name: New cannot find duplicates.
		p.dsErr = err
		return
	}
	p.tr, p.nodes, p.pods = tr, nil, nil
}

// sameButStatus says whether ds converts as old does but for its status:
// the same object (UID), and the same in every field convert.DaemonSet and
// convert.HashFunc read outside the status (the generation, annotations,
// whether it is being deleted, the spec). The spec is compared whole, not
// by generation, because objects built without an API server (tests, fake
// clientsets) change their spec under the same generation; and with
// reflect.DeepEqual, a fifth of the cost of apimachinery's semantic
// equality: a spec it calls equal converts alike, and one equal only in
// meaning (a quantity spelled otherwise, nil against empty) takes the whole
// conversion, as any other change does.
func sameButStatus(old, ds *appsv1.DaemonSet) bool {
	return old.UID == ds.UID && old.Generation == ds.Generation &&
		(old.DeletionTimestamp == nil) == (ds.DeletionTimestamp == nil) &&
		maps.Equal(old.Annotations, ds.Annotations) &&
		reflect.DeepEqual(&old.Spec, &ds.Spec)
}

// DeleteDaemonSet takes the deletion of the DaemonSet namespace/name:
// plans fail with [ErrNoDaemonSet] until it is set again. The other
// objects are kept.
func (p *Tracker) DeleteDaemonSet(namespace, name string) {
	if namespace == p.namespace && name == p.name {
		p.ds, p.dsErr, p.conv = nil, nil, nil
	}
}

// SetNode takes an add or update of a node. It reports whether the change
// may change a plan (Plan.Nodes of FullPlan aside), as
// daemonplan.Tracker.SetNode decides it: false when the node's presence
// and decision for the DaemonSet stay as they were, or the node neither
// should run the pod nor holds one of its pods, before or after. Before
// the Tracker holds a DaemonSet that converts, every plan is an error that
// no node changes, and SetNode reports false.
func (p *Tracker) SetNode(n *corev1.Node) bool {
	if n == nil {
		return false
	}
	node := convert.Node(n)
	if p.tr != nil {
		return p.tr.SetNode(node)
	}
	p.nodes[node.Name] = node
	return false
}

// DeleteNode takes the deletion of the node called name, and reports
// whether it may change a plan, as SetNode does.
func (p *Tracker) DeleteNode(name string) bool {
	if p.tr != nil {
		return p.tr.DeleteNode(name)
	}
	delete(p.nodes, name)
	return false
}

// SetPod takes an add or update of a pod; pods of other namespaces are
// ignored.
func (p *Tracker) SetPod(pod *corev1.Pod) {
	if pod == nil || pod.Namespace != p.namespace {
		return
	}
	conv := convert.Pod(pod)
	if p.tr != nil {
		p.tr.SetPod(conv)
		return
	}
	p.pods[conv.Name] = conv
}

// DeletePod takes the deletion of the pod namespace/name.
func (p *Tracker) DeletePod(namespace, name string) {
	if namespace != p.namespace {
		return
	}
	if p.tr != nil {
		p.tr.DeletePod(namespace, name)
		return
	}
	delete(p.pods, name)
}

// SetRevision takes an add or update of a ControllerRevision; those of
// other namespaces are ignored.
func (p *Tracker) SetRevision(cr *appsv1.ControllerRevision) {
	if cr == nil || cr.Namespace != p.namespace {
		return
	}
	p.revisions[cr.Name] = convert.Revision(cr)
	p.revisionsChanged()
}

// DeleteRevision takes the deletion of the ControllerRevision
// namespace/name.
func (p *Tracker) DeleteRevision(namespace, name string) {
	if namespace != p.namespace {
		return
	}
	if _, ok := p.revisions[name]; ok {
		delete(p.revisions, name)
		p.revisionsChanged()
	}
}

func (p *Tracker) revisionsChanged() {
	if p.tr != nil {
		p.tr.SetRevisions(p.revisionList())
	}
}

// revisionList is the revisions in name order.
func (p *Tracker) revisionList() []revision.Revision {
	return slices.SortedFunc(maps.Values(p.revisions), func(a, b revision.Revision) int { return cmp.Compare(a.Name, b.Name) })
}

// Plan returns the plan of a sync at now from state st, as
// kubesync.Sync returns it for the objects held, without Plan.Nodes and
// Plan.Keep (which name every node and pod). The error is [ErrNoDaemonSet],
// the DaemonSet's conversion error, or Sync's.
func (p *Tracker) Plan(now time.Time, st kubesync.State) (daemonplan.Plan, error) {
	if err := p.prepare(now, st); err != nil {
		return daemonplan.Plan{}, err
	}
	return p.tr.Plan()
}

// FullPlan is Plan with Plan.Nodes and Plan.Keep: exactly what
// kubesync.Sync returns for a snapshot of the objects held. It costs
// O(n log n).
func (p *Tracker) FullPlan(now time.Time, st kubesync.State) (daemonplan.Plan, error) {
	if err := p.prepare(now, st); err != nil {
		return daemonplan.Plan{}, err
	}
	return p.tr.FullPlan()
}

func (p *Tracker) prepare(now time.Time, st kubesync.State) error {
	switch {
	case p.ds == nil:
		return ErrNoDaemonSet
	case p.dsErr != nil:
		return p.dsErr
	}
	p.tr.SetNow(now)
	p.tr.SetBackoff(st.Backoff)
	p.tr.SetExpectationsPending(st.ExpectationsPending)
	return nil
}
