package api

import (
	"strings"

	"github.com/daemonplan/daemonplan/resource"
)

// PodResources returns the part of the template that decides what its pod
// requests, as package resource models it, without any defaulting: the
// containers' requests and limits, sidecars marked, the overhead and the
// pod-level requests. The lists are shared with t, not copied; neither
// side may change them.
//
// A nil t is the empty template.
func (t *PodTemplate) PodResources() resource.PodResources {
	if t == nil {
		t = &PodTemplate{}
	}
	return resource.PodResources{
		Containers:     resourceContainers(t.Containers, false),
		InitContainers: resourceContainers(t.InitContainers, true),
		Overhead:       t.Overhead,
		Requests:       t.Resources.Requests,
	}
}

func resourceContainers(cs []Container, init bool) []resource.Container {
	if len(cs) == 0 {
		return nil
	}
	out := make([]resource.Container, len(cs))
	for i := range cs {
		c := &cs[i]
		out[i] = resource.Container{
			Name:     c.Name,
			Requests: c.Resources.Requests,
			Limits:   c.Resources.Limits,
			Sidecar:  init && c.RestartPolicy == ContainerRestartPolicyAlways,
		}
	}
	return out
}

// Requests returns what a pod created from t requests of a node, as the
// scheduler computes it for the pod the API server stores
// (docs/overhead.md):
//
//  1. Container defaulting (upstream: SetDefaults_Pod): a resource in a
//     container's limits and missing from its requests is requested at
//     its limit, and every quantity is rounded up to 1m.
//  2. Pod-level defaulting (upstream: DefaultPodLevelResources, at pod
//     creation), when t sets pod-level requests or limits: a hugepages-*
//     resource the containers limit, with neither a pod-level request nor
//     a pod-level limit, gets the containers' aggregated limit as its
//     pod-level limit; then a pod-level request missing for cpu or memory
//     is taken from the containers' aggregated requests, and one still
//     missing for cpu, memory or hugepages-* from the pod-level limit.
//  3. The effective requests (upstream: component-helpers PodRequests):
//     regular containers summed, sidecars added, other init containers
//     taken as a maximum with the sidecars started before them, pod-level
//     requests replacing cpu, memory and hugepages-*, overhead added.
//
// The result is a new, non-nil List; a template without containers
// requests nothing but its overhead.
//
// A nil t is the empty template.
func (t *PodTemplate) Requests() resource.List {
	if t == nil {
		t = &PodTemplate{}
	}
	p := resource.Default(t.PodResources())
	podLimits := resource.Default(resource.PodResources{Overhead: t.Resources.Limits}).Overhead
	if len(p.Requests) > 0 || len(podLimits) > 0 {
		p.Requests = podLevelRequests(p, podLimits)
	}
	return resource.PodRequests(p)
}

// podLevelRequests returns the pod-level requests the API server stores for
// the defaulted pod p whose pod-level limits are limits (step 2 of
// Requests). The aggregates are the scheduler's formula, applied to the
// containers' requests and to their limits. Neither argument is changed.
//
// The API server's two versions of this defaulting (SetDefaults_Pod up to
// 1.36; DefaultPodLevelResources from 1.37, gate
// PodLevelResourcesFixDefaulting) differ only where they leave a cpu or
// memory request to the containers' aggregate, which the effective
// requests take from there anyway.
func podLevelRequests(p resource.PodResources, limits resource.List) resource.List {
	limits = limits.Add(nil) // a copy, never nil
	aggLimits := resource.PodRequests(resource.PodResources{
		Containers:     limitsAsRequests(p.Containers),
		InitContainers: limitsAsRequests(p.InitContainers),
	})
	for name, q := range aggLimits {
		if !isHugePages(name) {
			continue
		}
		_, requested := p.Requests[name]
		_, limited := limits[name]
		if !requested && !limited {
			limits[name] = q
		}
	}
	reqs := p.Requests.Add(nil) // a copy, never nil
	aggRequests := resource.PodRequests(resource.PodResources{Containers: p.Containers, InitContainers: p.InitContainers})
	for _, name := range [...]string{"cpu", "memory"} {
		if _, ok := reqs[name]; !ok {
			if q, ok := aggRequests[name]; ok {
				reqs[name] = q
			}
		}
	}
	for name, q := range limits {
		if _, ok := reqs[name]; !ok && (name == "cpu" || name == "memory" || isHugePages(name)) {
			reqs[name] = q
		}
	}
	return reqs
}

// limitsAsRequests returns cs with each container's limits in place of its
// requests, so that resource.PodRequests aggregates limits.
func limitsAsRequests(cs []resource.Container) []resource.Container {
	out := make([]resource.Container, len(cs))
	for i, c := range cs {
		out[i] = resource.Container{Name: c.Name, Requests: c.Limits, Sidecar: c.Sidecar}
	}
	return out
}

func isHugePages(name string) bool { return strings.HasPrefix(name, "hugepages-") }

// HostPorts returns the host ports a pod created from t binds, as the
// scheduler's NodePorts filter reads them (upstream: GetHostPorts): the
// ports of sidecar init containers, then of regular containers, in order,
// with a non-zero HostPort. With hostNetwork a port without HostPort binds
// its ContainerPort (upstream: SetDefaults_PodSpec). Protocol and HostIP
// are returned as written ("" for TCP and every address). The result is a
// new slice, nil when the pod binds no host port.
//
// A nil t is the empty template.
func (t *PodTemplate) HostPorts() []ContainerPort {
	if t == nil {
		t = &PodTemplate{}
	}
	var out []ContainerPort
	add := func(c *Container) {
		for _, p := range c.Ports {
			if p.HostPort == 0 && t.HostNetwork {
				p.HostPort = p.ContainerPort
			}
			if p.HostPort > 0 {
				out = append(out, p)
			}
		}
	}
	for i := range t.InitContainers {
		if c := &t.InitContainers[i]; c.RestartPolicy == ContainerRestartPolicyAlways {
			add(c)
		}
	}
	for i := range t.Containers {
		add(&t.Containers[i])
	}
	return out
}
