package api

import (
	"maps"
	"slices"
)

// The DeepCopy methods return copies that share no memory with their
// receiver: maps, slices and pointers are copied at every level, nil stays
// nil and empty stays empty (a nil selector and an empty one mean different
// things). A nil receiver gives nil.

// DeepCopy returns a deep copy of ds.
func (ds *DaemonSet) DeepCopy() *DaemonSet {
	if ds == nil {
		return nil
	}
	out := *ds
	out.Annotations = maps.Clone(ds.Annotations)
	out.Selector = ds.Selector.DeepCopy()
	out.Template = ds.Template.DeepCopy()
	out.TemplateData = slices.Clone(ds.TemplateData)
	out.UpdateStrategy = ds.UpdateStrategy.DeepCopy()
	out.RevisionHistoryLimit = clonePtr(ds.RevisionHistoryLimit)
	out.Status = ds.Status.DeepCopy()
	return &out
}

// DeepCopy returns a deep copy of t.
func (t PodTemplate) DeepCopy() PodTemplate {
	t.Labels = maps.Clone(t.Labels)
	t.Annotations = maps.Clone(t.Annotations)
	t.NodeSelector = maps.Clone(t.NodeSelector)
	t.RequiredNodeAffinity = t.RequiredNodeAffinity.DeepCopy()
	t.Tolerations = CloneTolerations(t.Tolerations)
	t.ActiveDeadlineSeconds = clonePtr(t.ActiveDeadlineSeconds)
	t.Containers = cloneContainers(t.Containers)
	t.InitContainers = cloneContainers(t.InitContainers)
	t.Overhead = maps.Clone(t.Overhead)
	t.Resources = t.Resources.DeepCopy()
	t.Priority = clonePtr(t.Priority)
	return t
}

// DeepCopy returns a deep copy of c.
func (c Container) DeepCopy() Container {
	c.Resources = c.Resources.DeepCopy()
	c.Ports = slices.Clone(c.Ports)
	return c
}

// DeepCopy returns a deep copy of r. Quantities are immutable values, so
// copying the maps copies everything.
func (r Resources) DeepCopy() Resources {
	r.Requests = maps.Clone(r.Requests)
	r.Limits = maps.Clone(r.Limits)
	return r
}

func cloneContainers(cs []Container) []Container {
	if cs == nil {
		return nil
	}
	out := make([]Container, len(cs))
	for i, c := range cs {
		out[i] = c.DeepCopy()
	}
	return out
}

// DeepCopy returns a deep copy of s.
func (s UpdateStrategy) DeepCopy() UpdateStrategy {
	if s.RollingUpdate != nil {
		ru := *s.RollingUpdate
		ru.MaxUnavailable = clonePtr(ru.MaxUnavailable)
		ru.MaxSurge = clonePtr(ru.MaxSurge)
		s.RollingUpdate = &ru
	}
	return s
}

// DeepCopy returns a deep copy of s.
func (s Status) DeepCopy() Status {
	s.CollisionCount = clonePtr(s.CollisionCount)
	return s
}

// DeepCopy returns a deep copy of n.
func (n Node) DeepCopy() Node {
	n.Labels = maps.Clone(n.Labels)
	n.Taints = slices.Clone(n.Taints)
	return n
}

// DeepCopy returns a deep copy of p.
func (p Pod) DeepCopy() Pod {
	p.Labels = maps.Clone(p.Labels)
	p.Controller = clonePtr(p.Controller)
	p.RequiredNodeAffinity = p.RequiredNodeAffinity.DeepCopy()
	return p
}

// clonePtr returns a pointer to a copy of *p, or nil. It is a deep copy for
// the value types it is used with (no pointers, maps or slices inside).
func clonePtr[T int32 | int64 | IntOrPercent | OwnerRef](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
