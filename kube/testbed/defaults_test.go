package testbed

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/daemonplan/daemonplan/kube/defaults"
	"github.com/daemonplan/daemonplan/kube/load"
	kubeupstream "github.com/daemonplan/daemonplan/kube/upstream"
)

// TestDefaultsDifferential: generated DaemonSet manifests (seeded: every
// kind of probe handler, ports, env sources, resources, volumes of each
// kind, init and sidecar containers, security contexts, host network,
// update strategies) are created with a server-side dry run on the real
// kube-apiserver; what it returns is compared field by field with
// defaults.Created, and the revision hash of both with upstream's. The
// count is DEFAULTS_N (3000), the seed DEFAULTS_SEED (1).
func TestDefaultsDifferential(t *testing.T) {
	n, seed := envInt(t, "DEFAULTS_N", 3000), envInt(t, "DEFAULTS_SEED", 1)
	b := startBed(t, "defaults", Options{})
	ctx := context.Background()

	type result struct {
		i        int
		rejected string
		diff     string
		// changed: defaulting changed the revision hash.
		changed bool
	}
	work := make(chan int)
	results := make(chan result)
	var wg sync.WaitGroup
	start := time.Now()
	for range 4 {
		wg.Go(func() {
			for i := range work {
				r := result{i: i}
				ds := genDaemonSet(rand.New(rand.NewPCG(uint64(seed), uint64(i))), i)
				// Read the manifest as a file is read, so that the offline
				// side starts from what the CLI would hold.
				asWritten := roundTrip(t, ds)
				got, err := b.Client.AppsV1().DaemonSets("default").Create(ctx, ds,
					metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
				if err != nil {
					r.rejected = err.Error()
					results <- r
					continue
				}
				want, err := defaults.Created(asWritten, kubeupstream.V1_37)
				if err != nil {
					r.diff = "defaults.Created: " + err.Error()
					results <- r
					continue
				}
				if d := cmp.Diff(stored(t, got), stored(t, want)); d != "" {
					r.diff = "server (-) vs offline (+):\n" + d
				} else {
					hs, err1 := kubeupstream.V1_37.Hash(&got.Spec.Template, nil)
					ho, err2 := kubeupstream.V1_37.Hash(&want.Spec.Template, nil)
					if err1 != nil || err2 != nil || hs != ho {
						r.diff = fmt.Sprintf("revision hash: server's template %s (%v), offline %s (%v)", hs, err1, ho, err2)
					}
					hw, _ := kubeupstream.V1_37.Hash(&asWritten.Spec.Template, nil)
					r.changed = hw != hs
				}
				results <- r
			}
		})
	}
	go func() {
		for i := range n {
			work <- i
		}
		close(work)
		wg.Wait()
		close(results)
	}()
	var rejected, mismatched []result
	changed := 0
	for r := range results {
		if r.changed {
			changed++
		}
		switch {
		case r.rejected != "":
			rejected = append(rejected, r)
		case r.diff != "":
			mismatched = append(mismatched, r)
		}
	}
	slices.SortFunc(mismatched, func(a, b result) int { return a.i - b.i })
	slices.SortFunc(rejected, func(a, b result) int { return a.i - b.i })
	t.Logf("%d manifests (seed %d) in %v: %d stored by the dry run, %d rejected, %d mismatched; defaulting changed the revision hash of %d",
		n, seed, time.Since(start).Round(time.Millisecond), n-len(rejected), len(rejected), len(mismatched), changed)
	for _, r := range mismatched[:min(len(mismatched), 5)] {
		y, _ := sigsyaml.Marshal(genDaemonSet(rand.New(rand.NewPCG(uint64(seed), uint64(r.i))), r.i))
		t.Errorf("manifest %d:\n%s\n%s", r.i, y, r.diff)
	}
	for _, r := range rejected[:min(len(rejected), 10)] {
		t.Logf("manifest %d rejected: %s", r.i, r.rejected)
	}
	// The generator writes valid manifests; a few rejections are tolerated
	// so that a new validation rule does not hide the comparison, many are
	// a broken generator.
	if len(rejected) > n/20 {
		t.Errorf("%d of %d manifests rejected: the generator no longer writes valid DaemonSets", len(rejected), n)
	}
}

func envInt(t *testing.T, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, s, err)
	}
	return v
}

