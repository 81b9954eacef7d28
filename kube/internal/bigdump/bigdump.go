// Package bigdump writes the cluster dump daemonplan's decoding is measured
// on: what `kubectl get ds,nodes,pods,controllerrevisions -o json` prints
// for one DaemonSet on a large cluster, without committing a file of
// hundreds of megabytes. Nodes carry the labels, annotations, conditions,
// capacity, addresses and image lists real nodes do; each runs one pod of
// the DaemonSet, Ready; the DaemonSet has two revisions.
package bigdump

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// created is when every object of the dump was created.
var created = metav1.NewTime(time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC))

const (
	namespace = "kube-system"
	dsName    = "node-agent"
	dsUID     = "8d1c3f0e-5a7b-4c2d-9e6f-0a1b2c3d4e5f"
	// hash is the revision hash upstream gives the template (what
	// `daemonplan plan` prints for it); oldHash names the revision before.
	hash    = "566c776b77"
	oldHash = "5d8f7b9c44"
)

// Write writes a List of one DaemonSet, its two ControllerRevisions, nodes
// nodes and one pod per node, as kubectl prints it with -o json (items in
// the order kubectl get ds,nodes,pods,controllerrevisions lists them), in
// compact JSON, as the API server sends it (kubectl's indentation would
// double the size and change little else).
func Write(w io.Writer, nodes int) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	enc := json.NewEncoder(bw)
	if _, err := io.WriteString(bw, `{"apiVersion":"v1","items":[`); err != nil {
		return err
	}
	first := true
	item := func(obj runtime.Object) error {
		if !first {
			if _, err := io.WriteString(bw, ","); err != nil {
				return err
			}
		}
		first = false
		return enc.Encode(obj)
	}
	if err := item(daemonSet()); err != nil {
		return err
	}
	for i := range nodes {
		if err := item(node(i)); err != nil {
			return err
		}
	}
	for i := range nodes {
		if err := item(pod(i)); err != nil {
			return err
		}
	}
	for r := int64(1); r <= 2; r++ {
		if err := item(revision(r)); err != nil {
			return err
		}
	}
	if _, err := io.WriteString(bw, `],"kind":"List","metadata":{"resourceVersion":""}}`+"\n"); err != nil {
		return err
	}
	return bw.Flush()
}

func nodeName(i int) string { return fmt.Sprintf("node-%06d", i) }

func template() corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": dsName}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name:  "agent",
				Image: "registry.k8s.io/node-agent:v1.2.3",
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("200Mi")},
					Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("200Mi")},
				},
				VolumeMounts:             []corev1.VolumeMount{{Name: "varlog", MountPath: "/var/log"}},
				TerminationMessagePath:   "/dev/termination-log",
				TerminationMessagePolicy: corev1.TerminationMessageReadFile,
				ImagePullPolicy:          corev1.PullIfNotPresent,
			}},
			Volumes: []corev1.Volume{{Name: "varlog", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/var/log", Type: ptr.To(corev1.HostPathUnset)}}}},
			Tolerations: []corev1.Toleration{
				{Key: "node-role.kubernetes.io/control-plane", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
			},
			RestartPolicy:                 corev1.RestartPolicyAlways,
			TerminationGracePeriodSeconds: ptr.To[int64](30),
			DNSPolicy:                     corev1.DNSClusterFirst,
			SecurityContext:               &corev1.PodSecurityContext{},
			SchedulerName:                 corev1.DefaultSchedulerName,
		},
	}
}

func daemonSet() *appsv1.DaemonSet {
	return &appsv1.DaemonSet{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{Name: dsName, Namespace: namespace, UID: types.UID(dsUID), Generation: 2,
			CreationTimestamp: created, ResourceVersion: "1234",
			Annotations: map[string]string{"deprecated.daemonset.template.generation": "2"}},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": dsName}},
			Template: template(),
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ptr.To(intstr.FromString("10%")), MaxSurge: ptr.To(intstr.FromInt32(0))}},
			RevisionHistoryLimit: ptr.To[int32](10),
		},
	}
}

func revision(r int64) *appsv1.ControllerRevision {
	ds := daemonSet()
	h := hash
	if r == 1 {
		h = oldHash
		ds.Spec.Template.Spec.Containers[0].Image = "registry.k8s.io/node-agent:v1.2.2"
	}
	// The revision's data is the template as upstream's patch holds it.
	raw, _ := json.Marshal(ds.Spec.Template)
	var tmpl map[string]any
	_ = json.Unmarshal(raw, &tmpl)
	tmpl["$patch"] = "replace"
	data, _ := json.Marshal(map[string]any{"spec": map[string]any{"template": tmpl}})
	return &appsv1.ControllerRevision{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ControllerRevision"},
		ObjectMeta: metav1.ObjectMeta{Name: dsName + "-" + h, Namespace: namespace,
			UID:               types.UID(fmt.Sprintf("rev-%d", r)),
			CreationTimestamp: created,
			Labels:            map[string]string{"app": dsName, "controller-revision-hash": h},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: dsName, UID: types.UID(dsUID),
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}}},
		Data:     runtime.RawExtension{Raw: data},
		Revision: r,
	}
}

