package plantest

import (
	"fmt"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/resource"
	"pgregory.net/rapid"
)

// The pools of the container generators: a few resource names, including
// one pod-level resources may not set and an extended one, and common
// quantities in every format, so that sums, ties and equal values written
// differently are frequent.
var (
	resourceNames  = []string{"cpu", "memory", "ephemeral-storage", "hugepages-2Mi", "example.com/gpu"}
	quantityPool   = []string{"0", "1m", "100m", "250m", "0.5", "1", "2", "64Mi", "128Mi", "1Gi", "1073741824", "1e3", "500M"}
	imagePool      = []string{"agent:1.0", "agent:1.1", "proxy:2"}
	hostPortPool   = []int32{0, 0, 8080, 9100, 9100}
	protocolPool   = []string{"", "TCP", "UDP"}
	hostIPPool     = []string{"", "", "10.0.0.1", "0.0.0.0"}
	containerCount = []int{0, 1, 1, 2, 3}
)

// ResourceList generates a nil, empty or small resource list.
func ResourceList() *rapid.Generator[resource.List] {
	return rapid.Custom(func(t *rapid.T) resource.List {
		switch rapid.IntRange(0, 4).Draw(t, "listShape") {
		case 0:
			return nil
		case 1:
			return resource.List{}
		}
		l := resource.List{}
		for range rapid.IntRange(1, 3).Draw(t, "listLen") {
			name := rapid.SampledFrom(resourceNames).Draw(t, "resource")
			l[name] = resource.MustParse(rapid.SampledFrom(quantityPool).Draw(t, "quantity"))
		}
		return l
	})
}

// Containers generates up to three containers, nil for none (init
// containers when init is set,
// then sometimes sidecars) with names c0, c1, … or i0, i1, …, images from a
// small pool, requests, limits and host ports.
func Containers(init bool) *rapid.Generator[[]api.Container] {
	return rapid.Custom(func(t *rapid.T) []api.Container {
		n := rapid.SampledFrom(containerCount).Draw(t, "containers")
		if n == 0 {
			return nil
		}
		prefix := "c"
		if init {
			prefix = "i"
		}
		out := make([]api.Container, n)
		for i := range out {
			c := api.Container{
				Name:  fmt.Sprintf("%s%d", prefix, i),
				Image: rapid.SampledFrom(imagePool).Draw(t, "image"),
				Resources: api.Resources{
					Requests: ResourceList().Draw(t, "requests"),
					Limits:   ResourceList().Draw(t, "limits"),
				},
			}
			if init && rapid.Bool().Draw(t, "sidecar") {
				c.RestartPolicy = api.ContainerRestartPolicyAlways
			}
			for range rapid.IntRange(0, 2).Draw(t, "ports") {
				c.Ports = append(c.Ports, api.ContainerPort{
					ContainerPort: rapid.Int32Range(1, 3).Draw(t, "containerPort") * 1000,
					HostPort:      rapid.SampledFrom(hostPortPool).Draw(t, "hostPort"),
					Protocol:      rapid.SampledFrom(protocolPool).Draw(t, "protocol"),
					HostIP:        rapid.SampledFrom(hostIPPool).Draw(t, "hostIP"),
				})
			}
			out[i] = c
		}
		return out
	})
}

// Workload draws containers, init containers, overhead and pod-level
// resources into tpl (which must not be shared), drawing with t.
func Workload(t *rapid.T, tpl *api.PodTemplate) {
	tpl.Containers = Containers(false).Draw(t, "regular")
	tpl.InitContainers = Containers(true).Draw(t, "init")
	if rapid.IntRange(0, 3).Draw(t, "hasOverhead") == 0 {
		tpl.Overhead = ResourceList().Draw(t, "overhead")
	}
	if rapid.IntRange(0, 3).Draw(t, "hasPodResources") == 0 {
		tpl.Resources = api.Resources{
			Requests: ResourceList().Draw(t, "podRequests"),
			Limits:   ResourceList().Draw(t, "podLimits"),
		}
	}
}
