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
	// as if unset. Pod-level limits are not modelled: they play no part in
	// PodRequests, and the API server's defaulting of pod-level requests
	// from them is not implemented by Default.
	Requests List
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
// p is taken as stored: apply Default first (or call EffectiveRequests) for
// a pod as written by a user. The result is a new, non-nil List.
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
	return name == "cpu" || name == "memory" || strings.HasPrefix(name, "hugepages-")
}

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
//  2. Every quantity in every List is rounded up (away from zero) to a
//     multiple of 1m; quantities already such a multiple are kept as they
//     are, spelling included.
//
// The API server also defaults pod-level requests from pod-level limits
// (KEP-2837); PodResources does not model pod-level limits, so that step is
// left to the caller. p is not changed.
func Default(p PodResources) PodResources {
	out := PodResources{
		Containers:     defaultContainers(p.Containers),
		InitContainers: defaultContainers(p.InitContainers),
		Overhead:       roundList(p.Overhead),
		Requests:       roundList(p.Requests),
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
