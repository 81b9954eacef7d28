// Package fakeclient is test support: a client-go fake clientset that
// behaves enough like an API server for daemonplan's applier and example
// controller (names from generateName, UIDs, creation timestamps, a
// DaemonSet status subresource that writes the status only; for pods and
// ControllerRevisions a new resourceVersion on every write, delete
// preconditions, a resourceVersion given to an update or patch as a
// precondition, metadata.uid immutable, at most one controller reference),
// and a snapshot of it as a load.Snapshot.
package fakeclient

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/daemonplan/daemonplan/kube/load"
)

// Clientset is a fake clientset with a clock.
type Clientset struct {
	*fake.Clientset
	mu  sync.Mutex
	now time.Time
	seq int
	rv  int // the last resourceVersion server gave
}

// New returns a fake clientset holding s's objects (copies), whose clock
// starts at now. Created objects get a name from generateName (a counter
// suffix, deterministic for a deterministic order of creates), a UID and
// the clock's time as creationTimestamp.
func New(s *load.Snapshot, now time.Time) *Clientset {
	var objs []runtime.Object
	objs = append(objs, s.DaemonSet.DeepCopy())
	for _, n := range s.Nodes {
		objs = append(objs, n.DeepCopy())
	}
	for _, p := range s.Pods {
		objs = append(objs, p.DeepCopy())
	}
	for _, r := range s.Revisions {
		objs = append(objs, r.DeepCopy())
	}
	fc := &Clientset{Clientset: fake.NewClientset(objs...), now: now}
	// Every write but a DaemonSet's goes through checks the fake tracker
	// lacks (see server). Prepended first, it runs after the reactors
	// below, and after any a test prepends.
	fc.PrependReactor("*", "*", k8stesting.ObjectReaction(&server{ObjectTracker: fc.Tracker(), fc: fc}))
	fc.PrependReactor("create", "*", fc.onCreate)
	fc.PrependReactor("update", "daemonsets", fc.onUpdateDaemonSet)
	return fc
}

// Now returns the clock.
func (fc *Clientset) Now() time.Time {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	return fc.now
}

// Advance moves the clock forward by d.
func (fc *Clientset) Advance(d time.Duration) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	fc.now = fc.now.Add(d)
}

func (fc *Clientset) onCreate(action k8stesting.Action) (bool, runtime.Object, error) {
	obj := action.(k8stesting.CreateAction).GetObject()
	m, err := metaOf(obj)
	if err != nil {
		return false, nil, nil
	}
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if m.GetName() == "" && m.GetGenerateName() != "" {
		fc.seq++
		m.SetName(fmt.Sprintf("%s%05d", m.GetGenerateName(), fc.seq))
	}
	if m.GetUID() == "" {
		m.SetUID(types.UID("uid-" + m.GetName()))
	}
	if ts := m.GetCreationTimestamp(); ts.IsZero() {
		m.SetCreationTimestamp(metav1.NewTime(fc.now))
	}
	return false, nil, nil // let the tracker store it
}

// onUpdateDaemonSet stores a DaemonSet update as the API server does: an
// update of the status subresource changes the status only, and an update
// of the DaemonSet leaves its status as stored. The fake clientset alone
// stores the whole object either way, so that a status written from a
// stale copy (an informer's) would revert a newer spec. As the API server,
// it refuses an update that gives another resourceVersion than the stored
// one (a Conflict) and gives the stored DaemonSet a new one. Reactors run
// one at a time, so the read and the write are atomic.
func (fc *Clientset) onUpdateDaemonSet(action k8stesting.Action) (bool, runtime.Object, error) {
	in, ok := action.(k8stesting.UpdateAction).GetObject().(*appsv1.DaemonSet)
	if !ok {
		return false, nil, nil
	}
	gvr, ns := action.GetResource(), action.GetNamespace()
	obj, err := fc.Tracker().Get(gvr, ns, in.Name)
	if err != nil {
		return true, nil, err
	}
	stored, ok := obj.(*appsv1.DaemonSet)
	if !ok {
		return false, nil, nil
	}
	if rv := in.ResourceVersion; rv != "" && rv != stored.ResourceVersion {
		return true, nil, apierrors.NewConflict(gvr.GroupResource(), in.Name,
			errors.New("the object has been modified; please apply your changes to the latest version and try again"))
	}
	out := in.DeepCopy()
	if action.GetSubresource() == "status" {
		out = stored.DeepCopy()
		out.Status = *in.Status.DeepCopy()
	} else {
		out.Status = *stored.Status.DeepCopy()
	}
	fc.mu.Lock()
	fc.rv++
	out.ResourceVersion = fmt.Sprintf("fake-%d", fc.rv)
	fc.mu.Unlock()
	if err := fc.Tracker().Update(gvr, out, ns); err != nil {
		return true, nil, err
	}
	obj, err = fc.Tracker().Get(gvr, ns, in.Name)
	return true, obj, err
}

