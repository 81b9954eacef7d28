package admission

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
	"github.com/daemonplan/daemonplan/resource"
)

// The LimitRange item types (core/v1 LimitType).
const (
	LimitTypeContainer             = "Container"
	LimitTypePod                   = "Pod"
	LimitTypePersistentVolumeClaim = "PersistentVolumeClaim"
)

// The built-in PriorityClasses every API server creates at start
// (upstream pkg/apis/scheduling: SystemPriorityClasses); a class of that
// name given to [Compile] replaces it.
const (
	SystemClusterCritical         = "system-cluster-critical"
	SystemNodeCritical            = "system-node-critical"
	SystemClusterCriticalPriority = int32(2000000000)
	SystemNodeCriticalPriority    = SystemClusterCriticalPriority + 1000
)

// LimitRange is one namespace's LimitRange (core/v1), the part admission
// reads.
type LimitRange struct {
	Namespace, Name string
	Limits          []LimitRangeItem
}

// LimitRangeItem is one entry of spec.limits. Only Container items default
// anything; Min, Max and MaxLimitRequestRatio of Container and Pod items
// are checked on the admitted pod; PersistentVolumeClaim items play no
// part (docs/overhead.md, AD2, AD6).
type LimitRangeItem struct {
	// Type is LimitTypeContainer, LimitTypePod or
	// LimitTypePersistentVolumeClaim.
	Type                                                    string
	Max, Min, Default, DefaultRequest, MaxLimitRequestRatio resource.List
}

// PriorityClass is a scheduling.k8s.io/v1 PriorityClass.
type PriorityClass struct {
	Name          string
	Value         int32
	GlobalDefault bool
	// PreemptionPolicy is api.PreemptLowerPriority or api.PreemptNever; ""
	// is PreemptLowerPriority, as the API server stores it.
	PreemptionPolicy string
}

// RuntimeClass is a node.k8s.io/v1 RuntimeClass, the part admission
// reads: overhead.podFixed, nil when the class sets no overhead. Its
// scheduling (nodeSelector, tolerations) is not modelled
// (docs/overhead.md, AD7).
type RuntimeClass struct {
	Name     string
	Overhead resource.List
}

// ClusterObjects are what admission reads of a cluster: its LimitRanges,
// PriorityClasses and RuntimeClasses, as given. Order does not
// matter: LimitRanges are applied by name (AD2).
type ClusterObjects struct {
	LimitRanges     []LimitRange
	PriorityClasses []PriorityClass
	RuntimeClasses  []RuntimeClass
}

// Rules are [ClusterObjects] checked and laid out for [Rules.Admit].
type Rules struct {
	// limitRanges are per namespace, in name order, their items defaulted
	// (AD2).
	limitRanges map[string][]LimitRange
	classes     map[string]PriorityClass
	// def is the global default class, nil for none.
	def      *PriorityClass
	runtimes map[string]RuntimeClass
}

