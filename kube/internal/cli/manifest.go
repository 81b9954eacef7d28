package cli

import (
	"crypto/sha256"
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonplan/daemonplan/kube/defaults"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/kube/upstream"
)

// asStored replaces, in cl, a DaemonSet as written (a manifest: no uid, so
// no API server stored it) with the DaemonSet the API server of version v
// would store, and nodes without allocatable resources with nodes as it
// stores them. It returns a one-line note saying what it did, or "".
//
// A manifest's DaemonSet is taken as the cluster's when pods or revisions
// of the input name a DaemonSet of its namespace and name as their
// controller with one uid: it takes that uid and the API server's
// defaults, as an update would store it. Otherwise it is a DaemonSet about
// to be created: defaulted, with generation and template generation 1, an
// empty status and a uid of daemonplan's own, the same for the same
// namespace and name (the plan's pods need an owner's uid for the
// DaemonSet to claim them). An OpenKruise Advanced DaemonSet gets the uid
// only: its webhook's defaults are not those of apps/v1.
func asStored(cl *load.Snapshot, v upstream.Version, kruise bool) (string, error) {
	cloned := false // the snapshot shares its lists with the loader's
	for i, n := range cl.Nodes {
		if n.Status.Allocatable == nil && n.Status.Capacity != nil {
			if !cloned {
				cl.Nodes, cloned = slices.Clone(cl.Nodes), true
			}
			cl.Nodes[i] = defaults.Node(n)
		}
	}
	ds := cl.DaemonSet
	if ds.UID != "" {
		return "", nil
	}
	uid, owned := ownersUID(cl)
	var out *appsv1.DaemonSet
	var err error
	switch {
	case kruise:
		out = ds.DeepCopy()
	case owned:
		out, err = defaults.DaemonSet(ds, v)
	default:
		out, err = defaults.Created(ds, v)
	}
	if err != nil {
		return "", err
	}
	if !owned {
		uid = manifestUID(ds.Namespace, ds.Name)
	}
	out.UID = uid
	cl.DaemonSet = out

	what := "planned as the API server would store it on create, with its defaults and uid " + string(uid)
	switch {
	case kruise && owned:
		what = fmt.Sprintf("taken as the cluster's, uid %s, that its pods and revisions name", uid)
	case kruise:
		what = "planned as a new DaemonSet with uid " + string(uid)
	case owned:
		what = fmt.Sprintf("taken as the cluster's, uid %s, that its pods and revisions name, with the API server's defaults", uid)
	}
	hashes := ""
	if !kruise {
		before, err1 := v.Hash(&ds.Spec.Template, nil)
		after, err2 := v.Hash(&out.Spec.Template, nil)
		if err1 == nil && err2 == nil && before != after {
			hashes = fmt.Sprintf(" (revision hash %s; %s as written)", after, before)
		}
	}
	return fmt.Sprintf("DaemonSet %s/%s (%s) has no uid: %s%s", ds.Namespace, ds.Name, cl.At.DaemonSet, what, hashes), nil
}

// ownersUID returns the uid of the DaemonSet of cl's namespace and name
// that pods and revisions of the input name as their controller, when they
// all name one.
func ownersUID(cl *load.Snapshot) (types.UID, bool) {
	ds := cl.DaemonSet
	uids := map[types.UID]bool{}
	add := func(ns string, refs []metav1.OwnerReference) {
		if ns != ds.Namespace {
			return
		}
		for _, r := range refs {
			if r.Controller != nil && *r.Controller && r.Kind == "DaemonSet" && r.Name == ds.Name && r.UID != "" {
				uids[r.UID] = true
			}
		}
	}
	for _, p := range cl.Pods {
		add(p.Namespace, p.OwnerReferences)
	}
	for _, r := range cl.Revisions {
		add(r.Namespace, r.OwnerReferences)
	}
	if len(uids) != 1 {
		return "", false
	}
	for uid := range uids {
		return uid, true
	}
	return "", false
}

// manifestUID is the uid daemonplan gives a DaemonSet about to be created:
// a name-based UUID (version 5 layout) of its namespace and name, so that
// the same manifest plans the same pods run after run.
func manifestUID(namespace, name string) types.UID {
	sum := sha256.Sum256([]byte("daemonplan manifest\x00" + namespace + "\x00" + name))
	b := sum[:16]
	b[6] = b[6]&0x0f | 0x50
	b[8] = b[8]&0x3f | 0x80
	return types.UID(fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]))
}