func node(i int) *corev1.Node {
	name := nodeName(i)
	zone := fmt.Sprintf("europe-west1-%c", 'a'+i%3)
	cond := func(t corev1.NodeConditionType, s corev1.ConditionStatus, reason, msg string) corev1.NodeCondition {
		return corev1.NodeCondition{Type: t, Status: s, LastHeartbeatTime: created, LastTransitionTime: created, Reason: reason, Message: msg}
	}
	images := make([]corev1.ContainerImage, 2)
	for j := range images {
		images[j] = corev1.ContainerImage{
			Names: []string{
				fmt.Sprintf("registry.example.com/team-%d/service@sha256:%064x", j, j*7919+1),
				fmt.Sprintf("registry.example.com/team-%d/service:v1.%d.0", j, j),
			},
			SizeBytes: int64(20_000_000 + j*1_000_000),
		}
	}
	return &corev1.Node{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(fmt.Sprintf("node-uid-%06d", i)), ResourceVersion: fmt.Sprint(100000 + i),
			CreationTimestamp: created,
			Labels: map[string]string{
				"beta.kubernetes.io/arch":                "amd64",
				"beta.kubernetes.io/os":                  "linux",
				"kubernetes.io/arch":                     "amd64",
				"kubernetes.io/os":                       "linux",
				"kubernetes.io/hostname":                 name,
				"node.kubernetes.io/instance-type":       "n2-standard-8",
				"topology.kubernetes.io/region":          "europe-west1",
				"topology.kubernetes.io/zone":            zone,
				"failure-domain.beta.kubernetes.io/zone": zone,
				"cloud.google.com/gke-nodepool":          fmt.Sprintf("pool-%d", i%8),
				"cloud.google.com/machine-family":        "n2",
				"example.com/team":                       fmt.Sprintf("team-%d", i%20),
			},
			Annotations: map[string]string{
				"node.alpha.kubernetes.io/ttl":                           "0",
				"volumes.kubernetes.io/controller-managed-attach-detach": "true",
				"csi.volume.kubernetes.io/nodeid":                        fmt.Sprintf(`{"pd.csi.storage.gke.io":"projects/p/zones/%s/instances/%s"}`, zone, name),
			}},
		Spec: corev1.NodeSpec{PodCIDR: fmt.Sprintf("10.%d.%d.0/24", i/256%256, i%256), PodCIDRs: []string{fmt.Sprintf("10.%d.%d.0/24", i/256%256, i%256)},
			ProviderID: fmt.Sprintf("gce://project/%s/%s", zone, name)},
		Status: corev1.NodeStatus{
			Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8"), corev1.ResourceMemory: resource.MustParse("32880784Ki"),
				corev1.ResourcePods: resource.MustParse("110"), corev1.ResourceEphemeralStorage: resource.MustParse("101203048Ki")},
			Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("7910m"), corev1.ResourceMemory: resource.MustParse("29094544Ki"),
				corev1.ResourcePods: resource.MustParse("110"), corev1.ResourceEphemeralStorage: resource.MustParse("47093746742")},
			Conditions: []corev1.NodeCondition{
				cond(corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
				cond(corev1.NodeDiskPressure, corev1.ConditionFalse, "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
				cond(corev1.NodePIDPressure, corev1.ConditionFalse, "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
				cond(corev1.NodeReady, corev1.ConditionTrue, "KubeletReady", "kubelet is posting ready status"),
			},
			Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("10.128.%d.%d", i/256%256, i%256)},
				{Type: corev1.NodeHostName, Address: name}},
			DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10250}},
			NodeInfo: corev1.NodeSystemInfo{MachineID: fmt.Sprintf("%032x", i), SystemUUID: fmt.Sprintf("%032x", i+1), BootID: fmt.Sprintf("%032x", i+2),
				KernelVersion: "6.1.100+", OSImage: "Container-Optimized OS from Google", ContainerRuntimeVersion: "containerd://1.7.22",
				KubeletVersion: "v1.37.2", OperatingSystem: "linux", Architecture: "amd64"},
			Images: images,
		},
	}
}

func pod(i int) *corev1.Pod {
	node := nodeName(i)
	t := template()
	t.Spec.NodeName = node
	t.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{node}}}}}}}}
	for _, k := range []corev1.TaintEffect{corev1.TaintEffectNoExecute, corev1.TaintEffectNoExecute, corev1.TaintEffectNoSchedule, corev1.TaintEffectNoSchedule, corev1.TaintEffectNoSchedule, corev1.TaintEffectNoSchedule} {
		t.Spec.Tolerations = append(t.Spec.Tolerations, corev1.Toleration{Key: "node.kubernetes.io/x", Operator: corev1.TolerationOpExists, Effect: k})
	}
	cond := func(c corev1.PodConditionType) corev1.PodCondition {
		return corev1.PodCondition{Type: c, Status: corev1.ConditionTrue, LastTransitionTime: created}
	}
	name := fmt.Sprintf("%s-%05x", dsName, i)
	return &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, GenerateName: dsName + "-", Namespace: namespace,
			UID: types.UID(fmt.Sprintf("pod-uid-%06d", i)), ResourceVersion: fmt.Sprint(300000 + i), CreationTimestamp: created,
			Labels: map[string]string{"app": dsName, "controller-revision-hash": hash, "pod-template-generation": "2"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: dsName, UID: types.UID(dsUID),
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}}},
		Spec: t.Spec,
		Status: corev1.PodStatus{
			Phase:      corev1.PodRunning,
			Conditions: []corev1.PodCondition{cond("PodReadyToStartContainers"), cond(corev1.PodInitialized), cond(corev1.PodReady), cond(corev1.ContainersReady), cond(corev1.PodScheduled)},
			HostIP:     fmt.Sprintf("10.128.%d.%d", i/256%256, i%256), PodIP: fmt.Sprintf("10.%d.%d.2", i/256%256, i%256),
			StartTime: &created, QOSClass: corev1.PodQOSBurstable,
			ContainerStatuses: []corev1.ContainerStatus{{Name: "agent", Ready: true, Started: ptr.To(true), Image: "registry.k8s.io/node-agent:v1.2.3",
				ImageID:     "registry.k8s.io/node-agent@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
				ContainerID: fmt.Sprintf("containerd://%064x", i),
				State:       corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: created}}}},
		},
	}
}
