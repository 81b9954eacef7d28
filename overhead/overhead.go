package overhead

import (
	"cmp"
	"slices"

	"github.com/daemonplan/daemonplan/admission"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/resource"
)

// Catalog is a list of DaemonSets compiled once for node-centric questions.
type Catalog struct {
	// names are the resource names any DaemonSet requests, sorted; Result
	// totals are indexed like them.
	names   []string
	daemons []daemon
	// warnings are the negative quantities of the DaemonSets' resources.
	warnings field.ErrorList
	// refusals are the admission refusals of the DaemonSets' pods.
	refusals field.ErrorList
}

type daemon struct {
	Daemon
	elig *placement.Eligibility
	// tpl is the node predicate again, in the form template queries read.
	tpl tplDaemon
	// input is the DaemonSet's index in Compile's input, for error paths.
	input int
	// vec holds Requests by names index; has marks the names present.
	vec []resource.Quantity
	has []bool
}

// Daemon is what a [Catalog] knows about one of its DaemonSets.
type Daemon struct {
	Namespace, Name, UID string
	// Requests is the effective requests of the DaemonSet's pod
	// (api.PodTemplate.Requests).
	Requests resource.List
	// HostPorts are the host ports the pod binds (api.PodTemplate.HostPorts).
	HostPorts []api.ContainerPort
	// Priority and PreemptionPolicy are the pod's as admitted
	// (admission.Admitted; without admission, the template's spec.priority,
	// 0 when unset, and spec.preemptionPolicy, PreemptLowerPriority when
	// unset). Preemption reads them ([Catalog.Schedule]).
	Priority         int32
	PreemptionPolicy string
	// Refused lists why the API server would refuse the DaemonSet's pod
	// (docs/overhead.md, AD6), with paths under
	// daemonSets[i].spec.template.spec; empty when it is created. A
	// refused pod lands nowhere: the controller's create fails.
	Refused field.ErrorList
}

// Options are what [Compile] takes besides the DaemonSets.
type Options struct {
	// Placement sets toleration matching and IgnoredDuringExecution
	// (which changes the Decisions reported, not which pods land); the
	// burst limit plays no part.
	Placement placement.Options
	// Admission, when not nil, admits each DaemonSet's pod in its
	// namespace before its requests are computed (docs/overhead.md,
	// AD1–AD7): LimitRange defaults, priority, RuntimeClass overhead. Nil
	// takes the templates as written, as before admission was modelled.
	Admission *admission.Rules
}

// Compile compiles dss, sorted by namespace then name (ties keep their
// input order), with opts. The DaemonSets are read, never changed, and
// must not change while the [Catalog] is in use. A DaemonSet being deleted is
// compiled like any other: the caller decides whether it still counts.
func Compile(dss []*api.DaemonSet, opts Options) *Catalog {
	s := &Catalog{daemons: make([]daemon, len(dss))}
	seen := map[string]bool{}
	for i, ds := range dss {
		d := &s.daemons[i]
		p := field.NewPath("daemonSets").Index(i)
		adm := opts.Admission.Admit(ds.Namespace, &ds.Template)
		d.Daemon = Daemon{
			Namespace: ds.Namespace, Name: ds.Name, UID: ds.UID,
			Requests:         adm.Template.Requests(),
			HostPorts:        adm.Template.HostPorts(),
			Priority:         adm.Priority,
			PreemptionPolicy: adm.PreemptionPolicy,
			Refused:          adm.Refused.Prefix(p.Child("spec", "template").String()),
		}
		s.refusals = append(s.refusals, d.Refused...)
		d.elig = placement.NewEligibility(ds, opts.Placement)
		d.tpl = newTplDaemon(ds, opts.Placement)
		d.input = i
		s.warnings = append(s.warnings, negativeQuantities(p, &ds.Template)...)
		for name := range d.Requests {
			if !seen[name] {
				seen[name] = true
				s.names = append(s.names, name)
			}
		}
	}
	slices.SortStableFunc(s.daemons, func(a, b daemon) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	slices.Sort(s.names)
	for i := range s.daemons {
		d := &s.daemons[i]
		d.vec = make([]resource.Quantity, len(s.names))
		d.has = make([]bool, len(s.names))
		for j, name := range s.names {
			d.vec[j], d.has[j] = d.Requests[name]
		}
	}
	return s
}

// Len returns the number of DaemonSets in s.
func (s *Catalog) Len() int { return len(s.daemons) }

// Daemon returns the i-th DaemonSet of s (0 ≤ i < Len), in namespace/name
// order. Its lists are shared with s and must not be changed.
func (s *Catalog) Daemon(i int) Daemon { return s.daemons[i].Daemon }

// Refusals returns every DaemonSet's [Daemon.Refused], in Compile's input
// order: the pods admission would refuse (docs/overhead.md, AD6). Empty
// without Options.Admission. The list is s's own; do not change it.
func (s *Catalog) Refusals() field.ErrorList { return s.refusals }

// Names returns the resource names any DaemonSet of s requests, sorted:
// the index of [NodeResult.Total]. The slice is shared with s and must not be
// changed.
func (s *Catalog) Names() []string { return s.names }

// NodeResult is one node's answer, laid out for reuse: Query overwrites it and
// allocates only to grow its slices to the [Catalog]'s size.
type NodeResult struct {
	// Decisions[i] is DaemonSet i's decision about the node
	// (placement.Eligibility.Decide).
	Decisions []placement.Decision
	// Total[j] is the sum of Names()[j] over the DaemonSets whose pod
	// lands; Has[j] reports whether any of them requests it.
	Total []resource.Quantity
	Has   []bool
	// refused[i] reports that DaemonSet i's pod is refused by admission.
	refused []bool
}

// Lands reports whether DaemonSet i puts a pod on the node: the
// controller would create one there (Decision.ShouldRun) and admission
// lets it ([Daemon.Refused] empty). A pod the controller only lets
// continue (an untolerated NoSchedule taint) does not land on a new node
// and is not counted.
func (r *NodeResult) Lands(i int) bool { return r.Decisions[i].ShouldRun && !r.refused[i] }

// Query decides every DaemonSet of s about n and sums the requests of the
// pods that land ([NodeResult.Lands]) (in namespace/name order; a sum keeps the format of its
// first operand, as apimachinery's Add does). It allocates nothing when r
// already holds slices of s's sizes, as after a first Query with the same
// [Catalog]. n is read, never changed.
func (s *Catalog) Query(n *api.Node, r *NodeResult) {
	r.Decisions = grow(r.Decisions, len(s.daemons))
	r.Total = grow(r.Total, len(s.names))
	r.Has = grow(r.Has, len(s.names))
	r.refused = grow(r.refused, len(s.daemons))
	clear(r.Total)
	clear(r.Has)
	for i := range s.daemons {
		d := &s.daemons[i]
		dec := d.elig.Decide(n)
		r.Decisions[i] = dec
		r.refused[i] = len(d.Refused) > 0
		if !r.Lands(i) {
			continue
		}
		for j, ok := range d.has {
			if ok {
				r.Total[j] = r.Total[j].Add(d.vec[j])
				r.Has[j] = true
			}
		}
	}
}

// grow returns s resliced to n elements, reallocated only when too small.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// Requests returns r's total as a new List of the names some landing
// DaemonSet requests.
func (s *Catalog) Requests(r *NodeResult) resource.List {
	out := resource.List{}
	for j, name := range s.names {
		if r.Has[j] {
			out[name] = r.Total[j]
		}
	}
	return out
}
