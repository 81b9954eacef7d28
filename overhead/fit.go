package overhead

import (
	"slices"
	"strings"
	"time"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/resource"
)

// NodeState is what the scheduler knows of a node beyond its labels and
// taints: its allocatable resources and the pods already bound to it.
type NodeState struct {
	// Allocatable is status.allocatable: "cpu", "memory",
	// "ephemeral-storage", "pods" and extended resources. A name missing
	// here has none: a node without "pods" holds no pod at all.
	Allocatable resource.List
	// Pods are the pods bound to the node that the scheduler counts: not
	// terminal. A pod whose OwnerUID is a DaemonSet's UID is that
	// DaemonSet's own pod and is left out when that DaemonSet's pod is
	// judged, so that a node already running it is not counted twice.
	Pods []PodUsage
	// Budgets are the PodDisruptionBudgets the scheduler's preemption
	// respects ([Catalog.Schedule]); Fit does not read them.
	Budgets []DisruptionBudget
	// Nominated are the pods not yet bound that the scheduler has
	// nominated for the node (status.nominatedNodeName): preemption made
	// room for them, and the scheduler keeps it. Fit and Schedule count
	// those whose priority is at least the daemon pod's as if they were
	// bound (F8); they are never preempted. Nil or empty: none.
	Nominated []PodUsage
}

// PodUsage is what one pod already on a node takes.
type PodUsage struct {
	// OwnerUID is the UID of the pod's controller, "" for none.
	OwnerUID string
	// Requests is the pod's effective requests (api.PodTemplate.Requests
	// of its spec, or resource.PodRequests of the stored pod).
	Requests resource.List
	// HostPorts are the host ports the pod binds.
	HostPorts []api.ContainerPort
	// Namespace, Name, Labels, Priority (spec.priority, 0 when unset) and
	// StartTime (status.startTime, zero when not started) are what
	// preemption reads ([Catalog.Schedule]); Fit does not.
	Namespace, Name string
	Labels          map[string]string
	Priority        int32
	StartTime       time.Time
}

// Fit says whether a daemon pod fits a node, as kube-scheduler's
// NodeResourcesFit and NodePorts filters judge it.
type Fit struct {
	Fits bool
	// Insufficient lists the resources the node lacks, sorted ("pods"
	// when the node holds its maximum number of pods).
	Insufficient []string
	// PortConflicts lists the pod's host ports already bound on the node,
	// in the pod's order.
	PortConflicts []api.ContainerPort
}

// Fit judges whether DaemonSet i's pod fits the node described by st
// (docs/overhead.md, F1–F6):
//
//  1. Pods: the pods already there plus this one must not exceed
//     allocatable "pods".
//  2. A pod requesting nothing (no cpu, memory, ephemeral-storage or
//     scalar resource) passes every resource check but the pod count.
//  3. cpu (in millicores), memory and ephemeral-storage (in bytes, rounded
//     up): a positive request must be at most allocatable minus what the
//     pods already there request.
//  4. Scalar resources (extended resources such as example.com/gpu,
//     hugepages-*, attachable-volumes-*, kubernetes.io/-prefixed names):
//     the same, for every non-zero request; a resource the node does not
//     list has none. Other unprefixed names are not checked.
//  5. Host ports: a port conflicts with a bound one of the same protocol
//     ("" is TCP) and port when either binds every address ("" or
//     0.0.0.0) or both bind the same address.
//  6. Pods owned by the DaemonSet itself ([PodUsage.OwnerUID] == its UID)
//     are left out, so that Fit answers for the node as if the
//     DaemonSet's pod were not there yet.
//  8. Nominated pods ([NodeState.Nominated]) of at least the pod's
//     priority count as bound.
//
// Fit is information beside the controller's decision, never part of it.
func (s *Catalog) Fit(i int, st *NodeState) Fit {
	return s.fit(&s.daemons[i], st, nil)
}

