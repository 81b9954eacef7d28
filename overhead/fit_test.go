package overhead_test

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/overhead"
)

func TestFit(t *testing.T) {
	pod := func(requests ...string) *api.DaemonSet {
		return &api.DaemonSet{Namespace: "kube-system", Name: "agent", UID: "agent-uid", Template: api.PodTemplate{
			Containers: []api.Container{{Name: "agent", Resources: api.Resources{Requests: list(requests...)}}},
		}}
	}
	withPort := func(ds *api.DaemonSet, p api.ContainerPort) *api.DaemonSet {
		ds.Template.Containers[0].Ports = append(ds.Template.Containers[0].Ports, p)
		return ds
	}
	node := list("cpu", "2", "memory", "4Gi", "ephemeral-storage", "20Gi", "pods", "110", "example.com/gpu", "1")
	tests := []struct {
		name, reason string
		ds           *api.DaemonSet
		st           overhead.NodeState
		want         overhead.Fit
	}{{
		name:   "EmptyNode",
		reason: "an empty node with room for everything",
		ds:     pod("cpu", "100m", "memory", "64Mi"),
		st:     overhead.NodeState{Allocatable: node},
		want:   overhead.Fit{Fits: true},
	}, {
		name:   "CPUExhausted",
		reason: "the pods already there leave 50m; the pod asks 100m",
		ds:     pod("cpu", "100m"),
		st:     overhead.NodeState{Allocatable: node, Pods: []overhead.PodUsage{{Requests: list("cpu", "1950m")}}},
		want:   overhead.Fit{Insufficient: []string{"cpu"}},
	}, {
		name:   "ExactlyFull",
		reason: "a request equal to what is left fits",
		ds:     pod("memory", "1Gi"),
		st:     overhead.NodeState{Allocatable: node, Pods: []overhead.PodUsage{{Requests: list("memory", "3Gi")}}},
		want:   overhead.Fit{Fits: true},
	}, {
		name:   "ExtendedResourceMissing",
		reason: "a node that does not list an extended resource has none",
		ds:     pod("example.com/fpga", "1", "cpu", "10m"),
		st:     overhead.NodeState{Allocatable: node},
		want:   overhead.Fit{Insufficient: []string{"example.com/fpga"}},
	}, {
		name:   "UnprefixedNameNotChecked",
		reason: "the scheduler checks only cpu, memory, ephemeral-storage and scalar resources",
		ds:     pod("storage", "1Ti"),
		st:     overhead.NodeState{Allocatable: node},
		want:   overhead.Fit{Fits: true},
	}, {
		name:   "PodCount",
		reason: "a node at its pod maximum takes no pod, even one requesting nothing",
		ds:     pod(),
		st:     overhead.NodeState{Allocatable: list("pods", "1"), Pods: []overhead.PodUsage{{}}},
		want:   overhead.Fit{Insufficient: []string{"pods"}},
	}, {
		name:   "NoPodsAllocatable",
		reason: "a node that lists no pods capacity holds none",
		ds:     pod("cpu", "1m"),
		st:     overhead.NodeState{Allocatable: list("cpu", "1")},
		want:   overhead.Fit{Insufficient: []string{"pods"}},
	}, {
		name:   "OwnPodLeftOut",
		reason: "the DaemonSet's own pod already on the node is not counted against it",
		ds:     pod("cpu", "2"),
		st:     overhead.NodeState{Allocatable: node, Pods: []overhead.PodUsage{{OwnerUID: "agent-uid", Requests: list("cpu", "2")}}},
		want:   overhead.Fit{Fits: true},
	}, {
		name:   "PortConflictAnyAddress",
		reason: "a port bound on every address conflicts with the same port and protocol on a given one",
		ds:     withPort(pod("cpu", "1m"), api.ContainerPort{ContainerPort: 9100, HostPort: 9100, HostIP: "10.0.0.1"}),
		st:     overhead.NodeState{Allocatable: node, Pods: []overhead.PodUsage{{HostPorts: []api.ContainerPort{{HostPort: 9100, Protocol: "TCP"}}}}},
		want:   overhead.Fit{PortConflicts: []api.ContainerPort{{ContainerPort: 9100, HostPort: 9100, HostIP: "10.0.0.1"}}},
	}, {
		name:   "PortOtherProtocol",
		reason: "UDP and TCP on the same port do not conflict",
		ds:     withPort(pod("cpu", "1m"), api.ContainerPort{HostPort: 53, Protocol: "UDP"}),
		st:     overhead.NodeState{Allocatable: node, Pods: []overhead.PodUsage{{HostPorts: []api.ContainerPort{{HostPort: 53}}}}},
		want:   overhead.Fit{Fits: true},
	}, {
		name:   "PortOtherAddress",
		reason: "two specific addresses do not conflict",
		ds:     withPort(pod("cpu", "1m"), api.ContainerPort{HostPort: 80, HostIP: "10.0.0.2"}),
		st:     overhead.NodeState{Allocatable: node, Pods: []overhead.PodUsage{{HostPorts: []api.ContainerPort{{HostPort: 80, HostIP: "10.0.0.1"}}}}},
		want:   overhead.Fit{Fits: true},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := overhead.Compile([]*api.DaemonSet{tt.ds}, overhead.Options{})
			if diff := gocmp.Diff(tt.want, s.Fit(0, &tt.st)); diff != "" {
				t.Errorf("Fit() mismatch (-want +got) (%s):\n%s", tt.reason, diff)
			}
		})
	}
}
