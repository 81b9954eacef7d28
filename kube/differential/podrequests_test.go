package differential

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	helpers "k8s.io/component-helpers/resource"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan/resource"
)

// resourceNames mixes the names pod-level resources may set (cpu, memory,
// hugepages-*) with ones they may not.
var resourceNames = []string{"cpu", "memory", "ephemeral-storage", "hugepages-2Mi", "example.com/gpu"}

// textList is a resource list as written: name to quantity text. Both
// libraries parse the same texts, so spellings and formats match.
type textList map[string]string

type textContainer struct {
	requests, limits textList
	sidecar          bool
}

type textPod struct {
	containers, initContainers []textContainer
	overhead, podRequests      textList
}

// genAcceptedText draws quantity texts both libraries accept, with tame
// exponents.
func genAcceptedText() *rapid.Generator[string] {
	return genQuantityText(true).Filter(func(s string) bool {
		_, err := apiresource.ParseQuantity(s)
		return err == nil
	})
}

// genTextList draws a list that is nil, empty or holds a few names. With
// small set, quantities come from a short list of common values so that
// ties and equal values in different formats are frequent.
func genTextList(t *rapid.T, label string) textList {
	switch rapid.IntRange(0, 5).Draw(t, label+"Shape") {
	case 0:
		return nil
	case 1:
		return textList{}
	}
	common := []string{"0", "100m", "0.1", "1", "1000m", "1Gi", "1073741824", "1024Mi", "64Mi", "250m", "2", "1Ki", "1024", "0Ki", "1E3", "+1", "1.500", "-1"}
	l := textList{}
	n := rapid.IntRange(1, len(resourceNames)).Draw(t, label+"Len")
	for i := 0; i < n; i++ {
		name := rapid.SampledFrom(resourceNames).Draw(t, label+"Name")
		if rapid.Bool().Draw(t, label+"Common") {
			l[name] = rapid.SampledFrom(common).Draw(t, label+"Quantity")
		} else {
			l[name] = genAcceptedText().Draw(t, label+"Quantity")
		}
	}
	return l
}

func genTextPod() *rapid.Generator[textPod] {
	return rapid.Custom(func(t *rapid.T) textPod {
		var p textPod
		for i, n := 0, rapid.IntRange(0, 3).Draw(t, "containers"); i < n; i++ {
			p.containers = append(p.containers, textContainer{
				requests: genTextList(t, "req"),
				limits:   genTextList(t, "lim"),
			})
		}
		for i, n := 0, rapid.IntRange(0, 4).Draw(t, "initContainers"); i < n; i++ {
			p.initContainers = append(p.initContainers, textContainer{
				requests: genTextList(t, "initReq"),
				limits:   genTextList(t, "initLim"),
				sidecar:  rapid.Bool().Draw(t, "sidecar"),
			})
		}
		if rapid.Bool().Draw(t, "hasOverhead") {
			p.overhead = genTextList(t, "overhead")
		}
		if rapid.Bool().Draw(t, "hasPodRequests") {
			p.podRequests = genTextList(t, "podReq")
		}
		return p
	})
}

func (l textList) ours() resource.List {
	if l == nil {
		return nil
	}
	out := resource.List{}
	for name, s := range l {
		out[name] = resource.MustParse(s)
	}
	return out
}

func (l textList) theirs() v1.ResourceList {
	if l == nil {
		return nil
	}
	out := v1.ResourceList{}
	for name, s := range l {
		out[v1.ResourceName(name)] = apiresource.MustParse(s)
	}
	return out
}

func (p textPod) ours() resource.PodResources {
	conv := func(cs []textContainer) []resource.Container {
		var out []resource.Container
		for i, c := range cs {
			out = append(out, resource.Container{
				Name:     fmt.Sprintf("c%d", i),
				Requests: c.requests.ours(),
				Limits:   c.limits.ours(),
				Sidecar:  c.sidecar,
			})
		}
		return out
	}
	return resource.PodResources{
		Containers:     conv(p.containers),
		InitContainers: conv(p.initContainers),
		Overhead:       p.overhead.ours(),
		Requests:       p.podRequests.ours(),
	}
}

func (p textPod) theirs() *v1.Pod {
	always := v1.ContainerRestartPolicyAlways
	conv := func(prefix string, cs []textContainer) []v1.Container {
		var out []v1.Container
		for i, c := range cs {
			vc := v1.Container{
				Name: fmt.Sprintf("%s%d", prefix, i),
				Resources: v1.ResourceRequirements{
					Requests: c.requests.theirs(),
					Limits:   c.limits.theirs(),
				},
			}
			if c.sidecar {
				vc.RestartPolicy = &always
			}
			out = append(out, vc)
		}
		return out
	}
	pod := &v1.Pod{Spec: v1.PodSpec{
		Containers:     conv("c", p.containers),
		InitContainers: conv("i", p.initContainers),
		Overhead:       p.overhead.theirs(),
	}}
	if p.podRequests != nil {
		pod.Spec.Resources = &v1.ResourceRequirements{Requests: p.podRequests.theirs()}
	}
	return pod
}

