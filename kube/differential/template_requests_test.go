package differential

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	helpers "k8s.io/component-helpers/resource"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan/kube/convert"
)

// defaultPodLevel applies to pod, in place, the pod-level defaulting of pod
// creation in v1.37 (DefaultPodLevelResources, gate
// PodLevelResourcesFixDefaulting on), as far as it decides requests, step
// by step as upstream runs it, when spec.resources sets requests or
// limits:
//
//  1. hugepages-* limits of the containers (AggregateContainerLimits),
//     for a resource with neither a pod-level request nor limit, become
//     the pod-level limit;
//  2. a pod-level request missing for cpu or memory is taken from the
//     containers' aggregated requests (AggregateContainerRequests);
//  3. a pod-level request still missing for cpu, memory or hugepages-* is
//     taken from the pod-level limit.
//
// The step that defaults pod-level limits from requests changes no
// request and is left out. It is our transcription, checked only through
// its agreement with api.PodTemplate.Requests.
func defaultPodLevel(pod *v1.Pod) {
	r := pod.Spec.Resources
	if r == nil || (len(r.Requests) == 0 && len(r.Limits) == 0) {
		return
	}
	for name, q := range helpers.AggregateContainerLimits(pod, helpers.PodResourcesOptions{}) {
		if !strings.HasPrefix(string(name), v1.ResourceHugePagesPrefix) {
			continue
		}
		if _, ok := r.Requests[name]; ok {
			continue
		}
		if _, ok := r.Limits[name]; !ok {
			if r.Limits == nil {
				r.Limits = v1.ResourceList{}
			}
			r.Limits[name] = q.DeepCopy()
		}
	}
	set := func(name v1.ResourceName, q resource.Quantity) {
		if r.Requests == nil {
			r.Requests = v1.ResourceList{}
		}
		r.Requests[name] = q.DeepCopy()
	}
	for name, q := range helpers.AggregateContainerRequests(pod, helpers.PodResourcesOptions{}) {
		if _, ok := r.Requests[name]; !ok && (name == v1.ResourceCPU || name == v1.ResourceMemory) {
			set(name, q)
		}
	}
	for name, q := range r.Limits {
		if _, ok := r.Requests[name]; !ok && helpers.IsSupportedPodLevelResource(name) {
			set(name, q)
		}
	}
}

// TestTemplateRequestsAgreesWithComponentHelpers: for generated pod specs
// (containers, sidecars, init containers, overhead, pod-level requests and
// limits), convert.Workload followed by api.PodTemplate.Requests agrees
// with component-helpers' PodRequests, as kube-scheduler calls it, of the
// pod the API server stores: container defaulting (defaultPod, shared with
// the resource package's test) then pod-level defaulting
// (defaultPodLevel). This checks the whole path a template takes, from
// k8s.io/api types to the requests daemonplan reports.
func TestTemplateRequestsAgreesWithComponentHelpers(t *testing.T) {
	var c counter
	rapid.Check(t, func(t *rapid.T) {
		p := genTextPod().Draw(t, "pod")
		pod := p.theirs()
		if rapid.IntRange(0, 2).Draw(t, "hasPodLimits") == 0 {
			if pod.Spec.Resources == nil {
				pod.Spec.Resources = &v1.ResourceRequirements{}
			}
			pod.Spec.Resources.Limits = genTextList(t, "podLim").theirs()
		}
		tpl, err := convert.Workload(&pod.Spec)
		if err != nil {
			t.Fatalf("convert.Workload: %v", err)
		}
		got := tpl.Requests()

		stored := pod.DeepCopy()
		defaultPod(stored)
		if r := stored.Spec.Resources; r != nil {
			round := func(l v1.ResourceList) {
				for name, q := range l {
					q.RoundUp(-3)
					l[name] = q
				}
			}
			round(r.Limits)
		}
		defaultPodLevel(stored)
		want := helpers.PodRequests(stored, helpers.PodResourcesOptions{})
		checkSameList(t, "Requests", got, want)

		c.cases.Add(1)
		if r := pod.Spec.Resources; r != nil && len(r.Limits) > 0 && strings.Contains(got.String(), "cpu") {
			c.a.Add(1)
		} else {
			c.b.Add(1)
		}
	})
	c.report(t, "with pod-level limits", "without")
}