func metaOf(obj runtime.Object) (metav1.Object, error) {
	m, ok := obj.(metav1.Object)
	if !ok {
		return nil, fmt.Errorf("not an object: %T", obj)
	}
	return m, nil
}

// Snapshot lists the DaemonSet namespace/name, every node, and the pods and
// ControllerRevisions of its namespace, sorted by name, as a load.Snapshot.
func (fc *Clientset) Snapshot(ctx context.Context, namespace, name string) (*load.Snapshot, error) {
	ds, err := fc.AppsV1().DaemonSets(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	nodes, err := fc.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	pods, err := fc.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	revs, err := fc.AppsV1().ControllerRevisions(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	c := &load.Snapshot{DaemonSet: ds}
	for i := range nodes.Items {
		c.Nodes = append(c.Nodes, &nodes.Items[i])
	}
	for i := range pods.Items {
		c.Pods = append(c.Pods, &pods.Items[i])
	}
	for i := range revs.Items {
		c.Revisions = append(c.Revisions, &revs.Items[i])
	}
	slices.SortFunc(c.Nodes, func(a, b *corev1.Node) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(c.Pods, func(a, b *corev1.Pod) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(c.Revisions, func(a, b *appsv1.ControllerRevision) int { return strings.Compare(a.Name, b.Name) })
	return c, nil
}

// Writes returns the write actions the clientset recorded (everything but
// get, list and watch), in order.
func (fc *Clientset) Writes() []k8stesting.Action {
	var out []k8stesting.Action
	for _, a := range fc.Actions() {
		switch a.GetVerb() {
		case "get", "list", "watch":
		default:
			out = append(out, a)
		}
	}
	return out
}

// server wraps the fake's object tracker with the API server's checks that
// the tracker lacks, for every write the reactors above do not handle:
//
//   - create, and an update or patch that changes the object, store a new
//     resourceVersion ("fake-N": not an integer, so that a controller
//     comparing resourceVersions as etcd's treats it as an opaque one); an
//     update or patch that changes nothing writes nothing;
//   - an update, or a patch that gives metadata.resourceVersion, with
//     another resourceVersion than the stored one is a Conflict;
//   - a patch that changes metadata.uid is Invalid (upstream's claim
//     patches carry the UID as a precondition this way);
//   - a write that leaves two controller references is Invalid;
//   - a delete whose UID or resourceVersion precondition does not hold is
//     a Conflict ("Precondition failed").
//
// The fake serialises reactors, so each check and its write are atomic.
type server struct {
	k8stesting.ObjectTracker
	fc *Clientset
}

func (s *server) stamp(obj runtime.Object) (runtime.Object, metav1.Object, error) {
	obj = obj.DeepCopyObject()
	m, err := metaOf(obj)
	if err != nil {
		return nil, nil, err
	}
	s.fc.mu.Lock()
	s.fc.rv++
	m.SetResourceVersion(fmt.Sprintf("fake-%d", s.fc.rv))
	s.fc.mu.Unlock()
	return obj, m, nil
}

func (s *server) Create(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.CreateOptions) error {
	obj, m, err := s.stamp(obj)
	if err != nil {
		return err
	}
	if err := oneController(gvr, m); err != nil {
		return err
	}
	return s.ObjectTracker.Create(gvr, obj, ns, opts...)
}

func (s *server) Update(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.UpdateOptions) error {
	if err := s.check(gvr, obj, ns); err != nil || s.unchanged(gvr, obj, ns) {
		return err
	}
	obj, _, err := s.stamp(obj)
	if err != nil {
		return err
	}
	return s.ObjectTracker.Update(gvr, obj, ns, opts...)
}

func (s *server) Patch(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.PatchOptions) error {
	if err := s.check(gvr, obj, ns); err != nil || s.unchanged(gvr, obj, ns) {
		return err
	}
	obj, _, err := s.stamp(obj)
	if err != nil {
		return err
	}
	return s.ObjectTracker.Patch(gvr, obj, ns, opts...)
}

// check compares obj, to be stored, with the stored object of its name.
// A patched object carries the stored resourceVersion unless the patch
// gave one.
func (s *server) check(gvr schema.GroupVersionResource, obj runtime.Object, ns string) error {
	m, err := metaOf(obj)
	if err != nil {
		return err
	}
	stored, err := s.stored(gvr, ns, m.GetName())
	if err != nil {
		return err
	}
	if rv := m.GetResourceVersion(); rv != "" && rv != stored.GetResourceVersion() {
		return apierrors.NewConflict(gvr.GroupResource(), m.GetName(),
			errors.New("the object has been modified; please apply your changes to the latest version and try again"))
	}
	if m.GetUID() != stored.GetUID() {
		return apierrors.NewInvalid(groupKind(gvr, obj), m.GetName(), field.ErrorList{
			field.Invalid(field.NewPath("metadata", "uid"), m.GetUID(), "field is immutable")})
	}
	return oneController(gvr, m)
}

// unchanged reports an update or patch that changes nothing but the
// resourceVersion: the API server then writes nothing, and the object
// keeps its resourceVersion.
func (s *server) unchanged(gvr schema.GroupVersionResource, obj runtime.Object, ns string) bool {
	m, err := metaOf(obj)
	if err != nil {
		return false
	}
	stored, err := s.ObjectTracker.Get(gvr, ns, m.GetName())
	if err != nil {
		return false
	}
	in := obj.DeepCopyObject()
	if im, err := metaOf(in); err == nil {
		im.SetResourceVersion("")
	}
	if sm, err := metaOf(stored); err == nil {
		sm.SetResourceVersion("")
	}
	return apiequality.Semantic.DeepEqual(in, stored)
}

func (s *server) stored(gvr schema.GroupVersionResource, ns, name string) (metav1.Object, error) {
	obj, err := s.ObjectTracker.Get(gvr, ns, name)
	if err != nil {
		return nil, err
	}
	return metaOf(obj)
}

func (s *server) Delete(gvr schema.GroupVersionResource, ns, name string, opts ...metav1.DeleteOptions) error {
	if len(opts) == 1 && opts[0].Preconditions != nil {
		stored, err := s.stored(gvr, ns, name)
		if err != nil {
			return err
		}
		pre := opts[0].Preconditions
		if pre.UID != nil && *pre.UID != stored.GetUID() {
			return apierrors.NewConflict(gvr.GroupResource(), name,
				fmt.Errorf("precondition failed: UID in precondition: %v, UID in object meta: %v", *pre.UID, stored.GetUID()))
		}
		if pre.ResourceVersion != nil && *pre.ResourceVersion != stored.GetResourceVersion() {
			return apierrors.NewConflict(gvr.GroupResource(), name,
				fmt.Errorf("precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", *pre.ResourceVersion, stored.GetResourceVersion()))
		}
	}
	return s.ObjectTracker.Delete(gvr, ns, name, opts...)
}

// oneController refuses an object with two controller references, as the
// API server's ValidateOwnerReferences does.
func oneController(gvr schema.GroupVersionResource, m metav1.Object) error {
	n := 0
	for _, ref := range m.GetOwnerReferences() {
		if ref.Controller != nil && *ref.Controller {
			n++
		}
	}
	if n > 1 {
		return apierrors.NewInvalid(schema.GroupKind{Group: gvr.Group, Kind: gvr.Resource}, m.GetName(), field.ErrorList{
			field.Invalid(field.NewPath("metadata", "ownerReferences"), n, "Only one reference can have Controller set to true")})
	}
	return nil
}

func groupKind(gvr schema.GroupVersionResource, obj runtime.Object) schema.GroupKind {
	return schema.GroupKind{Group: gvr.Group, Kind: reflect.TypeOf(obj).Elem().Name()}
}
