package overhead

import (
	"maps"
	"slices"
	"strconv"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
	"github.com/daemonplan/daemonplan/resource"
	"github.com/daemonplan/daemonplan/selector"
)

// InstanceType is one kind of machine a template's nodes may be, as a
// cloud provider lists them: the labels or requirements it adds to the
// template's (architecture, operating system, zone, instance type name)
// and what it holds.
type InstanceType struct {
	Name         string
	Labels       map[string]string
	Requirements []selector.Requirement
	// Capacity is informational; Allocatable is what pods may take
	// (status.allocatable of such a node): "pods" among them.
	Capacity, Allocatable resource.List
}

// TemplatePlan is a template's answer, self-contained for printing: each
// DaemonSet's answer and requests, and per instance type what the daemon
// pods take of a node of that type.
type TemplatePlan struct {
	DaemonSets []TemplateEntry
	// Overhead is the requests of the daemon pods over the whole template.
	Overhead Totals
	// InstanceTypes are in the order given.
	InstanceTypes []InstanceTypePlan
}

// TemplateEntry is one DaemonSet's answer about a template.
type TemplateEntry struct {
	Daemon
	TemplateAnswer
}

// Totals is what daemon pods request on one node of a template.
type Totals struct {
	// Every is the sum over the pods that land on every node: the least
	// any node of the template runs.
	Every resource.List
	// AtMost adds the pods whose answer is Depends: no node runs more. It
	// equals Every when nothing depends.
	AtMost resource.List
	// Pods is the number of daemon pods AtMost counts.
	Pods int
}

// InstanceTypePlan is the template narrowed to one instance type.
type InstanceTypePlan struct {
	Name string
	// NoNode names a label key on which the instance type contradicts the
	// template: the template produces no node of this type, and the
	// fields below are empty.
	NoNode string
	// Answers are the DaemonSets' answers on this type, in Set order.
	Answers  []TemplateAnswer
	Overhead Totals
	// Left is Allocatable minus Overhead.AtMost, per allocatable name
	// ("pods" less the daemon pods): what is left for workloads.
	Left resource.List
	// Fits reports that all the daemon pods of AtMost fit the type's
	// Allocatable together and bind no host port twice; Insufficient names
	// the resources they overrun (docs/overhead.md, F1–F4, for their sum),
	// PortConflicts the clashes.
	Fits          bool
	Insufficient  []string
	PortConflicts []PortConflict
}

// PortConflict is a host port that two daemon pods landing on one node
// both bind: the second of them (in Set order) cannot be scheduled.
type PortConflict struct {
	Port api.ContainerPort
	// First and Second are the DaemonSets' indices in the Set.
	First, Second int
}