// roundTrip returns ds as written to YAML and read back.
func roundTrip(t *testing.T, ds *appsv1.DaemonSet) *appsv1.DaemonSet {
	y, err := sigsyaml.Marshal(ds)
	if err != nil {
		t.Error(err)
		return ds
	}
	var out appsv1.DaemonSet
	if err := sigsyaml.UnmarshalStrict(y, &out); err != nil {
		t.Error(err)
		return ds
	}
	return &out
}

// stored is what the comparison covers, as JSON values: everything the
// API server stores of a DaemonSet but the fields only a server invents
// (uid, creation time, resource version, managed fields).
func stored(t *testing.T, ds *appsv1.DaemonSet) map[string]any {
	c := ds.DeepCopy()
	c.TypeMeta = metav1.TypeMeta{}
	c.UID, c.ResourceVersion, c.CreationTimestamp, c.ManagedFields = "", "", metav1.Time{}, nil
	j, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(j, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

const digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// images covers each rule of the default pull policy: the tag latest
// written or implied, a tag, a digest with and without a tag, registries
// with ports, and references that do not parse.
var images = []string{
	"busybox", "busybox:latest", "busybox:1.36", "registry.k8s.io/pause:3.10", "localhost:5000/a/b",
	"localhost:5000/a/b:latest", "busybox@" + digest, "busybox:1.36@" + digest, "busybox:latest@" + digest,
	"Upper/Case:latest", "busybox:", "quay.io/fluentd_elasticsearch/fluentd:v5.0.1", "a/b/c:LATEST",
}

func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

// genDaemonSet writes the i-th manifest: a valid DaemonSet as a user
// would, leaving out what the API server defaults about half the time.
func genDaemonSet(r *rand.Rand, i int) *appsv1.DaemonSet {
	name := fmt.Sprintf("gen-%d", i)
	labels := map[string]string{"app": name}
	ds := &appsv1.DaemonSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"gen": "true"}},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}},
		},
	}
	if r.IntN(4) == 0 {
		ds.Annotations = map[string]string{"note": "generated"}
	}
	switch r.IntN(7) {
	case 0:
		ds.Spec.UpdateStrategy.Type = appsv1.OnDeleteDaemonSetStrategyType
	case 1:
		ds.Spec.UpdateStrategy.Type = appsv1.RollingUpdateDaemonSetStrategyType
	case 2:
		ds.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ptr.To(intstr.FromString("25%"))}
	case 3:
		ds.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ptr.To(intstr.FromInt32(0)), MaxSurge: ptr.To(intstr.FromInt32(2))}
	case 4:
		ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ptr.To(intstr.FromInt32(0)), MaxSurge: ptr.To(intstr.FromString("10%"))}}
	}
	if r.IntN(3) == 0 {
		ds.Spec.RevisionHistoryLimit = ptr.To(int32(r.IntN(5)))
	}
	if r.IntN(4) == 0 {
		ds.Spec.MinReadySeconds = int32(r.IntN(60))
	}
	ds.Spec.Template.Spec = genPodSpec(r)
	return ds
}

func genPodSpec(r *rand.Rand) corev1.PodSpec {
	var s corev1.PodSpec
	s.HostNetwork = r.IntN(4) == 0
	if r.IntN(2) == 0 {
		s.DNSPolicy = pick(r, corev1.DNSClusterFirst, corev1.DNSDefault, corev1.DNSClusterFirstWithHostNet)
	}
	if r.IntN(3) == 0 {
		s.RestartPolicy = corev1.RestartPolicyAlways
	}
	if r.IntN(3) == 0 {
		s.SchedulerName = pick(r, "default-scheduler", "my-scheduler")
	}
	switch r.IntN(4) {
	case 0:
		s.SecurityContext = &corev1.PodSecurityContext{}
	case 1:
		s.SecurityContext = &corev1.PodSecurityContext{RunAsUser: ptr.To(int64(1000)), RunAsNonRoot: ptr.To(true), FSGroup: ptr.To(int64(2000)),
			SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}}
	}
	if r.IntN(2) == 0 {
		s.TerminationGracePeriodSeconds = ptr.To(int64(10 + r.IntN(110))) // above the sleep hooks
	}
	switch r.IntN(5) {
	case 0:
		s.ServiceAccountName = "agent"
	case 1:
		s.DeprecatedServiceAccount = "agent"
	case 2:
		s.ServiceAccountName, s.DeprecatedServiceAccount = "agent", "agent"
	}
	if r.IntN(4) == 0 {
		s.EnableServiceLinks = ptr.To(r.IntN(2) == 0)
	}
	if r.IntN(4) == 0 {
		s.Tolerations = []corev1.Toleration{{Key: "node-role.kubernetes.io/control-plane", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
	}
	if r.IntN(5) == 0 {
		s.PriorityClassName = "system-node-critical"
	}
	nv := r.IntN(5)
	for j := range nv {
		s.Volumes = append(s.Volumes, genVolume(r, j))
	}
	hasEmptyDir := slices.ContainsFunc(s.Volumes, func(v corev1.Volume) bool { return v.EmptyDir != nil })
	port := int32(1000)
	nextPort := func() int32 { port++; return port }
	ni := r.IntN(3)
	for j := range ni {
		sidecar := r.IntN(2) == 0
		c := genContainer(r, fmt.Sprintf("init-%d", j), sidecar, s.HostNetwork, nextPort, hasEmptyDir, s.Volumes)
		if sidecar {
			c.RestartPolicy = ptr.To(corev1.ContainerRestartPolicyAlways)
		}
		s.InitContainers = append(s.InitContainers, c)
	}
	nc := 1 + r.IntN(3)
	for j := range nc {
		s.Containers = append(s.Containers, genContainer(r, fmt.Sprintf("c-%d", j), true, s.HostNetwork, nextPort, hasEmptyDir, s.Volumes))
	}
	if r.IntN(8) == 0 {
		s.Overhead = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(pick(r, "10m", "0.0101", "1.5m"))}
	}
	return s
}

