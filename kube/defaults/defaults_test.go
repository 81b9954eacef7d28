package defaults

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/daemonplan/daemonplan/kube/upstream"
)

// manifest reads a DaemonSet written in YAML, as a file is read.
func manifest(t testing.TB, y string) *appsv1.DaemonSet {
	t.Helper()
	var ds appsv1.DaemonSet
	if err := yaml.UnmarshalStrict([]byte(y), &ds); err != nil {
		t.Fatal(err)
	}
	return &ds
}

const minimal = `
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: default}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: agent, image: "registry.example.com/agent:v1"}]
`

// TestDaemonSetDefaults: each default, one row each, on a minimal
// manifest with the field of the row added.
func TestDaemonSetDefaults(t *testing.T) {
	tests := []struct {
		name, reason string
		// spec is added under the template's spec (YAML, indented for it);
		// top under the DaemonSet's spec.
		top, spec string
		got       func(ds *appsv1.DaemonSet) any
		want      any
	}{
		{"strategy type", "RollingUpdate when unset", "", "",
			func(ds *appsv1.DaemonSet) any { return ds.Spec.UpdateStrategy.Type }, appsv1.RollingUpdateDaemonSetStrategyType},
		{"maxUnavailable", "1 when unset", "", "",
			func(ds *appsv1.DaemonSet) any { return *ds.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable }, intstr.FromInt32(1)},
		{"maxSurge", "0 when unset", "", "",
			func(ds *appsv1.DaemonSet) any { return *ds.Spec.UpdateStrategy.RollingUpdate.MaxSurge }, intstr.FromInt32(0)},
		{"maxSurge kept", "a budget written is kept, the other defaulted", "  updateStrategy: {rollingUpdate: {maxSurge: 2, maxUnavailable: 0}}\n", "",
			func(ds *appsv1.DaemonSet) any { return *ds.Spec.UpdateStrategy.RollingUpdate }, appsv1.RollingUpdateDaemonSet{
				MaxSurge: ptr.To(intstr.FromInt32(2)), MaxUnavailable: ptr.To(intstr.FromInt32(0))}},
		{"OnDelete", "no rolling-update budgets for OnDelete", "  updateStrategy: {type: OnDelete}\n", "",
			func(ds *appsv1.DaemonSet) any { return ds.Spec.UpdateStrategy.RollingUpdate }, (*appsv1.RollingUpdateDaemonSet)(nil)},
		{"history limit", "10 when unset", "", "",
			func(ds *appsv1.DaemonSet) any { return *ds.Spec.RevisionHistoryLimit }, int32(10)},
		{"history limit 0 kept", "0 is a value, not unset", "  revisionHistoryLimit: 0\n", "",
			func(ds *appsv1.DaemonSet) any { return *ds.Spec.RevisionHistoryLimit }, int32(0)},
		{"dnsPolicy", "ClusterFirst, also with hostNetwork", "", "      hostNetwork: true\n",
			func(ds *appsv1.DaemonSet) any { return ds.Spec.Template.Spec.DNSPolicy }, corev1.DNSClusterFirst},
		{"restartPolicy", "Always", "", "",
			func(ds *appsv1.DaemonSet) any { return ds.Spec.Template.Spec.RestartPolicy }, corev1.RestartPolicyAlways},
		{"schedulerName", "default-scheduler", "", "",
			func(ds *appsv1.DaemonSet) any { return ds.Spec.Template.Spec.SchedulerName }, "default-scheduler"},
		{"securityContext", "an empty one", "", "",
			func(ds *appsv1.DaemonSet) any { return *ds.Spec.Template.Spec.SecurityContext }, corev1.PodSecurityContext{}},
		{"grace period", "30 s", "", "",
			func(ds *appsv1.DaemonSet) any { return *ds.Spec.Template.Spec.TerminationGracePeriodSeconds }, int64(30)},
		{"serviceAccount", "the deprecated name follows serviceAccountName", "", "      serviceAccountName: agent\n",
			func(ds *appsv1.DaemonSet) any { return ds.Spec.Template.Spec.DeprecatedServiceAccount }, "agent"},
		{"serviceAccount overwritten", "the deprecated name always follows a serviceAccountName set", "", "      serviceAccountName: agent\n      serviceAccount: old\n",
			func(ds *appsv1.DaemonSet) any { return ds.Spec.Template.Spec.DeprecatedServiceAccount }, "agent"},
		{"serviceAccountName", "taken from the deprecated name", "", "      serviceAccount: agent\n",
			func(ds *appsv1.DaemonSet) any { return ds.Spec.Template.Spec.ServiceAccountName }, "agent"},
		{"enableServiceLinks", "a pod default, not a template one", "", "",
			func(ds *appsv1.DaemonSet) any { return ds.Spec.Template.Spec.EnableServiceLinks }, (*bool)(nil)},
		{"terminationMessagePath", "/dev/termination-log", "", "",
			func(ds *appsv1.DaemonSet) any { return ds.Spec.Template.Spec.Containers[0].TerminationMessagePath }, "/dev/termination-log"},
		{"terminationMessagePolicy", "File", "", "",
			func(ds *appsv1.DaemonSet) any { return ds.Spec.Template.Spec.Containers[0].TerminationMessagePolicy }, corev1.TerminationMessageReadFile},
		{"imagePullPolicy", "IfNotPresent for a tag", "", "",
			func(ds *appsv1.DaemonSet) any { return ds.Spec.Template.Spec.Containers[0].ImagePullPolicy }, corev1.PullIfNotPresent},
		{"port protocol", "TCP", "", "      initContainers: [{name: i, image: busybox, ports: [{containerPort: 80}]}]\n",
			func(ds *appsv1.DaemonSet) any { return ds.Spec.Template.Spec.InitContainers[0].Ports[0].Protocol }, corev1.ProtocolTCP},
		{"hostPort", "not copied from containerPort in a template, even with hostNetwork", "",
			"      hostNetwork: true\n      initContainers: [{name: i, image: busybox, ports: [{containerPort: 80}]}]\n",
			func(ds *appsv1.DaemonSet) any { return ds.Spec.Template.Spec.InitContainers[0].Ports[0].HostPort }, int32(0)},
		{"limits not copied", "requests come from limits in pods, not templates", "",
			"      initContainers: [{name: i, image: busybox, resources: {limits: {cpu: '1'}}}]\n",
			func(ds *appsv1.DaemonSet) any { return ds.Spec.Template.Spec.InitContainers[0].Resources.Requests }, corev1.ResourceList(nil)},
		{"quantity rounded", "up to a whole milli-unit", "",
			"      initContainers: [{name: i, image: busybox, resources: {requests: {cpu: '1.0001', memory: '1500u'}}}]\n",
			func(ds *appsv1.DaemonSet) any {
				r := ds.Spec.Template.Spec.InitContainers[0].Resources.Requests
				return r.Cpu().String() + " " + r.Memory().String()
			}, "1001m 2m"},
		{"probe", "timeout 1, period 10, success 1, failure 3", "",
			"      initContainers: [{name: s, image: busybox, restartPolicy: Always, readinessProbe: {exec: {command: ['true']}}}]\n",
			func(ds *appsv1.DaemonSet) any { return *ds.Spec.Template.Spec.InitContainers[0].ReadinessProbe }, corev1.Probe{
				ProbeHandler:   corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"true"}}},
				TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3}},
		{"httpGet", "path / and scheme HTTP, no protocol in a template", "",
			"      initContainers: [{name: s, image: busybox, restartPolicy: Always, startupProbe: {httpGet: {port: 80}}}]\n",
			func(ds *appsv1.DaemonSet) any { return *ds.Spec.Template.Spec.InitContainers[0].StartupProbe.HTTPGet },
			corev1.HTTPGetAction{Path: "/", Port: intstr.FromInt32(80), Scheme: corev1.URISchemeHTTP}},
		{"grpc service", "the empty service", "",
			"      initContainers: [{name: s, image: busybox, restartPolicy: Always, livenessProbe: {grpc: {port: 9090}}}]\n",
			func(ds *appsv1.DaemonSet) any {
				return ds.Spec.Template.Spec.InitContainers[0].LivenessProbe.GRPC.Service
			}, ptr.To("")},
		{"lifecycle httpGet", "defaulted as a probe's", "",
			"      initContainers: [{name: s, image: busybox, restartPolicy: Always, lifecycle: {preStop: {httpGet: {port: 80}}}}]\n",
			func(ds *appsv1.DaemonSet) any {
				return ds.Spec.Template.Spec.InitContainers[0].Lifecycle.PreStop.HTTPGet.Scheme
			}, corev1.URISchemeHTTP},
		{"env fieldRef", "apiVersion v1", "",
			"      initContainers: [{name: i, image: busybox, env: [{name: N, valueFrom: {fieldRef: {fieldPath: spec.nodeName}}}]}]\n",
			func(ds *appsv1.DaemonSet) any {
				return ds.Spec.Template.Spec.InitContainers[0].Env[0].ValueFrom.FieldRef.APIVersion
			}, "v1"},
		{"env fileKeyRef", "optional false", "",
			"      volumes: [{name: e, emptyDir: {}}]\n      initContainers: [{name: i, image: busybox, env: [{name: N, valueFrom: {fileKeyRef: {volumeName: e, path: p, key: K}}}]}]\n",
			func(ds *appsv1.DaemonSet) any {
				return ds.Spec.Template.Spec.InitContainers[0].Env[0].ValueFrom.FileKeyRef.Optional
			}, ptr.To(false)},
		{"ephemeral container", "defaulted as a container", "",
			"      ephemeralContainers: [{name: e, image: busybox}]\n",
			func(ds *appsv1.DaemonSet) any { return ds.Spec.Template.Spec.EphemeralContainers[0].ImagePullPolicy }, corev1.PullAlways},
		{"volume without source", "an emptyDir", "", "      volumes: [{name: v}]\n",
			func(ds *appsv1.DaemonSet) any { return ds.Spec.Template.Spec.Volumes[0].EmptyDir }, &corev1.EmptyDirVolumeSource{}},
		{"hostPath type", "the empty type", "", "      volumes: [{name: v, hostPath: {path: /var/log}}]\n",
			func(ds *appsv1.DaemonSet) any { return ds.Spec.Template.Spec.Volumes[0].HostPath.Type }, ptr.To(corev1.HostPathUnset)},
		{"configMap mode", "0644", "", "      volumes: [{name: v, configMap: {name: c}}]\n",
			func(ds *appsv1.DaemonSet) any { return *ds.Spec.Template.Spec.Volumes[0].ConfigMap.DefaultMode }, int32(0o644)},
		{"secret mode", "0644", "", "      volumes: [{name: v, secret: {secretName: s}}]\n",
			func(ds *appsv1.DaemonSet) any { return *ds.Spec.Template.Spec.Volumes[0].Secret.DefaultMode }, int32(0o644)},
		{"downwardAPI", "mode 0644 and the fieldRef's apiVersion", "",
			"      volumes: [{name: v, downwardAPI: {items: [{path: l, fieldRef: {fieldPath: metadata.labels}}]}}]\n",
			func(ds *appsv1.DaemonSet) any {
				d := ds.Spec.Template.Spec.Volumes[0].DownwardAPI
				return [2]any{*d.DefaultMode, d.Items[0].FieldRef.APIVersion}
			}, [2]any{int32(0o644), "v1"}},
		{"projected", "mode 0644 and a token of one hour", "",
			"      volumes: [{name: v, projected: {sources: [{serviceAccountToken: {path: t}}]}}]\n",
			func(ds *appsv1.DaemonSet) any {
				p := ds.Spec.Template.Spec.Volumes[0].Projected
				return [2]any{*p.DefaultMode, *p.Sources[0].ServiceAccountToken.ExpirationSeconds}
			}, [2]any{int32(0o644), int64(3600)}},
		{"image volume", "pull policy by tag", "", "      volumes: [{name: v, image: {reference: 'busybox:latest'}}]\n",
			func(ds *appsv1.DaemonSet) any { return ds.Spec.Template.Spec.Volumes[0].Image.PullPolicy }, corev1.PullAlways},
		{"ephemeral volume", "Filesystem mode and rounded requests", "",
			"      volumes: [{name: v, ephemeral: {volumeClaimTemplate: {spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: '0.0001'}}}}}}]\n",
			func(ds *appsv1.DaemonSet) any {
				s := ds.Spec.Template.Spec.Volumes[0].Ephemeral.VolumeClaimTemplate.Spec
				return [2]any{*s.VolumeMode, s.Resources.Requests.Storage().String()}
			}, [2]any{corev1.PersistentVolumeFilesystem, "1m"}},
		{"iscsi", "the default interface", "",
			"      volumes: [{name: v, iscsi: {targetPortal: '10.0.0.1:3260', iqn: 'iqn.2001-04.com.example:s', lun: 0}}]\n",
			func(ds *appsv1.DaemonSet) any { return ds.Spec.Template.Spec.Volumes[0].ISCSI.ISCSIInterface }, "default"},
		{"rbd", "pool rbd, user admin, keyring", "", "      volumes: [{name: v, rbd: {monitors: [m], image: i}}]\n",
			func(ds *appsv1.DaemonSet) any {
				r := ds.Spec.Template.Spec.Volumes[0].RBD
				return r.RBDPool + " " + r.RadosUser + " " + r.Keyring
			}, "rbd admin /etc/ceph/keyring"},
		{"azureDisk", "ReadWrite caching, ext4, read-write, Shared", "", "      volumes: [{name: v, azureDisk: {diskName: d, diskURI: u}}]\n",
			func(ds *appsv1.DaemonSet) any {
				a := ds.Spec.Template.Spec.Volumes[0].AzureDisk
				return [4]any{*a.CachingMode, *a.FSType, *a.ReadOnly, *a.Kind}
			}, [4]any{corev1.AzureDataDiskCachingReadWrite, "ext4", false, corev1.AzureSharedBlobDisk}},
		{"scaleIO", "ThinProvisioned, xfs", "", "      volumes: [{name: v, scaleIO: {gateway: g, system: s, secretRef: {name: s}}}]\n",
			func(ds *appsv1.DaemonSet) any {
				s := ds.Spec.Template.Spec.Volumes[0].ScaleIO
				return s.StorageMode + " " + s.FSType
			}, "ThinProvisioned xfs"},
		{"pod overhead", "rounded as resources", "", "      overhead: {cpu: '0.0101'}\n",
			func(ds *appsv1.DaemonSet) any { return ds.Spec.Template.Spec.Overhead.Cpu().String() }, "11m"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			y := strings.Replace(minimal, "spec:\n  selector:", "spec:\n"+tt.top+"  selector:", 1) + tt.spec
			in := manifest(t, y)
			out, err := DaemonSet(in, upstream.Latest)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, tt.got(out)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tt.reason, diff)
			}
		})
	}
}