// PlanTemplate answers QueryTemplate for t and, per instance type, for t
// narrowed by the type's labels and requirements (docs/overhead.md, A8):
// the daemon pods' requests, what is left of the type's allocatable, and
// whether the pods fit together. Malformed input is an error naming its
// field path ("instanceTypes[1].requirements[0].operator"), and so is a
// DaemonSet [Catalog.QueryTemplate] refuses (docs/never-harm.md, N15),
// for the template or for one of its types. The inputs are read, never
// changed.
func (s *Catalog) PlanTemplate(t *NodeTemplate, types []InstanceType) (TemplatePlan, error) {
	ct, err := CompileTemplate(t)
	if err != nil {
		return TemplatePlan{}, err
	}
	var errs field.ErrorList
	narrowed := make([]*CompiledTemplate, len(types))
	for i, it := range types {
		p := field.NewPath("instanceTypes").Index(i)
		n := *t
		n.Requirements = slices.Clone(t.Requirements)
		for j, r := range it.Requirements {
			if e := checkRequirement(p.Child("requirements").Index(j), r); len(e) > 0 {
				errs = append(errs, e...)
			}
			n.Requirements = append(n.Requirements, r)
		}
		for _, k := range slices.Sorted(maps.Keys(it.Labels)) {
			if k == "" {
				errs = append(errs, field.Invalid(p.Child("labels").Key(k), k, "must not be empty"))
				continue
			}
			n.Requirements = append(n.Requirements, selector.Requirement{Key: k, Operator: api.SelectorOpIn, Values: []string{it.Labels[k]}})
		}
		if len(errs) == 0 {
			if narrowed[i], err = CompileTemplate(&n); err != nil {
				return TemplatePlan{}, err
			}
		}
	}
	if len(errs) > 0 {
		return TemplatePlan{}, errs
	}
	var r TemplateResult
	if err := s.QueryTemplate(ct, &r); err != nil {
		return TemplatePlan{}, err
	}
	out := TemplatePlan{DaemonSets: make([]TemplateEntry, len(s.daemons)), Overhead: s.overhead(r.Answers)}
	for i := range s.daemons {
		out.DaemonSets[i] = TemplateEntry{Daemon: s.daemons[i].Daemon, TemplateAnswer: r.Answers[i]}
	}
	for i, it := range types {
		ip := InstanceTypePlan{Name: it.Name}
		if key, empty := narrowed[i].NoNode(); empty {
			ip.NoNode = key
			out.InstanceTypes = append(out.InstanceTypes, ip)
			continue
		}
		var ir TemplateResult
		if errs := s.queryTemplate(narrowed[i], &ir); len(errs) > 0 {
			return TemplatePlan{}, onType(errs, i, it.Name)
		}
		ip.Answers = ir.Answers
		ip.Overhead = s.overhead(ir.Answers)
		ip.Left = resource.List{}
		for name, q := range it.Allocatable {
			if name == "pods" {
				ip.Left[name] = q.Sub(resource.NewQuantity(int64(ip.Overhead.Pods), resource.DecimalSI))
				continue
			}
			ip.Left[name] = q.Sub(ip.Overhead.AtMost[name])
		}
		ip.Insufficient = s.insufficient(ir.Answers, it.Allocatable)
		ip.PortConflicts = s.portConflicts(ir.Answers)
		ip.Fits = len(ip.Insufficient) == 0 && len(ip.PortConflicts) == 0
		out.InstanceTypes = append(out.InstanceTypes, ip)
	}
	return out, nil
}

// onType says in each of QueryTemplate's refusals that it was for the
// instance type types[i].
func onType(errs field.ErrorList, i int, name string) field.ErrorList {
	out := make(field.ErrorList, len(errs))
	for j, e := range errs {
		c := *e
		c.Detail += " on instance type " + strconv.Quote(name) + " (instanceTypes[" + strconv.Itoa(i) + "])"
		out[j] = &c
	}
	return out
}

// lands reports whether DaemonSet i's pod lands on some node of a
// template: its answer is Every or Depends and admission lets it.
func (s *Catalog) lands(answers []TemplateAnswer, i int) bool {
	return answers[i].Lands() && len(s.daemons[i].Refused) == 0
}

// overhead sums the requests of the pods that land (refused pods land
// nowhere), in Set order.
func (s *Catalog) overhead(answers []TemplateAnswer) Totals {
	o := Totals{Every: resource.List{}, AtMost: resource.List{}}
	for i := range s.daemons {
		if len(s.daemons[i].Refused) > 0 {
			continue
		}
		switch answers[i].Answer {
		case Every:
			o.Every = o.Every.Add(s.daemons[i].Requests)
			fallthrough
		case Depends:
			o.AtMost = o.AtMost.Add(s.daemons[i].Requests)
			o.Pods++
		}
	}
	return o
}

// insufficient names the resources the landing pods' summed requests
// overrun, sorted, by the Fit rules applied to their sum.
func (s *Catalog) insufficient(answers []TemplateAnswer, alloc resource.List) []string {
	var want, have usage
	pods := 0
	for i := range s.daemons {
		if s.lands(answers, i) {
			want.add(s.daemons[i].Requests)
			pods++
		}
	}
	have.add(alloc)
	var out []string
	if q, ok := alloc["pods"]; pods > 0 && (!ok || int64(pods) > q.Value()) {
		out = append(out, "pods")
	}
	for name, w := range want.fixed {
		if w > 0 && w > have.fixed[name] {
			out = append(out, name)
		}
	}
	for name, w := range want.scalar {
		if w != 0 && w > have.scalar[name] {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// portConflicts lists the host ports two landing pods both bind.
func (s *Catalog) portConflicts(answers []TemplateAnswer) []PortConflict {
	var out []PortConflict
	for j := range s.daemons {
		if !s.lands(answers, j) {
			continue
		}
		for i := range j {
			if !s.lands(answers, i) {
				continue
			}
			for _, p := range s.daemons[j].HostPorts {
				if conflicts(p, s.daemons[i].HostPorts) {
					out = append(out, PortConflict{Port: p, First: i, Second: j})
				}
			}
		}
	}
	return out
}
