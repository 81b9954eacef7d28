// Command overhead asks daemonplan the cluster autoscaler's question: for a
// node that does not exist yet, in each of three node pools, which
// DaemonSets put a pod on it, and how much of the node do those pods take?
//
//	go run ./examples/overhead
//
// The pools are general-purpose nodes, GPU nodes tainted
// nvidia.com/gpu=present:NoSchedule, and infra nodes tainted
// dedicated=infra:NoSchedule. The five DaemonSets are the ones most
// clusters run: kube-proxy and a CNI agent that tolerate every taint, a
// log shipper with a sidecar that tolerates NoSchedule taints, a
// Prometheus node exporter that tolerates none, and the NVIDIA device
// plugin that selects GPU nodes. The table shows, per pool, whether each
// pod lands (and why not), the daemon overhead, and what is left for
// workloads; the controller's own decision decides, the fit is reported
// beside it (docs/overhead.md).
package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/overhead"
	"github.com/daemonplan/daemonplan/resource"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "overhead:", err)
		os.Exit(1)
	}
}

// pool is a node group: the template node an autoscaler would create.
type pool struct {
	name        string
	node        api.Node
	allocatable resource.List
}

func list(kv ...string) resource.List {
	l := resource.List{}
	for i := 0; i < len(kv); i += 2 {
		l[kv[i]] = resource.MustParse(kv[i+1])
	}
	return l
}

func pools() []pool {
	linux := func(extra ...string) map[string]string {
		l := map[string]string{"kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64"}
		for i := 0; i < len(extra); i += 2 {
			l[extra[i]] = extra[i+1]
		}
		return l
	}
	return []pool{{
		name:        "general",
		node:        api.Node{Name: "general-template", Labels: linux("node.kubernetes.io/instance-type", "m5.xlarge")},
		allocatable: list("cpu", "3920m", "memory", "14Gi", "pods", "58"),
	}, {
		name: "gpu",
		node: api.Node{Name: "gpu-template", Labels: linux("node.kubernetes.io/instance-type", "g5.2xlarge", "nvidia.com/gpu.present", "true"),
			Taints: []api.Taint{{Key: "nvidia.com/gpu", Value: "present", Effect: api.TaintEffectNoSchedule}}},
		allocatable: list("cpu", "7910m", "memory", "29Gi", "pods", "58", "nvidia.com/gpu", "1"),
	}, {
		name: "infra",
		node: api.Node{Name: "infra-template", Labels: linux("node.kubernetes.io/instance-type", "m5.large", "dedicated", "infra"),
			Taints: []api.Taint{{Key: "dedicated", Value: "infra", Effect: api.TaintEffectNoSchedule}}},
		allocatable: list("cpu", "1930m", "memory", "6Gi", "pods", "29"),
	}}
}

