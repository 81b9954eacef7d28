package api

import (
	"errors"
	"strconv"
	"time"
)

// errNoTarget is returned by TargetNodeName for a pod that names no node.
var errNoTarget = errors.New("pod has neither spec.nodeName nor a metadata.name node affinity term")

// TargetNodeName returns the node a pod is, or will be, bound to
// (upstream: GetTargetNodeName; docs/eligibility.md, E12):
//
//  1. spec.nodeName when set;
//  2. otherwise the first required node-affinity matchFields requirement
//     with key metadata.name and operator In, scanning terms in order; it
//     must have exactly one value.
//
// Any other pod, and a nil pod, has no target and an error is returned; the
// planner ignores such pods entirely, as upstream does.
func TargetNodeName(p *Pod) (string, error) {
	if p == nil {
		return "", errNoTarget
	}
	if p.NodeName != "" {
		return p.NodeName, nil
	}
	if p.RequiredNodeAffinity == nil {
		return "", errNoTarget
	}
	for _, term := range p.RequiredNodeAffinity.Terms {
		for _, f := range term.MatchFields {
			if f.Key != NodeNameField || f.Operator != SelectorOpIn {
				continue
			}
			if len(f.Values) != 1 {
				return "", errors.New("metadata.name node affinity term has " + strconv.Itoa(len(f.Values)) + " values, want exactly one")
			}
			return f.Values[0], nil
		}
	}
	return "", errNoTarget
}

// IsTerminal reports a pod in phase Failed or Succeeded; a nil pod is not.
func IsTerminal(p *Pod) bool { return p != nil && (p.Phase == PodFailed || p.Phase == PodSucceeded) }

// IsAvailable reports whether p counts as available at now
// (upstream: IsPodAvailable; docs/rolling-update.md, R5): it is
// Ready, and either minReadySeconds is 0 or it has been Ready since at least
// minReadySeconds before now (inclusive, as since v1.34). A nil pod is not
// available.
func IsAvailable(p *Pod, minReadySeconds int32, now time.Time) bool {
	if p == nil || !p.Ready {
		return false
	}
	if minReadySeconds == 0 {
		return true
	}
	if p.ReadySince.IsZero() {
		return false
	}
	return !p.ReadySince.Add(time.Duration(minReadySeconds) * time.Second).After(now)
}

// IsUpdated reports whether p was created from the current template
// (upstream: IsPodUpdated; docs/rolling-update.md, R2): its revision-hash
// label equals hash (when hash is not empty), or its
// template-generation label equals generation (when generation is known).
// A nil pod is not updated.
func IsUpdated(p *Pod, hash string, generation *int64) bool {
	if p == nil {
		return false
	}
	if hash != "" {
		if h, ok := p.Labels[LabelRevisionHash]; ok && h == hash {
			return true
		}
	}
	if generation != nil {
		if g, ok := p.Labels[LabelTemplateGeneration]; ok && g == strconv.FormatInt(*generation, 10) {
			return true
		}
	}
	return false
}

// TemplateGeneration parses the [DaemonSet]'s template-generation annotation.
// A missing or unparsable annotation gives nil, as upstream's callers treat
// both alike, and so does a nil DaemonSet.
func TemplateGeneration(ds *DaemonSet) *int64 {
	if ds == nil {
		return nil
	}
	s, ok := ds.Annotations[AnnotationTemplateGeneration]
	if !ok {
		return nil
	}
	g, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return nil
	}
	return &g
}