// checkSameList fails t unless the lists have the same names and every
// quantity agrees as checkSame requires.
func checkSameList(t fataler, what string, ours resource.List, theirs v1.ResourceList) {
	t.Helper()
	if len(ours) != len(theirs) {
		t.Fatalf("%s: %d resources %v, apimachinery %d %v", what, len(ours), ours, len(theirs), theirs)
	}
	for name, tq := range theirs {
		oq, ok := ours[string(name)]
		if !ok {
			t.Fatalf("%s: no %s, apimachinery has %s", what, name, tq.String())
		}
		checkSame(t, what+"["+string(name)+"]", oq, tq)
	}
}

// TestPodRequestsAgreesWithComponentHelpers: PodRequests agrees with
// component-helpers' PodRequests with default options (kube-scheduler
// v1.34, pod-level resources on) on generated pods: names, values, formats
// and printed forms of every resource.
func TestPodRequestsAgreesWithComponentHelpers(t *testing.T) {
	var c counter
	rapid.Check(t, func(t *rapid.T) {
		p := genTextPod().Draw(t, "pod")
		got := resource.PodRequests(p.ours())
		want := helpers.PodRequests(p.theirs(), helpers.PodResourcesOptions{})
		checkSameList(t, "PodRequests", got, want)
		c.cases.Add(1)
		// Did a non-sidecar init container decide some figure? Compare
		// with the same pod without them.
		q := p.ours()
		var sidecars []resource.Container
		for _, ic := range q.InitContainers {
			if ic.Sidecar {
				sidecars = append(sidecars, ic)
			}
		}
		q.InitContainers = sidecars
		without := resource.PodRequests(q)
		decided := false
		for name, v := range got {
			if w, ok := without[name]; !ok || v.Cmp(w) != 0 {
				decided = true
			}
		}
		if decided {
			c.a.Add(1)
		} else {
			c.b.Add(1)
		}
	})
	c.report(t, "an init container decided a figure", "containers and sidecars decided every figure")
}

// defaultPod applies to pod, in place, the parts of the v1.34 API server's
// defaulting that bear on requests: SetDefaults_Pod's copying of limits
// into missing requests, and SetDefaults_ResourceList's rounding up to 1m
// of every list (apimachinery's Quantity.RoundUp). It is our transcription,
// checked only through its agreement with resource.Default.
func defaultPod(pod *v1.Pod) {
	round := func(l v1.ResourceList) {
		for name, q := range l {
			q.RoundUp(apiresource.Milli)
			l[name] = q
		}
	}
	containers := func(cs []v1.Container) {
		for i := range cs {
			r := &cs[i].Resources
			if r.Limits != nil {
				if r.Requests == nil {
					r.Requests = v1.ResourceList{}
				}
				for name, q := range r.Limits {
					if _, ok := r.Requests[name]; !ok {
						r.Requests[name] = q.DeepCopy()
					}
				}
			}
			round(r.Requests)
			round(r.Limits)
		}
	}
	containers(pod.Spec.Containers)
	containers(pod.Spec.InitContainers)
	round(pod.Spec.Overhead)
	if pod.Spec.Resources != nil {
		round(pod.Spec.Resources.Requests)
	}
}

// TestEffectiveRequestsAgreesWithDefaultedPodRequests: Default agrees with
// defaultPod container by container, and EffectiveRequests with
// component-helpers' PodRequests of the pod defaulted by defaultPod, then
// defaultPodLevel.
func TestEffectiveRequestsAgreesWithDefaultedPodRequests(t *testing.T) {
	var c counter
	rapid.Check(t, func(t *rapid.T) {
		p := genTextPod().Draw(t, "pod")
		ours := p.ours()
		defaulted := resource.Default(ours)
		pod := p.theirs()
		defaultPod(pod)
		defaultPodLevel(pod)
		for i, vc := range pod.Spec.Containers {
			checkSameList(t, vc.Name+" requests", defaulted.Containers[i].Requests, vc.Resources.Requests)
			checkSameList(t, vc.Name+" limits", defaulted.Containers[i].Limits, vc.Resources.Limits)
		}
		for i, vc := range pod.Spec.InitContainers {
			checkSameList(t, vc.Name+" requests", defaulted.InitContainers[i].Requests, vc.Resources.Requests)
		}
		checkSameList(t, "overhead", defaulted.Overhead, pod.Spec.Overhead)
		got := resource.EffectiveRequests(ours)
		want := helpers.PodRequests(pod, helpers.PodResourcesOptions{})
		checkSameList(t, "EffectiveRequests", got, want)
		c.cases.Add(1)
		if got.String() != resource.PodRequests(ours).String() {
			c.a.Add(1)
		} else {
			c.b.Add(1)
		}
	})
	c.report(t, "defaulting changed the requests", "defaulting changed nothing")
}
