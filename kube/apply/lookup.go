package apply

import (
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/load"
)

// Lookup is the objects Apply checks a plan's writes against, looked up
// by name: the DaemonSet the plan was made for, the nodes, and the pods
// and ControllerRevisions of the DaemonSet's namespace. Apply looks up
// only the objects the plan names and the nodes it writes to, so that a
// caller that keeps its objects indexed (a controller's informer caches)
// pays for the plan's writes, not for the cluster. Apply never changes
// what they return.
//
// Apply may call the methods from several goroutines at once, and while
// it runs the caller may change what later calls return (an informer's
// newer objects): each write is checked against the objects as they are
// when it is checked.
type Lookup interface {
	// DaemonSet is the DaemonSet the plan was made for; nil for none.
	DaemonSet() *appsv1.DaemonSet
	// Node returns the node called name, and whether the objects list that
	// name: listed with a nil node for a name listed more than once, whose
	// nodes justify nothing.
	Node(name string) (node *corev1.Node, listed bool)
	// Pod returns the pod of the DaemonSet's namespace called name; nil
	// for none.
	Pod(name string) *corev1.Pod
	// Revision returns the ControllerRevision of the DaemonSet's
	// namespace called name; nil for none.
	Revision(name string) *appsv1.ControllerRevision
	// PodsOn returns the pods of the DaemonSet's namespace whose target
	// node (spec.nodeName, or else the node the required node affinity
	// names, as api.TargetNodeName reads it) is node; it may return more,
	// which Apply leaves out.
	PodsOn(node string) []*corev1.Pod
}

// SnapshotLookup returns the objects of a snapshot, indexed the first
// time Apply looks one up (O(objects) once). An object the snapshot lists
// under a namespace other than its DaemonSet's is not found; a pod or
// revision name listed twice is found as its first. A nil c holds
// nothing.
func SnapshotLookup(c *load.Snapshot) Lookup { return &snapshotObjects{c: c} }

type snapshotObjects struct {
	c     *load.Snapshot
	once  sync.Once
	nodes map[string]*corev1.Node // nil for a name listed twice
	pods  map[string]*corev1.Pod
	revs  map[string]*appsv1.ControllerRevision
	on    map[string][]*corev1.Pod
}

func (s *snapshotObjects) DaemonSet() *appsv1.DaemonSet {
	if s.c == nil {
		return nil
	}
	return s.c.DaemonSet
}

// index builds the look-ups, once.
func (s *snapshotObjects) index() { s.once.Do(s.build) }

func (s *snapshotObjects) build() {
	c := s.c
	if c == nil {
		c = &load.Snapshot{}
	}
	ns := ""
	if c.DaemonSet != nil {
		ns = c.DaemonSet.Namespace
	}
	s.nodes = make(map[string]*corev1.Node, len(c.Nodes))
	for _, n := range c.Nodes {
		if n == nil {
			continue
		}
		if _, seen := s.nodes[n.Name]; seen {
			s.nodes[n.Name] = nil
		} else {
			s.nodes[n.Name] = n
		}
	}
	s.pods = map[string]*corev1.Pod{}
	s.on = map[string][]*corev1.Pod{}
	for _, p := range c.Pods {
		if p == nil || p.Namespace != ns {
			continue
		}
		if _, seen := s.pods[p.Name]; !seen {
			s.pods[p.Name] = p
		}
		ap := convert.Pod(p)
		if node, err := api.TargetNodeName(&ap); err == nil {
			s.on[node] = append(s.on[node], p)
		}
	}
	s.revs = map[string]*appsv1.ControllerRevision{}
	for _, r := range c.Revisions {
		if r == nil || r.Namespace != ns {
			continue
		}
		if _, seen := s.revs[r.Name]; !seen {
			s.revs[r.Name] = r
		}
	}
}

func (s *snapshotObjects) Node(name string) (*corev1.Node, bool) {
	s.index()
	n, listed := s.nodes[name]
	return n, listed
}

func (s *snapshotObjects) Pod(name string) *corev1.Pod {
	s.index()
	return s.pods[name]
}

func (s *snapshotObjects) Revision(name string) *appsv1.ControllerRevision {
	s.index()
	return s.revs[name]
}

func (s *snapshotObjects) PodsOn(node string) []*corev1.Pod {
	s.index()
	return s.on[node]
}
