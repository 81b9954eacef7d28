package resource_test

import (
	"testing"

	"github.com/daemonplan/daemonplan/resource"
)

// list builds a List from name, quantity pairs.
func list(kv ...string) resource.List {
	l := resource.List{}
	for i := 0; i+1 < len(kv); i += 2 {
		l[kv[i]] = resource.MustParse(kv[i+1])
	}
	return l
}

func TestPodRequests(t *testing.T) {
	tests := []struct {
		name   string
		pod    resource.PodResources
		want   string
		reason string
	}{
		{
			name:   "empty pod",
			want:   "",
			reason: "a pod without containers requests nothing",
		},
		{
			name: "containers sum",
			pod: resource.PodResources{Containers: []resource.Container{
				{Requests: list("cpu", "100m", "memory", "64Mi")},
				{Requests: list("cpu", "150m")},
			}},
			want:   "cpu=250m,memory=64Mi",
			reason: "regular containers run together",
		},
		{
			name: "init container wins",
			pod: resource.PodResources{
				Containers:     []resource.Container{{Requests: list("cpu", "100m", "memory", "64Mi")}},
				InitContainers: []resource.Container{{Requests: list("cpu", "1")}},
			},
			want:   "cpu=1,memory=64Mi",
			reason: "an init container runs alone, so only its maximum counts",
		},
		{
			name: "sidecar adds",
			pod: resource.PodResources{
				Containers:     []resource.Container{{Requests: list("cpu", "100m")}},
				InitContainers: []resource.Container{{Requests: list("cpu", "50m"), Sidecar: true}},
			},
			want:   "cpu=150m",
			reason: "a sidecar keeps running beside the regular containers",
		},
		{
			name: "init after sidecar",
			pod: resource.PodResources{
				Containers: []resource.Container{{Requests: list("cpu", "100m")}},
				InitContainers: []resource.Container{
					{Requests: list("cpu", "200m"), Sidecar: true},
					{Requests: list("cpu", "250m")},
				},
			},
			want:   "cpu=450m",
			reason: "the init container runs while the sidecar started before it runs: 250m+200m beats 100m+200m",
		},
		{
			name: "init before sidecar",
			pod: resource.PodResources{
				Containers: []resource.Container{{Requests: list("cpu", "100m")}},
				InitContainers: []resource.Container{
					{Requests: list("cpu", "250m")},
					{Requests: list("cpu", "200m"), Sidecar: true},
				},
			},
			want:   "cpu=300m",
			reason: "a sidecar started later does not run beside an earlier init container",
		},
		{
			name: "tie keeps earlier format",
			pod: resource.PodResources{
				Containers:     []resource.Container{{Requests: list("memory", "1Gi")}},
				InitContainers: []resource.Container{{Requests: list("memory", "1073741824")}},
			},
			want:   "memory=1Gi",
			reason: "only a strictly greater init need replaces the figure",
		},
		{
			name: "pod-level requests",
			pod: resource.PodResources{
				Containers: []resource.Container{{Requests: list("cpu", "100m", "memory", "64Mi", "ephemeral-storage", "1Gi")}},
				Requests:   list("cpu", "1", "ephemeral-storage", "2Gi"),
			},
			want:   "cpu=1,ephemeral-storage=1Gi,memory=64Mi",
			reason: "pod-level requests replace cpu but never ephemeral-storage",
		},
		{
			name: "pod-level without supported names",
			pod: resource.PodResources{
				Containers: []resource.Container{{Requests: list("cpu", "100m")}},
				Requests:   list("example.com/gpu", "1"),
			},
			want:   "cpu=100m",
			reason: "pod-level requests naming no supported resource are as if unset",
		},
		{
			name: "overhead",
			pod: resource.PodResources{
				Containers: []resource.Container{{Requests: list("cpu", "100m")}},
				Requests:   list("cpu", "1"),
				Overhead:   list("cpu", "250m", "memory", "120Mi"),
			},
			want:   "cpu=1250m,memory=120Mi",
			reason: "overhead is added after pod-level requests",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := resource.PodRequests(tt.pod).String(); got != tt.want {
				t.Errorf("PodRequests = %q, want %q (%s)", got, tt.want, tt.reason)
			}
		})
	}
}

func TestEffectiveRequests(t *testing.T) {
	tests := []struct {
		name   string
		pod    resource.PodResources
		want   string
		reason string
	}{
		{
			name:   "limits only",
			pod:    resource.PodResources{Containers: []resource.Container{{Limits: list("cpu", "500m", "memory", "128Mi")}}},
			want:   "cpu=500m,memory=128Mi",
			reason: "the API server copies limits into missing requests",
		},
		{
			name:   "request kept",
			pod:    resource.PodResources{Containers: []resource.Container{{Requests: list("cpu", "100m"), Limits: list("cpu", "500m", "memory", "128Mi")}}},
			want:   "cpu=100m,memory=128Mi",
			reason: "only missing requests are filled",
		},
		{
			name:   "rounded to milli",
			pod:    resource.PodResources{Containers: []resource.Container{{Requests: list("cpu", "1n", "memory", "1.5Ki")}}},
			want:   "cpu=1m,memory=1536",
			reason: "stored quantities are rounded up to 1m",
		},
		{
			name:   "init limits",
			pod:    resource.PodResources{InitContainers: []resource.Container{{Limits: list("cpu", "2")}}},
			want:   "cpu=2",
			reason: "init containers are defaulted too",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := resource.EffectiveRequests(tt.pod).String(); got != tt.want {
				t.Errorf("EffectiveRequests = %q, want %q (%s)", got, tt.want, tt.reason)
			}
		})
	}
}