func daemonSets() []*api.DaemonSet {
	container := func(name, image string, requests, limits resource.List) api.Container {
		return api.Container{Name: name, Image: image, Resources: api.Resources{Requests: requests, Limits: limits}}
	}
	everything := []api.Toleration{{Operator: api.TolerationOpExists}}
	return []*api.DaemonSet{{
		Namespace: "kube-system", Name: "kube-proxy", UID: "kube-proxy",
		Template: api.PodTemplate{
			HostNetwork: true, Tolerations: everything,
			Containers: []api.Container{container("kube-proxy", "registry.k8s.io/kube-proxy:v1.34.0", list("cpu", "100m"), nil)},
		},
	}, {
		Namespace: "kube-system", Name: "cilium", UID: "cilium",
		Template: api.PodTemplate{
			HostNetwork: true, Tolerations: everything,
			Containers: []api.Container{container("cilium-agent", "quay.io/cilium/cilium:v1.18", list("cpu", "100m", "memory", "10Mi"), nil)},
			// An init container that needs more than the agent while it
			// runs: it counts as a maximum, not a sum.
			InitContainers: []api.Container{container("mount-bpf-fs", "quay.io/cilium/cilium:v1.18", list("cpu", "200m"), nil)},
		},
	}, {
		Namespace: "logging", Name: "fluent-bit", UID: "fluent-bit",
		Template: api.PodTemplate{
			Tolerations: []api.Toleration{{Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule}},
			Containers: []api.Container{container("fluent-bit", "fluent/fluent-bit:4.0",
				list("cpu", "50m"), list("memory", "128Mi"))}, // memory requested at its limit
			InitContainers: []api.Container{{
				Name: "metrics-proxy", Image: "envoyproxy/envoy:v1.35", RestartPolicy: api.ContainerRestartPolicyAlways,
				Resources: api.Resources{Requests: list("cpu", "10m", "memory", "32Mi")},
			}},
		},
	}, {
		Namespace: "monitoring", Name: "node-exporter", UID: "node-exporter",
		Template: api.PodTemplate{
			NodeSelector: map[string]string{"kubernetes.io/os": "linux"},
			Containers: []api.Container{{
				Name: "node-exporter", Image: "quay.io/prometheus/node-exporter:v1.9.1",
				Resources: api.Resources{Requests: list("cpu", "100m", "memory", "180Mi"), Limits: list("memory", "180Mi")},
				Ports:     []api.ContainerPort{{Name: "metrics", ContainerPort: 9100, HostPort: 9100}},
			}},
		},
	}, {
		Namespace: "kube-system", Name: "nvidia-device-plugin", UID: "nvidia-device-plugin",
		Template: api.PodTemplate{
			RequiredNodeAffinity: &api.NodeSelector{Terms: []api.NodeSelectorTerm{{MatchExpressions: []api.NodeSelectorRequirement{
				{Key: "nvidia.com/gpu.present", Operator: api.SelectorOpIn, Values: []string{"true"}},
			}}}},
			Tolerations: []api.Toleration{{Key: "nvidia.com/gpu", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule}},
			Containers:  []api.Container{container("nvidia-device-plugin", "nvcr.io/nvidia/k8s-device-plugin:v0.17", list("cpu", "50m", "memory", "64Mi"), nil)},
		},
	}}
}

// run prints, for each pool, whether each DaemonSet's pod lands, the
// daemon overhead, whether every daemon pod fits, and what is left.
func run(w io.Writer) error {
	set := overhead.Compile(daemonSets(), overhead.Options{})
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	header := []string{"POOL"}
	for i := range set.Len() {
		header = append(header, strings.ToUpper(set.Daemon(i).Name))
	}
	header = append(header, "DAEMON CPU", "DAEMON MEMORY", "ALL FIT", "LEFT CPU", "LEFT MEMORY", "LEFT PODS")
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, p := range pools() {
		rep := set.Report(&p.node, &overhead.NodeState{Allocatable: p.allocatable})
		row := []string{p.name}
		landing, fit := 0, true
		for _, e := range rep.DaemonSets {
			if !e.Lands {
				row = append(row, "no: "+e.Decision.Reason.String())
				continue
			}
			row = append(row, "yes")
			landing++
			fit = fit && e.Fit.Fits
		}
		cpu, memory := rep.Requests["cpu"], rep.Requests["memory"]
		pods := p.allocatable["pods"].Value() - int64(landing)
		row = append(row, cpu.String(), memory.String(), fmt.Sprint(fit),
			p.allocatable["cpu"].Sub(cpu).String(), p.allocatable["memory"].Sub(memory).String(), fmt.Sprint(pods))
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "What each daemon pod requests (the stored pod, as the scheduler counts it):")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for i := range set.Len() {
		d := set.Daemon(i)
		ports := ""
		for _, p := range d.HostPorts {
			ports += fmt.Sprintf(" hostPort %d", p.HostPort)
		}
		fmt.Fprintf(tw, "  %s/%s\t%s%s\n", d.Namespace, d.Name, d.Requests, ports)
	}
	return tw.Flush()
}