// genContainer writes a container; probes and lifecycle hooks only where
// the API server allows them (not on plain init containers).
func genContainer(r *rand.Rand, name string, probes, hostNetwork bool, nextPort func() int32, hasEmptyDir bool, vols []corev1.Volume) corev1.Container {
	c := corev1.Container{Name: name, Image: pick(r, images...)}
	if r.IntN(4) == 0 {
		c.ImagePullPolicy = pick(r, corev1.PullAlways, corev1.PullNever, corev1.PullIfNotPresent)
	}
	if r.IntN(4) == 0 {
		c.TerminationMessagePath = "/tmp/termination"
	}
	if r.IntN(4) == 0 {
		c.TerminationMessagePolicy = corev1.TerminationMessageFallbackToLogsOnError
	}
	for range r.IntN(3) {
		p := corev1.ContainerPort{ContainerPort: nextPort()}
		if r.IntN(2) == 0 {
			p.Protocol = pick(r, corev1.ProtocolTCP, corev1.ProtocolUDP, corev1.ProtocolSCTP)
		}
		if r.IntN(3) == 0 || (hostNetwork && r.IntN(2) == 0) {
			p.HostPort = p.ContainerPort
		}
		if r.IntN(3) == 0 {
			p.Name = fmt.Sprintf("p%d", p.ContainerPort)
		}
		c.Ports = append(c.Ports, p)
	}
	for j := range r.IntN(4) {
		e := corev1.EnvVar{Name: fmt.Sprintf("E%d", j)}
		switch r.IntN(5) {
		case 0:
			e.Value = "v"
		case 1:
			e.ValueFrom = &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: pick(r, "spec.nodeName", "metadata.name", "status.podIP")}}
			if r.IntN(2) == 0 {
				e.ValueFrom.FieldRef.APIVersion = "v1"
			}
		case 2:
			e.ValueFrom = &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.memory"}}
		case 3:
			e.ValueFrom = &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}, Key: "k"}}
		case 4:
			if hasEmptyDir {
				var vol string
				for _, v := range vols {
					if v.EmptyDir != nil {
						vol = v.Name
						break
					}
				}
				e.ValueFrom = &corev1.EnvVarSource{FileKeyRef: &corev1.FileKeySelector{VolumeName: vol, Path: "env", Key: "K"}}
				if r.IntN(2) == 0 {
					e.ValueFrom.FileKeyRef.Optional = ptr.To(true)
				}
			} else {
				e.Value = "v"
			}
		}
		c.Env = append(c.Env, e)
	}
	switch r.IntN(5) {
	case 0:
		c.Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(pick(r, "200Mi", "1e9", "0.5Gi")),
			corev1.ResourceCPU: resource.MustParse(pick(r, "1", "0.5", "1.0001", "250m"))}
	case 1:
		c.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(pick(r, "100m", "0.1", "0.0005", "1500u"))}
	case 2:
		c.Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("200Mi")}
		c.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("200Mi")}
	}
	if r.IntN(4) == 0 {
		c.SecurityContext = &corev1.SecurityContext{ReadOnlyRootFilesystem: ptr.To(true),
			Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"NET_ADMIN"}}}
	}
	if len(vols) > 0 && r.IntN(2) == 0 {
		c.VolumeMounts = []corev1.VolumeMount{{Name: vols[0].Name, MountPath: "/mnt/" + vols[0].Name, ReadOnly: r.IntN(2) == 0}}
	}
	if probes {
		if r.IntN(2) == 0 {
			c.LivenessProbe = genProbe(r, true)
		}
		if r.IntN(2) == 0 {
			c.ReadinessProbe = genProbe(r, false)
		}
		if r.IntN(3) == 0 {
			c.StartupProbe = genProbe(r, true)
		}
		if r.IntN(3) == 0 {
			c.Lifecycle = &corev1.Lifecycle{PreStop: genHandler(r), PostStart: genHandler(r)}
		}
	}
	return c
}

