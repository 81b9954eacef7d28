package overhead

import (
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
	// Scheduling is nil when no NodeState was given; otherwise what the
	// scheduler does with the DaemonSet's pod there ([Catalog.Schedule]):
	// fits, stays Pending and why, or preempts which pods.
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
			sch := s.Schedule(i, st)
			e.Scheduling = &sch
		}
		out.DaemonSets[i] = e
	}
	return out
}
