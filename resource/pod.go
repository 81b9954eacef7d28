package resource

import "strings"

// Container is the part of a container or init container that decides
// what it requests.
type Container struct {
	Name string
	// Requests and Limits are resources.requests and resources.limits.
	Requests, Limits List
	// Sidecar marks an init container with restartPolicy: Always, which
	// keeps running beside the regular containers. It is ignored on
	// regular containers.
	Sidecar bool
}

// PodResources is the part of a pod spec that decides what the pod
// requests. The zero value is a pod without containers, which requests
// nothing.
type PodResources struct {
	Containers     []Container
	InitContainers []Container
	// Overhead is spec.overhead, added on top of everything else.
	Overhead List
	// Requests is spec.resources.requests, the pod-level requests. Only
	// cpu, memory and hugepages-* names count; a List with none of them is
	// as if unset.
	Requests List
	// Limits is spec.resources.limits, the pod-level limits. PodRequests
	// ignores them; Default derives missing pod-level requests from them.
	Limits List
}

// PodRequests returns what the pod requests of a node, as kube-scheduler
// v1.34 to v1.37 computes it (component-helpers resource.PodRequests with default
// options):
//
//  1. The requests of the regular containers, summed.
//  2. Init containers in order: a sidecar's requests are added to that sum
//     and to a running sidecar total; any other init container needs its
//     own requests plus the sidecar total so far.
//  3. Per resource, the maximum of the sum and every init container's need
//     (on a tie the earlier figure, and so its format, is kept).
//  4. Pod-level requests, when they name cpu, memory or a hugepages-*
//     resource, replace the figure for each such name they list.
//  5. Overhead, added.
//
// p is taken as stored: apply [Default] first (or call [EffectiveRequests]) for
// a pod as written by a user. The result is a new, non-nil [List].
func PodRequests(p PodResources) List {
	reqs := List{}
	for _, c := range p.Containers {
		addInto(reqs, c.Requests)
	}
	sidecars := List{}
	initNeeds := List{}
	for _, c := range p.InitContainers {
		if c.Sidecar {
			addInto(reqs, c.Requests)
			addInto(sidecars, c.Requests)
			maxInto(initNeeds, sidecars)
			continue
		}
		need := c.Requests.Add(sidecars)
		maxInto(initNeeds, need)
	}
	maxInto(reqs, initNeeds)
	if podLevelSet(p.Requests) {
		for name, q := range p.Requests {
			if podLevelResource(name) {
				reqs[name] = q
			}
		}
	}
	addInto(reqs, p.Overhead)
	return reqs
}

// podLevelResource reports whether pod-level resources may set name.
func podLevelResource(name string) bool {
	return name == "cpu" || name == "memory" || isHugePages(name)
}

func isHugePages(name string) bool { return strings.HasPrefix(name, "hugepages-") }

func podLevelSet(l List) bool {
	for name := range l {
		if podLevelResource(name) {
			return true
		}
	}
	return false
}

// Default returns a copy of p as the API server (v1.34 to v1.37) stores it:
//
//  1. For every container and init container, each resource in Limits
//     that is missing from Requests is added to Requests with the limit's
//     quantity.
//  2. Every quantity in every [List] is rounded up (away from zero) to a
//     multiple of 1m; quantities already such a multiple are kept as they
//     are, spelling included.
//  3. Pod-level defaulting (KEP-2837; upstream DefaultPodLevelResources),
//     when pod-level requests or limits are set: a hugepages-* resource
//     the containers limit, with neither a pod-level request nor limit,
//     gets the containers' aggregated limit (the [PodRequests] formula
//     applied to limits) as its pod-level limit; then a pod-level request
//     missing for cpu or memory is taken from the containers' aggregated
//     requests, and one still missing for cpu, memory or hugepages-* from
//     the pod-level limit. (Up to 1.36 SetDefaults_Pod did this only with
//     pod-level limits set; the two differ only in requests the effective
//     requests take from the containers anyway.)
//
// p is not changed.
func Default(p PodResources) PodResources {
	out := PodResources{
		Containers:     defaultContainers(p.Containers),
		InitContainers: defaultContainers(p.InitContainers),
		Overhead:       roundList(p.Overhead),
		Requests:       roundList(p.Requests),
		Limits:         roundList(p.Limits),
	}
	if len(out.Requests) > 0 || len(out.Limits) > 0 {
		out.defaultPodLevel()
	}
	return out
}

// defaultPodLevel is step 3 of Default, on a p whose lists are its own.
func (p *PodResources) defaultPodLevel() {
	if p.Limits == nil {
		p.Limits = List{}
	}
	if p.Requests == nil {
		p.Requests = List{}
	}
	aggLimits := PodRequests(PodResources{
		Containers:     limitsAsRequests(p.Containers),
		InitContainers: limitsAsRequests(p.InitContainers),
	})
	for name, q := range aggLimits {
		_, requested := p.Requests[name]
		_, limited := p.Limits[name]
		if isHugePages(name) && !requested && !limited {
			p.Limits[name] = q
		}
	}
	aggRequests := PodRequests(PodResources{Containers: p.Containers, InitContainers: p.InitContainers})
	for _, name := range [...]string{"cpu", "memory"} {
		if _, ok := p.Requests[name]; !ok {
			if q, ok := aggRequests[name]; ok {
				p.Requests[name] = q
			}
		}
	}
	for name, q := range p.Limits {
		if _, ok := p.Requests[name]; !ok && podLevelResource(name) {
			p.Requests[name] = q
		}
	}
}

// limitsAsRequests returns cs with each container's limits in place of its
// requests, so that PodRequests aggregates limits.
func limitsAsRequests(cs []Container) []Container {
	out := make([]Container, len(cs))
	for i, c := range cs {
		out[i] = Container{Name: c.Name, Requests: c.Limits, Sidecar: c.Sidecar}
	}
	return out
}

func defaultContainers(cs []Container) []Container {
	if cs == nil {
		return nil
	}
	out := make([]Container, len(cs))
	for i, c := range cs {
		req := roundList(c.Requests)
		for name, q := range c.Limits {
			if _, ok := c.Requests[name]; !ok {
				if req == nil {
					req = List{}
				}
				req[name] = q.roundUp(-3)
			}
		}
		c.Requests = req
		c.Limits = roundList(c.Limits)
		out[i] = c
	}
	return out
}

// roundList returns a copy of l with every quantity rounded up to a
// multiple of 1m, or nil for a nil l.
func roundList(l List) List {
	if l == nil {
		return nil
	}
	out := make(List, len(l))
	for name, q := range l {
		out[name] = q.roundUp(-3)
	}
	return out
}

// EffectiveRequests returns PodRequests(Default(p)): what a pod written as p
// requests of a node once the API server has stored it.
func EffectiveRequests(p PodResources) List {
	return PodRequests(Default(p))
}