func genHandler(r *rand.Rand) *corev1.LifecycleHandler {
	switch r.IntN(4) {
	case 0:
		return &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"true"}}}
	case 1:
		return &corev1.LifecycleHandler{HTTPGet: genHTTPGet(r)}
	case 2:
		return &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 5}}
	}
	return nil
}

func genHTTPGet(r *rand.Rand) *corev1.HTTPGetAction {
	h := &corev1.HTTPGetAction{Port: intstr.FromInt32(8080)}
	if r.IntN(2) == 0 {
		h.Path = "/healthz"
	}
	if r.IntN(3) == 0 {
		h.Scheme = pick(r, corev1.URISchemeHTTP, corev1.URISchemeHTTPS)
	}
	return h
}

// genProbe writes a probe of each handler kind; liveness and startup
// probes need a success threshold of 1.
func genProbe(r *rand.Rand, oneSuccess bool) *corev1.Probe {
	p := &corev1.Probe{}
	switch r.IntN(4) {
	case 0:
		p.Exec = &corev1.ExecAction{Command: []string{"cat", "/tmp/healthy"}}
	case 1:
		p.HTTPGet = genHTTPGet(r)
	case 2:
		p.TCPSocket = &corev1.TCPSocketAction{Port: intstr.FromInt32(9000)}
	case 3:
		p.GRPC = &corev1.GRPCAction{Port: 9090}
		if r.IntN(2) == 0 {
			p.GRPC.Service = ptr.To("health")
		}
	}
	if r.IntN(2) == 0 {
		p.TimeoutSeconds = int32(1 + r.IntN(5))
		p.PeriodSeconds = int32(1 + r.IntN(30))
		p.FailureThreshold = int32(1 + r.IntN(5))
		p.InitialDelaySeconds = int32(r.IntN(10))
		if !oneSuccess {
			p.SuccessThreshold = int32(1 + r.IntN(3))
		}
	}
	return p
}