// Compile checks o and returns its [Rules]. Every problem is reported, as a
// field.ErrorList, with its path: a missing name (Required), a name given
// twice (Duplicate: per namespace for LimitRanges), an unknown limit type or
// preemption policy (NotSupported), a negative quantity (Invalid). o is
// read, never changed; the Rules share nothing with it.
func Compile(o ClusterObjects) (*Rules, error) {
	var errs field.ErrorList
	r := &Rules{
		limitRanges: map[string][]LimitRange{},
		classes: map[string]PriorityClass{
			SystemClusterCritical: {Name: SystemClusterCritical, Value: SystemClusterCriticalPriority, PreemptionPolicy: api.PreemptLowerPriority},
			SystemNodeCritical:    {Name: SystemNodeCritical, Value: SystemNodeCriticalPriority, PreemptionPolicy: api.PreemptLowerPriority},
		},
		runtimes: map[string]RuntimeClass{},
	}
	seen := map[[2]string]bool{}
	for i, lr := range o.LimitRanges {
		p := field.NewPath("limitRanges").Index(i)
		if lr.Name == "" {
			errs = append(errs, field.Required(p.Child("metadata", "name"), "a LimitRange needs a name"))
		}
		if lr.Namespace == "" {
			errs = append(errs, field.Required(p.Child("metadata", "namespace"), "a LimitRange is namespaced"))
		}
		if k := [2]string{lr.Namespace, lr.Name}; lr.Name != "" && seen[k] {
			errs = append(errs, field.Duplicate(p.Child("metadata", "name"), lr.Name))
		} else {
			seen[k] = true
		}
		c := LimitRange{Namespace: lr.Namespace, Name: lr.Name, Limits: make([]LimitRangeItem, len(lr.Limits))}
		for j, it := range lr.Limits {
			ip := p.Child("spec", "limits").Index(j)
			switch it.Type {
			case LimitTypeContainer, LimitTypePod, LimitTypePersistentVolumeClaim:
			default:
				errs = append(errs, field.NotSupported(ip.Child("type"), it.Type, LimitTypeContainer, LimitTypePod, LimitTypePersistentVolumeClaim))
			}
			for _, l := range []struct {
				name string
				list resource.List
			}{{"max", it.Max}, {"min", it.Min}, {"default", it.Default}, {"defaultRequest", it.DefaultRequest}, {"maxLimitRequestRatio", it.MaxLimitRequestRatio}} {
				errs = append(errs, api.ValidateQuantities(ip.Child(l.name), l.list)...)
			}
			c.Limits[j] = defaultItem(it)
		}
		r.limitRanges[lr.Namespace] = append(r.limitRanges[lr.Namespace], c)
	}
	for _, lrs := range r.limitRanges {
		slices.SortStableFunc(lrs, func(a, b LimitRange) int { return cmp.Compare(a.Name, b.Name) })
	}
	given := map[string]bool{}
	for i, pc := range o.PriorityClasses {
		p := field.NewPath("priorityClasses").Index(i)
		if e := nameOnce(p, "PriorityClass", pc.Name, given); e != nil {
			errs = append(errs, e)
			continue
		}
		switch pc.PreemptionPolicy {
		case "":
			pc.PreemptionPolicy = api.PreemptLowerPriority
		case api.PreemptLowerPriority, api.PreemptNever:
		default:
			errs = append(errs, field.NotSupported(p.Child("preemptionPolicy"), pc.PreemptionPolicy, api.PreemptLowerPriority, api.PreemptNever))
		}
		r.classes[pc.Name] = pc
	}
	// AD4: of several global defaults, the lowest value; among equal
	// values the first by name, so that the answer never depends on input
	// order.
	for _, name := range slices.Sorted(maps.Keys(r.classes)) {
		pc := r.classes[name]
		if pc.GlobalDefault && (r.def == nil || pc.Value < r.def.Value) {
			r.def = &pc
		}
	}
	rseen := map[string]bool{}
	for i, rc := range o.RuntimeClasses {
		p := field.NewPath("runtimeClasses").Index(i)
		if e := nameOnce(p, "RuntimeClass", rc.Name, rseen); e != nil {
			errs = append(errs, e)
			continue
		}
		errs = append(errs, api.ValidateQuantities(p.Child("overhead", "podFixed"), rc.Overhead)...)
		r.runtimes[rc.Name] = RuntimeClass{Name: rc.Name, Overhead: maps.Clone(rc.Overhead)}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return r, nil
}

// nameOnce checks the name of the cluster-scoped object of kind at p: it
// is set, and not one given before (seen, which it records).
func nameOnce(p *field.Path, kind, name string, seen map[string]bool) *field.Error {
	switch {
	case name == "":
		return field.Required(p.Child("metadata", "name"), "a "+kind+" needs a name")
	case seen[name]:
		return field.Duplicate(p.Child("metadata", "name"), name)
	}
	seen[name] = true
	return nil
}

// defaultItem returns a copy of it as the API server stores it (AD2;
// upstream pkg/apis/core/v1/defaults.go, SetDefaults_LimitRangeItem): on a
// Container item, a default limit missing is the max; a default request
// missing is the default limit, or else the min.
func defaultItem(it LimitRangeItem) LimitRangeItem {
	out := LimitRangeItem{
		Type: it.Type, Max: maps.Clone(it.Max), Min: maps.Clone(it.Min),
		Default: maps.Clone(it.Default), DefaultRequest: maps.Clone(it.DefaultRequest),
		MaxLimitRequestRatio: maps.Clone(it.MaxLimitRequestRatio),
	}
	if it.Type != LimitTypeContainer {
		return out
	}
	out.Default = fill(out.Default, it.Max)
	out.DefaultRequest = fill(out.DefaultRequest, out.Default)
	out.DefaultRequest = fill(out.DefaultRequest, it.Min)
	return out
}

// fill adds to dst every name of from that dst lacks, and returns dst
// (allocated when nil and something is added).
func fill(dst, from resource.List) resource.List {
	for name, q := range from {
		if _, ok := dst[name]; !ok {
			if dst == nil {
				dst = resource.List{}
			}
			dst[name] = q
		}
	}
	return dst
}

// Admitted is a template as admission leaves the pod created from it.
type Admitted struct {
	// Template is the pod's spec once stored: containers defaulted (AD1)
	// and given the LimitRange defaults (AD2), priority class name,
	// priority and preemption policy set (AD4), overhead from the
	// RuntimeClass (AD5). It shares nothing with the template given.
	Template api.PodTemplate
	// Priority is the pod's priority (spec.priority as stored).
	Priority int32
	// PreemptionPolicy is api.PreemptLowerPriority or api.PreemptNever,
	// never "".
	PreemptionPolicy string
	// Refused lists why the API server would refuse the pod (AD6), with
	// paths under "spec" (the template's spec); empty when it is created.
	// A refused pod is never created: the controller's create fails.
	Refused field.ErrorList
}

// Admit returns t as the API server stores a pod created from it in
// namespace (docs/overhead.md, AD1–AD6):
//
//  1. Containers are defaulted first, as the API server decodes the pod:
//     a resource in a container's limits and missing from its requests is
//     requested at its limit.
//  2. LimitRanger: for the namespace's LimitRanges in name order, every
//     container and init container gains each default limit and default
//     request of their Container items that it lacks; a request or limit
//     already there, even "0", stays. Pod-level resources are untouched.
//  3. The pod-level defaulting and the effective requests follow, in
//     api.PodTemplate.Requests of the result.
//  4. Priority: an empty class name takes the global default class (the
//     lowest value among several), or priority 0 and PreemptLowerPriority
//     when there is none; a named class gives its value and policy, the
//     built-ins system-node-critical and system-cluster-critical included.
//  5. RuntimeClass: a named class's overhead becomes spec.overhead.
//  6. Refusals: a class that does not exist, a spec.priority or
//     preemptionPolicy that differs from the class's, an overhead that
//     differs from the RuntimeClass's (or is set without one), a request
//     above its limit, a LimitRange's min, max or maxLimitRequestRatio
//     broken by a container (Container items) or by the pod's sums (Pod
//     items).
//
// A nil r admits nothing: Template is a copy of t, Priority is
// t.Priority (0 when nil) and PreemptionPolicy t's (PreemptLowerPriority
// when ""). A nil t is the empty template. t is read, never changed.
func (r *Rules) Admit(namespace string, t *api.PodTemplate) Admitted {
	if t == nil {
		t = &api.PodTemplate{}
	}
	out := Admitted{Template: t.DeepCopy(), PreemptionPolicy: api.PreemptLowerPriority}
	if r == nil {
		if t.Priority != nil {
			out.Priority = *t.Priority
		}
		if t.PreemptionPolicy != "" {
			out.PreemptionPolicy = t.PreemptionPolicy
		}
		return out
	}
	spec := field.NewPath("spec")
	tpl := &out.Template
	defaultContainers(tpl.Containers)
	defaultContainers(tpl.InitContainers)
	for _, lr := range r.limitRanges[namespace] {
		req, lim := containerDefaults(&lr)
		mergeDefaults(tpl.Containers, req, lim)
		mergeDefaults(tpl.InitContainers, req, lim)
	}
	out.Refused = append(out.Refused, r.priority(spec, tpl, &out)...)
	out.Refused = append(out.Refused, r.runtime(spec, tpl)...)
	out.Refused = append(out.Refused, requestsAboveLimits(spec, tpl)...)
	out.Refused = append(out.Refused, r.limitBounds(spec, namespace, tpl)...)
	return out
}

// defaultContainers requests each limited resource a container does not
// request at its limit (AD1; upstream SetDefaults_Pod). cs is the
// caller's own copy.
func defaultContainers(cs []api.Container) {
	for i := range cs {
		c := &cs[i]
		for name, q := range c.Resources.Limits {
			if _, ok := c.Resources.Requests[name]; !ok {
				if c.Resources.Requests == nil {
					c.Resources.Requests = resource.List{}
				}
				c.Resources.Requests[name] = q
			}
		}
	}
}

// containerDefaults collects one LimitRange's default requests and limits
// from its Container items, a later item replacing an earlier one's value
// (AD2; upstream limitranger: defaultContainerResourceRequirements).
func containerDefaults(lr *LimitRange) (req, lim resource.List) {
	req, lim = resource.List{}, resource.List{}
	for _, it := range lr.Limits {
		if it.Type != LimitTypeContainer {
			continue
		}
		maps.Copy(req, it.DefaultRequest)
		maps.Copy(lim, it.Default)
	}
	return req, lim
}

// mergeDefaults gives each container the defaults it lacks (AD2; upstream
// limitranger: mergePodResourceRequirements, mergeContainerResources).
func mergeDefaults(cs []api.Container, req, lim resource.List) {
	for i := range cs {
		r := &cs[i].Resources
		r.Limits = fill(r.Limits, lim)
		r.Requests = fill(r.Requests, req)
	}
}

// priority sets the class name, priority and policy (AD4; upstream
// plugin/pkg/admission/priority: admitPod, establishPriority,
// getDefaultPriorityClass).
func (r *Rules) priority(spec *field.Path, tpl *api.PodTemplate, out *Admitted) field.ErrorList {
	var pc PriorityClass
	switch {
	case tpl.PriorityClassName != "":
		c, ok := r.classes[tpl.PriorityClassName]
		if !ok {
			return field.ErrorList{field.Forbidden(spec.Child("priorityClassName"), fmt.Sprintf("no PriorityClass with name %s was found", tpl.PriorityClassName))}
		}
		pc = c
	case r.def != nil:
		pc = *r.def
	default:
		pc = PriorityClass{PreemptionPolicy: api.PreemptLowerPriority}
	}
	var errs field.ErrorList
	tpl.PriorityClassName = pc.Name
	if tpl.Priority != nil && *tpl.Priority != pc.Value {
		errs = append(errs, field.Forbidden(spec.Child("priority"), fmt.Sprintf("the integer value of priority (%d) must not be provided in pod spec; priority admission controller computed %d from the given PriorityClass name", *tpl.Priority, pc.Value)))
	}
	v := pc.Value
	tpl.Priority = &v
	if tpl.PreemptionPolicy != "" && tpl.PreemptionPolicy != pc.PreemptionPolicy {
		errs = append(errs, field.Forbidden(spec.Child("preemptionPolicy"), fmt.Sprintf("the string value of PreemptionPolicy (%s) must not be provided in pod spec; priority admission controller computed %s from the given PriorityClass name", tpl.PreemptionPolicy, pc.PreemptionPolicy)))
	}
	tpl.PreemptionPolicy = pc.PreemptionPolicy
	out.Priority, out.PreemptionPolicy = v, pc.PreemptionPolicy
	return errs
}

// runtime sets the overhead from the RuntimeClass (AD5; upstream
// plugin/pkg/admission/runtimeclass: prepareObjects, setOverhead,
// validateOverhead).
func (r *Rules) runtime(spec *field.Path, tpl *api.PodTemplate) field.ErrorList {
	p := spec.Child("overhead")
	var rc RuntimeClass
	if tpl.RuntimeClassName != "" {
		c, ok := r.runtimes[tpl.RuntimeClassName]
		if !ok {
			return field.ErrorList{field.Forbidden(spec.Child("runtimeClassName"), fmt.Sprintf("pod rejected: RuntimeClass %q not found", tpl.RuntimeClassName))}
		}
		rc = c
	}
	if rc.Overhead == nil {
		if tpl.Overhead != nil {
			return field.ErrorList{field.Forbidden(p, "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead")}
		}
		return nil
	}
	if len(tpl.Overhead) > 0 && !sameList(tpl.Overhead, rc.Overhead) {
		return field.ErrorList{field.Forbidden(p, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead")}
	}
	tpl.Overhead = maps.Clone(rc.Overhead)
	return nil
}

// sameList reports whether a and b hold the same names at equal values.
func sameList(a, b resource.List) bool {
	if len(a) != len(b) {
		return false
	}
	for name, q := range a {
		if o, ok := b[name]; !ok || !q.Equal(o) {
			return false
		}
	}
	return true
}

type containerList struct {
	name string
	list []api.Container
}

func containerLists(tpl *api.PodTemplate) []containerList {
	return []containerList{{"containers", tpl.Containers}, {"initContainers", tpl.InitContainers}}
}

// requestsAboveLimits refuses a request above its limit (AD6; upstream
// pkg/apis/core/validation: ValidateResourceRequirements), as a
// LimitRange's default limit below a container's own request makes it.
func requestsAboveLimits(spec *field.Path, tpl *api.PodTemplate) field.ErrorList {
	var errs field.ErrorList
	for _, cl := range containerLists(tpl) {
		for j := range cl.list {
			res := cl.list[j].Resources
			for _, name := range res.Limits.Names() {
				if q, ok := res.Requests[name]; ok && q.Cmp(res.Limits[name]) > 0 {
					errs = append(errs, field.Invalid(spec.Child(cl.name).Index(j).Child("resources", "requests").Key(name), q.String(), fmt.Sprintf("must be less than or equal to %s limit of %s", name, res.Limits[name])))
				}
			}
		}
	}
	return errs
}

// limitBounds refuses a pod outside a LimitRange's bounds (AD6; upstream
// limitranger: PodValidateLimitFunc, minConstraint, maxConstraint,
// limitRequestRatioConstraint, podRequests, podLimits). It runs, as
// validating admission does, on the pod once stored: containers and
// pod-level resources defaulted (resource.Default). A Container item
// bounds each container and init container, a Pod item the pod's
// aggregated requests and limits (containers summed, sidecars added, every
// other init container with the sidecars before it taken as a maximum;
// pod-level cpu and memory replacing those sums).
func (r *Rules) limitBounds(spec *field.Path, namespace string, tpl *api.PodTemplate) field.ErrorList {
	lrs := r.limitRanges[namespace]
	if len(lrs) == 0 {
		return nil
	}
	stored := resource.Default(tpl.PodResources())
	var errs field.ErrorList
	for _, lr := range lrs {
		for _, it := range lr.Limits {
			switch it.Type {
			case LimitTypeContainer:
				for _, cl := range []struct {
					name string
					list []resource.Container
				}{{"containers", stored.Containers}, {"initContainers", stored.InitContainers}} {
					for j, c := range cl.list {
						p := spec.Child(cl.name).Index(j).Child("resources")
						errs = append(errs, bounds(p, &lr, &it, c.Requests, c.Limits)...)
					}
				}
			case LimitTypePod:
				req, lim := podSums(stored)
				errs = append(errs, bounds(spec.Child("resources"), &lr, &it, req, lim)...)
			}
		}
	}
	return errs
}

// podSums are LimitRanger's aggregated requests and limits of a stored pod
// (upstream limitranger: podRequests, podLimits): overhead left out,
// pod-level cpu and memory (not hugepages) replacing the sums.
func podSums(p resource.PodResources) (req, lim resource.List) {
	req = resource.PodRequests(resource.PodResources{Containers: p.Containers, InitContainers: p.InitContainers})
	asReq := func(cs []resource.Container) []resource.Container {
		out := make([]resource.Container, len(cs))
		for i, c := range cs {
			out[i] = resource.Container{Name: c.Name, Requests: c.Limits, Sidecar: c.Sidecar}
		}
		return out
	}
	lim = resource.PodRequests(resource.PodResources{Containers: asReq(p.Containers), InitContainers: asReq(p.InitContainers)})
	for _, name := range []string{"cpu", "memory"} {
		if q, ok := p.Requests[name]; ok {
			req[name] = q
		}
		if q, ok := p.Limits[name]; ok {
			lim[name] = q
		}
	}
	return req, lim
}

// bounds checks one item's min, max and maxLimitRequestRatio against
// requests and limits, each problem Forbidden at p: a min needs a request,
// and a request and limit no lower; a max needs a limit, and a limit and
// request no higher; a ratio needs a non-zero request and limit whose
// ratio is no higher.
func bounds(p *field.Path, lr *LimitRange, it *LimitRangeItem, req, lim resource.List) field.ErrorList {
	var errs field.ErrorList
	bad := func(at *field.Path, format string, args ...any) {
		errs = append(errs, field.Forbidden(at, "LimitRange "+lr.Name+": "+fmt.Sprintf(format, args...)))
	}
	for _, name := range it.Min.Names() {
		lo := it.Min[name]
		q, hasReq := req[name]
		l, hasLim := lim[name]
		rv, lv, ev := enforcedValues(q, l, lo)
		switch {
		case !hasReq:
			bad(p.Child("requests").Key(name), "minimum %s usage per %s is %s.  No request is specified", name, it.Type, lo)
		case rv < ev:
			bad(p.Child("requests").Key(name), "minimum %s usage per %s is %s, but request is %s", name, it.Type, lo, q)
		case hasLim && lv < ev:
			bad(p.Child("limits").Key(name), "minimum %s usage per %s is %s, but limit is %s", name, it.Type, lo, l)
		}
	}
	for _, name := range it.Max.Names() {
		hi := it.Max[name]
		q, hasReq := req[name]
		l, hasLim := lim[name]
		rv, lv, ev := enforcedValues(q, l, hi)
		switch {
		case !hasLim:
			bad(p.Child("limits").Key(name), "maximum %s usage per %s is %s.  No limit is specified", name, it.Type, hi)
		case lv > ev:
			bad(p.Child("limits").Key(name), "maximum %s usage per %s is %s, but limit is %s", name, it.Type, hi, l)
		case hasReq && rv > ev:
			bad(p.Child("requests").Key(name), "maximum %s usage per %s is %s, but request is %s", name, it.Type, hi, q)
		}
	}
	for _, name := range it.MaxLimitRequestRatio.Names() {
		ratio := it.MaxLimitRequestRatio[name]
		q, hasReq := req[name]
		l, hasLim := lim[name]
		rv, lv, _ := enforcedValues(q, l, ratio)
		switch {
		case !hasReq || rv == 0:
			bad(p.Child("requests").Key(name), "%s max limit to request ratio per %s is %s, but no request is specified or request is 0", name, it.Type, ratio)
		case !hasLim || lv == 0:
			bad(p.Child("limits").Key(name), "%s max limit to request ratio per %s is %s, but no limit is specified or limit is 0", name, it.Type, ratio)
		default:
			observed := float64(lv) / float64(rv)
			allowed := float64(ratio.Value())
			if ratio.Value() <= maxMilliValue {
				observed, allowed = observed*1000, float64(ratio.MilliValue())
			}
			if observed > allowed {
				bad(p.Child("limits").Key(name), "%s max limit to request ratio per %s is %s, but provided ratio is %f", name, it.Type, ratio, float64(lv)/float64(rv))
			}
		}
	}
	return errs
}

// maxMilliValue is the largest value whose milli-value fits an int64.
const maxMilliValue = math.MaxInt64 / 1000

// enforcedValues are a request, limit and bound in one unit, as LimitRanger
// compares them (upstream limitranger: requestLimitEnforcedValues):
// milli-units when all three allow it, whole units (rounded up) otherwise.
func enforcedValues(req, lim, enforced resource.Quantity) (r, l, e int64) {
	r, l, e = req.Value(), lim.Value(), enforced.Value()
	if r <= maxMilliValue && l <= maxMilliValue && e <= maxMilliValue {
		return req.MilliValue(), lim.MilliValue(), enforced.MilliValue()
	}
	return r, l, e
}