// fit is Fit for d with the pods marked in gone (when not nil) left out,
// as preemption removes them.
func (s *Catalog) fit(d *daemon, st *NodeState, gone []bool) Fit {
	var used usage
	pods := 0
	var bound []api.ContainerPort
	for k := range st.Pods {
		p := &st.Pods[k]
		if own(d, p) || (gone != nil && gone[k]) {
			continue
		}
		pods++
		used.add(p.Requests)
		bound = append(bound, p.HostPorts...)
	}
	// F8: the scheduler runs its filters with the nominated pods of at
	// least this pod's priority added (upstream framework
	// addGeneralNominatedPods / RunFilterPluginsWithNominatedPods); since
	// more pods only make fitting harder, passing with them is passing
	// both of its runs.
	for k := range st.Nominated {
		p := &st.Nominated[k]
		if own(d, p) || p.Priority < d.Priority {
			continue
		}
		pods++
		used.add(p.Requests)
		bound = append(bound, p.HostPorts...)
	}
	var f Fit
	if q, ok := st.Allocatable["pods"]; !ok || int64(pods+1) > q.Value() {
		f.Insufficient = append(f.Insufficient, "pods")
	}
	var want usage
	want.add(d.Requests)
	var alloc usage
	alloc.add(st.Allocatable)
	if want.any() {
		for _, name := range []string{"cpu", "memory", "ephemeral-storage"} {
			if w := want.fixed[name]; w > 0 && w > alloc.fixed[name]-used.fixed[name] {
				f.Insufficient = append(f.Insufficient, name)
			}
		}
		for name, w := range want.scalar {
			if w != 0 && w > alloc.scalar[name]-used.scalar[name] {
				f.Insufficient = append(f.Insufficient, name)
			}
		}
	}
	slices.Sort(f.Insufficient)
	for _, p := range d.HostPorts {
		if conflicts(p, bound) {
			f.PortConflicts = append(f.PortConflicts, p)
		}
	}
	f.Fits = len(f.Insufficient) == 0 && len(f.PortConflicts) == 0
	return f
}

// usage is a resource list in the scheduler's integers: cpu in millicores,
// everything else in units rounded up.
type usage struct {
	fixed  map[string]int64
	scalar map[string]int64
}

func (u *usage) add(l resource.List) {
	if u.fixed == nil {
		u.fixed = map[string]int64{}
		u.scalar = map[string]int64{}
	}
	for name, q := range l {
		switch {
		case name == "cpu":
			u.fixed[name] += q.MilliValue()
		case name == "memory" || name == "ephemeral-storage":
			u.fixed[name] += q.Value()
		case scalarResource(name):
			u.scalar[name] += q.Value()
		}
	}
}

func (u *usage) any() bool {
	if u.fixed["cpu"] != 0 || u.fixed["memory"] != 0 || u.fixed["ephemeral-storage"] != 0 {
		return true
	}
	return len(u.scalar) > 0
}

// scalarResource reports whether the scheduler tracks name as a scalar
// resource: extended resources (a domain other than kubernetes.io),
// hugepages-*, attachable-volumes-* and kubernetes.io/-prefixed names.
func scalarResource(name string) bool {
	switch {
	case strings.HasPrefix(name, "hugepages-"), strings.HasPrefix(name, "attachable-volumes-"):
		return true
	case !strings.Contains(name, "/"):
		return false
	case strings.Contains(name, "kubernetes.io/"):
		// Prefixed native resources are scalar too.
		return true
	}
	return !strings.HasPrefix(name, "requests.")
}

// conflicts reports whether p is already bound among bound (upstream:
// HostPortInfo.CheckConflict).
func conflicts(p api.ContainerPort, bound []api.ContainerPort) bool {
	ip, proto := sanitize(p)
	for _, b := range bound {
		if b.HostPort <= 0 || b.HostPort != p.HostPort {
			continue
		}
		bip, bproto := sanitize(b)
		if bproto != proto {
			continue
		}
		if ip == anyAddress || bip == anyAddress || ip == bip {
			return true
		}
	}
	return false
}

const anyAddress = "0.0.0.0"

func sanitize(p api.ContainerPort) (ip, proto string) {
	ip, proto = p.HostIP, p.Protocol
	if ip == "" {
		ip = anyAddress
	}
	if proto == "" {
		proto = "TCP"
	}
	return ip, proto
}
