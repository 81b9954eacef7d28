package overhead

import (
	"slices"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/resource"
)

// NodeReport is one node's answer, self-contained for printing.
type NodeReport struct {
	Node string
	// DaemonSets holds every DaemonSet of the Set, in namespace/name order.
	DaemonSets []Entry
	// Requests is the sum of the requests of the pods that land.
	Requests resource.List
	// Together is nil when no NodeState was given; otherwise whether the
	// pods that land fit the node all together, and what they leave.
	Together *Together
}

// Together says whether the daemon pods that land on a node fit it all
// together, as the scheduler would place them one after another
// (docs/overhead.md, F7), and what they leave for other pods.
type Together struct {
	Fits bool
	// Insufficient lists the resources some landing pod lacks once the
	// landing pods before it (in namespace/name order) are placed, sorted
	// and each named once; PortConflicts the host ports such a pod finds
	// bound, in order.
	Insufficient  []string
	PortConflicts []api.ContainerPort
	// Left is allocatable minus the requests of the pods already on the
	// node and of the landing daemon pods, per allocatable name ("pods"
	// less their number); negative where they overrun it. A landing
	// DaemonSet's own pod already there is its daemon pod, counted once.
	Left resource.List
}

// Entry is one DaemonSet's answer about one node.
type Entry struct {
	Daemon
	Decision placement.Decision
	// Lands reports Decision.ShouldRun.
	Lands bool
	// Fit is nil when no NodeState was given; otherwise the fit of the
	// DaemonSet's pod, judged whether or not it lands.
	Fit *Fit
	// Scheduling is nil when no NodeState was given or the pod does not
	// land there; otherwise what the scheduler does with the DaemonSet's
	// pod there ([Catalog.Schedule]): fits, stays Pending and why, or
	// preempts which pods (NotCreated when admission refuses it).
	Scheduling *Scheduling
}

// Report answers for n: Query, then each DaemonSet's requests and host
// ports, and with st non-nil each daemon pod's [Fit] and [Scheduling]. It allocates its
// result; use Query to ask many nodes without allocating.
func (s *Catalog) Report(n *api.Node, st *NodeState) NodeReport {
	var r NodeResult
	s.Query(n, &r)
	out := NodeReport{Node: n.Name, DaemonSets: make([]Entry, len(s.daemons)), Requests: s.Requests(&r)}
	for i := range s.daemons {
		e := Entry{Daemon: s.daemons[i].Daemon, Decision: r.Decisions[i], Lands: r.Lands(i)}
		if st != nil {
			f := s.Fit(i, st)
			e.Fit = &f
			// A pod the DaemonSet does not put on the node meets no
			// scheduler; one admission refuses is NotCreated.
			if e.Lands || len(s.daemons[i].Refused) > 0 {
				sch := s.Schedule(i, st)
				e.Scheduling = &sch
			}
		}
		out.DaemonSets[i] = e
	}
	if st != nil {
		out.Together = s.together(&r, st)
	}
	return out
}

// together judges the landing pods of r one after another, each against
// st with the landing pods before it added (F7), and sums what they leave.
func (s *Catalog) together(r *NodeResult, st *NodeState) *Together {
	landing := map[string]bool{}
	for i := range s.daemons {
		if r.Lands(i) && s.daemons[i].UID != "" {
			landing[s.daemons[i].UID] = true
		}
	}
	// A landing DaemonSet's pod already on the node is the pod judged.
	placed := NodeState{Allocatable: st.Allocatable, Nominated: st.Nominated}
	for _, p := range st.Pods {
		if !landing[p.OwnerUID] {
			placed.Pods = append(placed.Pods, p)
		}
	}
	t := &Together{Fits: true}
	for i := range s.daemons {
		if !r.Lands(i) {
			continue
		}
		f := s.Fit(i, &placed)
		t.Fits = t.Fits && f.Fits
		for _, name := range f.Insufficient {
			if !slices.Contains(t.Insufficient, name) {
				t.Insufficient = append(t.Insufficient, name)
			}
		}
		t.PortConflicts = append(t.PortConflicts, f.PortConflicts...)
		d := &s.daemons[i]
		placed.Pods = append(placed.Pods, PodUsage{OwnerUID: d.UID, Requests: d.Requests, HostPorts: d.HostPorts})
	}
	slices.Sort(t.Insufficient)
	used := resource.List{}
	for _, p := range placed.Pods {
		used = used.Add(p.Requests)
	}
	t.Left = resource.List{}
	for name, q := range st.Allocatable {
		if name == "pods" {
			t.Left[name] = q.Sub(resource.NewQuantity(int64(len(placed.Pods)), resource.DecimalSI))
			continue
		}
		t.Left[name] = q.Sub(used[name])
	}
	return t
}
