package api

import "github.com/daemonplan/daemonplan/resource"

// PodResources returns the part of the template that decides what its pod
// requests, as package resource models it, without any defaulting: the
// containers' requests and limits, sidecars marked, the overhead, and the
// pod-level requests and limits. The lists are shared with t, not copied;
// neither side may change them.
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
		Limits:         t.Resources.Limits,
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
// (docs/overhead.md): [resource.EffectiveRequests] of PodResources, that is
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
// requests only its overhead and its pod-level requests (or limits).
//
// A nil t is the empty template.
func (t *PodTemplate) Requests() resource.List {
	return resource.EffectiveRequests(t.PodResources())
}

// HostPorts returns the host ports a pod created from t binds, as the
// scheduler's NodePorts filter reads them (upstream: GetHostPorts): the
// ports of sidecar init containers, then of regular containers, in order,
// with a non-zero HostPort. With hostNetwork a port without HostPort binds
// its [ContainerPort] (upstream: SetDefaults_PodSpec). Protocol and HostIP
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
