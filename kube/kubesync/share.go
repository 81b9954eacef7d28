package kubesync

import (
	"encoding/binary"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/kube/convert"
)

// sharing is what the Planner's converted nodes and pods share, so that
// the core's look-ups per pod and per node read memory that many objects
// read: one label map per distinct set of pod labels, one owner reference
// per distinct controller, one copy of each namespace, and one copy of each
// node name, which a node and the pods bound to it share (equal strings
// that share their bytes compare without reading them). Each shared value counts the objects that hold
// it, and is dropped with the last.
type sharing struct {
	labels pool[map[string]string]
	owners pool[*api.OwnerRef]
	names  pool[string]
	// namespaces are the pods' namespaces, one copy of each: the core
	// compares every pod's with the previous pod's.
	namespaces pool[string]
}

// held is what one converted object holds of a sharing.
type held struct {
	labels *shared[map[string]string]
	owner  *shared[*api.OwnerRef]
	node   *shared[string]
	// namespace is a pod's.
	namespace *shared[string]
}

// node converts n, its name shared. A node with a UID and a
// resourceVersion gets them as its Version, so that the core decides it
// again only when it changed.
func (sh *sharing) node(n *corev1.Node) (api.Node, held) {
	out := convert.Node(n)
	if n.UID != "" && n.ResourceVersion != "" {
		out.Version = string(n.UID) + "/" + n.ResourceVersion
	}
	var h held
	h.node = sh.names.get(out.Name, func() string { return out.Name })
	out.Name = h.node.v
	return out, h
}

// pod converts q, its labels, controller and node name shared.
func (sh *sharing) pod(q *corev1.Pod) (api.Pod, held) {
	out := convert.Pod(q)
	var h held
	if out.Namespace != "" {
		h.namespace = sh.namespaces.get(out.Namespace, func() string { return out.Namespace })
		out.Namespace = h.namespace.v
	}
	if len(out.Labels) > 0 {
		// A pod without labels keeps its own map, nil or empty.
		labels := out.Labels
		h.labels = sh.labels.get(labelKey(labels), func() map[string]string { return maps.Clone(labels) })
		out.Labels = h.labels.v
	}
	if c := out.Controller; c != nil {
		h.owner = sh.owners.get(ownerKey(c), func() *api.OwnerRef { return c })
		out.Controller = h.owner.v
	}
	if out.NodeName != "" {
		h.node = sh.names.get(out.NodeName, func() string { return out.NodeName })
		out.NodeName = h.node.v
	}
	return out, h
}

// release drops what an object held.
func (sh *sharing) release(h held) {
	sh.labels.put(h.labels)
	sh.owners.put(h.owner)
	sh.names.put(h.node)
	sh.namespaces.put(h.namespace)
}

// labelKey is labels written out in key order, each key and value after
// its length, so that two maps have the same key exactly when they hold
// the same labels.
func labelKey(labels map[string]string) string {
	var b []byte
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		b = appendString(b, k)
		b = appendString(b, labels[k])
	}
	return string(b)
}

// ownerKey is c's fields, each after its length.
func ownerKey(c *api.OwnerRef) string {
	return string(appendString(appendString(appendString(nil, c.Kind), c.Name), c.UID))
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// pool holds the shared values of one kind by key.
type pool[T any] struct {
	m map[string]*shared[T]
}

// shared is one shared value and how many objects hold it.
type shared[T any] struct {
	key  string
	v    T
	refs int
}

// get returns the shared value of key, made by mk when there is none yet,
// counting one more holder.
func (p *pool[T]) get(key string, mk func() T) *shared[T] {
	s := p.m[key]
	if s == nil {
		if p.m == nil {
			p.m = map[string]*shared[T]{}
		}
		s = &shared[T]{key: key, v: mk()}
		p.m[key] = s
	}
	s.refs++
	return s
}

// put counts one holder less of s (nil: none), and drops s with its last.
func (p *pool[T]) put(s *shared[T]) {
	if s == nil {
		return
	}
	if s.refs--; s.refs == 0 {
		delete(p.m, s.key)
	}
}