// TestPullPolicy: Always for the tag latest, written or implied;
// IfNotPresent for another tag, a digest, or a reference that does not
// parse (the API server's rule).
func TestPullPolicy(t *testing.T) {
	const d = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	for _, tt := range []struct {
		image, reason string
		want          corev1.PullPolicy
	}{
		{"busybox", "no tag: latest implied", corev1.PullAlways},
		{"busybox:latest", "latest written", corev1.PullAlways},
		{"busybox:1.36", "a tag", corev1.PullIfNotPresent},
		{"localhost:5000/a/b", "a registry port is no tag", corev1.PullAlways},
		{"localhost:5000/a/b:latest", "a registry port and latest", corev1.PullAlways},
		{"busybox@" + d, "a digest: no tag implied", corev1.PullIfNotPresent},
		{"busybox:latest@" + d, "the tag latest beside a digest", corev1.PullAlways},
		{"busybox:1.36@" + d, "a tag beside a digest", corev1.PullIfNotPresent},
		{"Upper/Case:latest", "upper case does not parse", corev1.PullIfNotPresent},
		{"busybox:", "an empty tag does not parse", corev1.PullIfNotPresent},
		{"a/b:LATEST", "tags are case-sensitive", corev1.PullIfNotPresent},
		{"", "an empty image does not parse (validation refuses it)", corev1.PullIfNotPresent},
	} {
		if got := pullPolicy(tt.image); got != tt.want {
			t.Errorf("pullPolicy(%q) = %s, want %s (%s)", tt.image, got, tt.want, tt.reason)
		}
	}
}