// genVolume writes a volume of each kind the API server defaults (and a
// few it does not).
func genVolume(r *rand.Rand, j int) corev1.Volume {
	v := corev1.Volume{Name: fmt.Sprintf("v%d", j)}
	s := &v.VolumeSource
	mode := func() *int32 {
		if r.IntN(2) == 0 {
			return ptr.To(int32(0o600))
		}
		return nil
	}
	switch r.IntN(17) {
	case 0:
		// No source: an emptyDir.
	case 1:
		s.EmptyDir = &corev1.EmptyDirVolumeSource{}
		if r.IntN(2) == 0 {
			s.EmptyDir.Medium, s.EmptyDir.SizeLimit = corev1.StorageMediumMemory, ptr.To(resource.MustParse("64Mi"))
		}
	case 2:
		s.HostPath = &corev1.HostPathVolumeSource{Path: "/var/log"}
		if r.IntN(2) == 0 {
			s.HostPath.Type = ptr.To(pick(r, corev1.HostPathDirectory, corev1.HostPathDirectoryOrCreate, corev1.HostPathUnset))
		}
	case 3:
		s.ConfigMap = &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}, DefaultMode: mode()}
		if r.IntN(2) == 0 {
			s.ConfigMap.Items = []corev1.KeyToPath{{Key: "k", Path: "p", Mode: mode()}}
		}
	case 4:
		s.Secret = &corev1.SecretVolumeSource{SecretName: "s", DefaultMode: mode(), Optional: ptr.To(true)}
	case 5:
		s.DownwardAPI = &corev1.DownwardAPIVolumeSource{DefaultMode: mode(), Items: []corev1.DownwardAPIVolumeFile{
			{Path: "labels", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels"}},
			{Path: "mem", ResourceFieldRef: &corev1.ResourceFieldSelector{ContainerName: "c-0", Resource: "limits.memory"}},
		}}
	case 6:
		p := &corev1.ProjectedVolumeSource{DefaultMode: mode()}
		p.Sources = append(p.Sources,
			corev1.VolumeProjection{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token"}},
			corev1.VolumeProjection{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}}},
			corev1.VolumeProjection{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{
				{Path: "ns", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}}}},
		)
		if r.IntN(2) == 0 {
			p.Sources[0].ServiceAccountToken.ExpirationSeconds = ptr.To(int64(7200))
			p.Sources[0].ServiceAccountToken.Audience = "api"
		}
		if r.IntN(2) == 0 {
			p.Sources = append(p.Sources, corev1.VolumeProjection{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "s"}}})
		}
		s.Projected = p
	case 7:
		s.PersistentVolumeClaim = &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "claim"}
	case 8:
		s.Ephemeral = &corev1.EphemeralVolumeSource{VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{
			Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(pick(r, "1Gi", "1.0001"))}}}}}
	case 9:
		s.Image = &corev1.ImageVolumeSource{Reference: pick(r, images[:9]...)}
		if r.IntN(3) == 0 {
			s.Image.PullPolicy = corev1.PullNever
		}
	case 10:
		s.NFS = &corev1.NFSVolumeSource{Server: "nfs.example.com", Path: "/exports"}
	case 11:
		s.ISCSI = &corev1.ISCSIVolumeSource{TargetPortal: "10.0.0.1:3260", IQN: "iqn.2001-04.com.example:storage", Lun: 0}
	case 12:
		s.RBD = &corev1.RBDVolumeSource{CephMonitors: []string{"10.0.0.1:6789"}, RBDImage: "img"}
	case 13:
		s.AzureDisk = &corev1.AzureDiskVolumeSource{DiskName: "d", DataDiskURI: "https://example.blob.core.windows.net/vhds/d.vhd"}
	case 14:
		s.ScaleIO = &corev1.ScaleIOVolumeSource{Gateway: "https://gw", System: "sys", VolumeName: "vol", SecretRef: &corev1.LocalObjectReference{Name: "s"}}
	case 15:
		s.CSI = &corev1.CSIVolumeSource{Driver: "csi.example.com"}
	case 16:
		s.HostPath = &corev1.HostPathVolumeSource{Path: strings.Repeat("/x", 1+r.IntN(3))}
	}
	return v
}

// TestDefaultsDocsDaemonSet: the fluentd-elasticsearch DaemonSet of the
// Kubernetes documentation, as written (kube/testdata), created on the
// real control plane: the revision the upstream controller creates is
// named with the hash daemonplan computes offline after defaulting, and
// not with the hash of the manifest as written.
func TestDefaultsDocsDaemonSet(t *testing.T) {
	f, err := os.Open("../testdata/fluentd-elasticsearch.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	objs, err := load.Decode(f)
	if err != nil || len(objs.DaemonSets) != 1 {
		t.Fatalf("reading the manifest: %v (%d DaemonSets)", err, len(objs.DaemonSets))
	}
	written := objs.DaemonSets[0]
	offline, err := defaults.Created(written, kubeupstream.V1_37)
	if err != nil {
		t.Fatal(err)
	}
	wantHash, err := kubeupstream.V1_37.Hash(&offline.Spec.Template, nil)
	if err != nil {
		t.Fatal(err)
	}
	writtenHash, err := kubeupstream.V1_37.Hash(&written.Spec.Template, nil)
	if err != nil {
		t.Fatal(err)
	}

	b := startBed(t, "defaults-docs", Options{})
	c, err := StartUpstream(b.Config)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop() })
	ctx := context.Background()
	if _, err := b.Client.AppsV1().DaemonSets(written.Namespace).Create(ctx, written, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var got string
	deadline := time.Now().Add(time.Minute)
	for got == "" && time.Now().Before(deadline) {
		revs, err := b.Client.AppsV1().ControllerRevisions(written.Namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range revs.Items {
			got = r.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("revision hash: as written %s, defaulted offline %s, the controller's %s", writtenHash, wantHash, got)
	if got != wantHash {
		t.Errorf("the controller's revision hash is %q, offline %q", got, wantHash)
	}
	if writtenHash == wantHash {
		t.Errorf("defaulting did not change the hash %s: the manifest is no longer one as written", writtenHash)
	}
}
