package api_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/resource"
)

func list(kv ...string) resource.List {
	l := resource.List{}
	for i := 0; i < len(kv); i += 2 {
		l[kv[i]] = resource.MustParse(kv[i+1])
	}
	return l
}

func TestRequests(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		tpl    api.PodTemplate
		want   string
	}{{
		name:   "NoContainers",
		reason: "a template without containers requests nothing",
		want:   "",
	}, {
		name:   "LimitsStandForRequests",
		reason: "the stored pod requests its limits where it names no request; templates are not defaulted, pods are",
		tpl: api.PodTemplate{Containers: []api.Container{
			{Name: "a", Resources: api.Resources{Requests: list("cpu", "100m"), Limits: list("cpu", "1", "memory", "128Mi")}},
			{Name: "b", Resources: api.Resources{Requests: list("memory", "0"), Limits: list("memory", "1Gi")}},
		}},
		want: "cpu=100m,memory=128Mi",
	}, {
		name:   "SidecarAndInit",
		reason: "a sidecar adds to the sum; a later init container needs its own request plus the sidecar",
		tpl: api.PodTemplate{
			Containers: []api.Container{{Name: "main", Resources: api.Resources{Requests: list("cpu", "100m")}}},
			InitContainers: []api.Container{
				{Name: "proxy", RestartPolicy: api.ContainerRestartPolicyAlways, Resources: api.Resources{Requests: list("cpu", "50m")}},
				{Name: "setup", Resources: api.Resources{Requests: list("cpu", "500m")}},
			},
		},
		want: "cpu=550m",
	}, {
		name:   "RestartPolicyOnRegularContainerIgnored",
		reason: "only an init container can be a sidecar",
		tpl: api.PodTemplate{Containers: []api.Container{
			{Name: "main", RestartPolicy: api.ContainerRestartPolicyAlways, Resources: api.Resources{Requests: list("cpu", "100m")}},
		}},
		want: "cpu=100m",
	}, {
		name:   "PodLevelLimitDefaultsRequest",
		reason: "a pod-level cpu limit with no container asking for cpu becomes the pod-level request",
		tpl: api.PodTemplate{
			Containers: []api.Container{{Name: "main", Resources: api.Resources{Requests: list("memory", "64Mi")}}},
			Resources:  api.Resources{Limits: list("cpu", "2", "memory", "1Gi")},
		},
		want: "cpu=2,memory=64Mi",
	}, {
		name:   "PodLevelRequestWins",
		reason: "pod-level requests replace the containers' figure for cpu and memory, overhead is added on top",
		tpl: api.PodTemplate{
			Containers: []api.Container{{Name: "main", Resources: api.Resources{Requests: list("cpu", "100m", "example.com/gpu", "1")}}},
			Resources:  api.Resources{Requests: list("cpu", "1")},
			Overhead:   list("cpu", "250m", "memory", "120Mi"),
		},
		want: "cpu=1250m,example.com/gpu=1,memory=120Mi",
	}, {
		name:   "PodLevelHugePagesLimitDefaultsRequest",
		reason: "a pod-level hugepages limit without a request becomes the request, which replaces the containers' figure",
		tpl: api.PodTemplate{
			Containers: []api.Container{{Name: "main", Resources: api.Resources{Requests: list("cpu", "100m")}}},
			Resources:  api.Resources{Limits: list("hugepages-2Mi", "1Gi", "memory", "2Gi")},
		},
		want: "cpu=100m,hugepages-2Mi=1Gi,memory=2Gi",
	}, {
		name:   "PodLevelHugePagesFromContainerLimits",
		reason: "with pod-level resources set, the containers' aggregated hugepages limits become the pod-level limit, then the request; a pod-level request for them blocks both",
		tpl: api.PodTemplate{
			Containers: []api.Container{
				{Name: "a", Resources: api.Resources{Limits: list("hugepages-2Mi", "64Mi", "hugepages-1Gi", "1Gi")}},
				{Name: "b", Resources: api.Resources{Limits: list("hugepages-2Mi", "64Mi")}},
			},
			Resources: api.Resources{Requests: list("cpu", "1", "hugepages-1Gi", "2Gi")},
		},
		want: "cpu=1,hugepages-1Gi=2Gi,hugepages-2Mi=128Mi",
	}, {
		name:   "ContainerHugePagesWithoutPodLevel",
		reason: "without pod-level resources the containers' hugepages requests are summed as they stand",
		tpl: api.PodTemplate{Containers: []api.Container{
			{Name: "a", Resources: api.Resources{Limits: list("hugepages-2Mi", "64Mi")}},
			{Name: "b", Resources: api.Resources{Requests: list("hugepages-2Mi", "2Mi"), Limits: list("hugepages-2Mi", "2Mi")}},
		}},
		want: "hugepages-2Mi=66Mi",
	}, {
		name:   "RoundedUpToMilli",
		reason: "the API server rounds every quantity up to a multiple of 1m",
		tpl:    api.PodTemplate{Containers: []api.Container{{Name: "main", Resources: api.Resources{Requests: list("cpu", "100u")}}}},
		want:   "cpu=1m",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.tpl.DeepCopy()
			if got := tt.tpl.Requests().String(); got != tt.want {
				t.Errorf("Requests() = %q, want %q (%s)", got, tt.want, tt.reason)
			}
			if diff := cmp.Diff(before, tt.tpl); diff != "" {
				t.Errorf("Requests() changed the template (-before +after):\n%s", diff)
			}
		})
	}
}

func TestHostPorts(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		tpl    api.PodTemplate
		want   []api.ContainerPort
	}{{
		name:   "OnlyHostPorts",
		reason: "ports without a host port bind nothing on the node",
		tpl: api.PodTemplate{Containers: []api.Container{{Ports: []api.ContainerPort{
			{ContainerPort: 8080}, {ContainerPort: 9100, HostPort: 9100, Protocol: "UDP"},
		}}}},
		want: []api.ContainerPort{{ContainerPort: 9100, HostPort: 9100, Protocol: "UDP"}},
	}, {
		name:   "SidecarsFirstInitIgnored",
		reason: "sidecar init containers run beside the pod and come first; other init containers have exited",
		tpl: api.PodTemplate{
			Containers: []api.Container{{Ports: []api.ContainerPort{{ContainerPort: 1, HostPort: 1}}}},
			InitContainers: []api.Container{
				{Ports: []api.ContainerPort{{ContainerPort: 2, HostPort: 2}}},
				{RestartPolicy: api.ContainerRestartPolicyAlways, Ports: []api.ContainerPort{{ContainerPort: 3, HostPort: 3}}},
			},
		},
		want: []api.ContainerPort{{ContainerPort: 3, HostPort: 3}, {ContainerPort: 1, HostPort: 1}},
	}, {
		name:   "HostNetworkBindsContainerPort",
		reason: "with hostNetwork the API server defaults hostPort to containerPort",
		tpl:    api.PodTemplate{HostNetwork: true, Containers: []api.Container{{Ports: []api.ContainerPort{{ContainerPort: 10250}}}}},
		want:   []api.ContainerPort{{ContainerPort: 10250, HostPort: 10250}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.tpl.HostPorts()); diff != "" {
				t.Errorf("HostPorts() mismatch (-want +got) (%s):\n%s", tt.reason, diff)
			}
		})
	}
}