// TestVersions: fields whose feature is off by default in a minor are
// refused for it, naming the field; the defaults are otherwise the same
// in every supported minor.
func TestVersions(t *testing.T) {
	image := manifest(t, minimal+"      volumes: [{name: v}, {name: w, image: {reference: busybox}}]\n")
	file := manifest(t, minimal+"      volumes: [{name: e, emptyDir: {}}]\n      initContainers: [{name: i, image: busybox, env: [{name: A}, {name: N, valueFrom: {fileKeyRef: {volumeName: e, path: p, key: K}}}]}]\n")
	for _, tt := range []struct {
		name string
		ds   *appsv1.DaemonSet
		err  string // for 1.34; none from 1.35
	}{
		{"image volume", image, `spec.template.spec.volumes[1].image: Forbidden: Kubernetes 1.34 drops this field: its feature gate ImageVolume is off by default there`},
		{"fileKeyRef", file, `spec.template.spec.initContainers[0].env[1].valueFrom.fileKeyRef: Forbidden: Kubernetes 1.34 drops this field: its feature gate EnvFiles is off by default there`},
		{"minimal", manifest(t, minimal), ""},
	} {
		for _, v := range upstream.Versions() {
			_, err := DaemonSet(tt.ds, v)
			want := ""
			if v == upstream.V1_34 {
				want = tt.err
			}
			if got := errString(err); got != want {
				t.Errorf("%s, %s: error %q, want %q", tt.name, v, got, want)
			}
		}
	}
	if _, err := DaemonSet(manifest(t, minimal), upstream.Version(0)); !errors.Is(err, upstream.ErrUnsupportedVersion) {
		t.Errorf("the zero version: %v, want ErrUnsupportedVersion", err)
	}
	if _, err := DaemonSet(nil, upstream.Latest); err == nil {
		t.Error("a nil DaemonSet: no error")
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestCreated: what a create stores besides the defaults; other
// annotations are kept and the input's map is not written.
func TestCreated(t *testing.T) {
	in := manifest(t, minimal)
	in.Annotations = map[string]string{"note": "x"}
	in.Generation, in.Status.NumberReady = 7, 3
	out, err := Created(in, upstream.Latest)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"note": "x", "deprecated.daemonset.template.generation": "1"}
	if diff := cmp.Diff(want, out.Annotations); diff != "" || out.Generation != 1 || !equality.Semantic.DeepEqual(out.Status, appsv1.DaemonSetStatus{}) {
		t.Errorf("annotations (-want +got) %s, generation %d, status %+v; want generation 1 and an empty status", diff, out.Generation, out.Status)
	}
	if len(in.Annotations) != 1 || in.Generation != 7 {
		t.Errorf("the input was changed: %v, generation %d", in.Annotations, in.Generation)
	}
	if out.UID != "" {
		t.Errorf("uid %q: only a server invents one", out.UID)
	}
}

// TestNode: allocatable is capacity when absent, a copy of it; an
// allocatable written is kept.
func TestNode(t *testing.T) {
	capacity := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")}
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}, Status: corev1.NodeStatus{Capacity: capacity}}
	out := Node(n)
	if !equality.Semantic.DeepEqual(out.Status.Allocatable, capacity) {
		t.Errorf("allocatable %v, want the capacity %v", out.Status.Allocatable, capacity)
	}
	out.Status.Allocatable[corev1.ResourceCPU] = resource.MustParse("1")
	if n.Status.Allocatable != nil || n.Status.Capacity.Cpu().String() != "4" {
		t.Errorf("the input node was changed: %+v", n.Status)
	}
	kept := &corev1.Node{Status: corev1.NodeStatus{Capacity: capacity, Allocatable: corev1.ResourceList{}}}
	if got := Node(kept).Status.Allocatable; len(got) != 0 {
		t.Errorf("allocatable written as empty became %v", got)
	}
	if Node(nil) != nil {
		t.Error("Node(nil) is not nil")
	}
}
