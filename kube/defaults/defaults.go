package defaults

import (
	"fmt"

	"github.com/distribution/reference"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/kube/upstream"
)

// Defaults the API server has set on every stored object since before 1.34.
const (
	defaultRevisionHistoryLimit = 10
	defaultGracePeriodSeconds   = int64(corev1.DefaultTerminationGracePeriodSeconds) // 30
	defaultTokenExpiration      = int64(3600)                                        // one hour
)

// DaemonSet returns a copy of ds with the fields set that the API server of
// Kubernetes version v sets when it decodes a DaemonSet: the spec's
// defaults and its pod template's. Fields already set are kept. It fails
// for an unsupported v and for a template using a field that v's API
// server drops because its feature is off by default (the error names the
// field).
func DaemonSet(ds *appsv1.DaemonSet, v upstream.Version) (*appsv1.DaemonSet, error) {
	if ds == nil {
		return nil, fmt.Errorf("defaults.DaemonSet: nil DaemonSet")
	}
	if !v.Supported() {
		return nil, fmt.Errorf("defaults.DaemonSet: %w: %v", upstream.ErrUnsupportedVersion, v)
	}
	out := ds.DeepCopy()
	spec := &out.Spec
	s := &spec.UpdateStrategy
	if s.Type == "" {
		s.Type = appsv1.RollingUpdateDaemonSetStrategyType
	}
	if s.Type == appsv1.RollingUpdateDaemonSetStrategyType {
		if s.RollingUpdate == nil {
			s.RollingUpdate = &appsv1.RollingUpdateDaemonSet{}
		}
		if s.RollingUpdate.MaxUnavailable == nil {
			s.RollingUpdate.MaxUnavailable = ptr.To(intstr.FromInt32(1))
		}
		if s.RollingUpdate.MaxSurge == nil {
			s.RollingUpdate.MaxSurge = ptr.To(intstr.FromInt32(0))
		}
	}
	if spec.RevisionHistoryLimit == nil {
		spec.RevisionHistoryLimit = ptr.To[int32](defaultRevisionHistoryLimit)
	}
	if err := podSpec(&spec.Template.Spec, field.NewPath("spec", "template", "spec"), v); err != nil {
		return nil, err
	}
	return out, nil
}

// Created returns DaemonSet(ds, v) as a create stores it: generation 1,
// template generation 1 (the annotation apps/v1 keeps it in) and an empty
// status. The UID and creation time are left as they are.
func Created(ds *appsv1.DaemonSet, v upstream.Version) (*appsv1.DaemonSet, error) {
	out, err := DaemonSet(ds, v)
	if err != nil {
		return nil, err
	}
	out.Generation = 1
	out.Status = appsv1.DaemonSetStatus{}
	anns := make(map[string]string, len(out.Annotations)+1)
	for k, val := range out.Annotations {
		anns[k] = val
	}
	anns[api.AnnotationTemplateGeneration] = "1"
	out.Annotations = anns
	return out, nil
}

// Node returns a copy of n as the API server stores it: without an
// allocatable list, the node's capacity is its allocatable.
func Node(n *corev1.Node) *corev1.Node {
	if n == nil {
		return nil
	}
	out := n.DeepCopy()
	if out.Status.Allocatable == nil && out.Status.Capacity != nil {
		out.Status.Allocatable = out.Status.Capacity.DeepCopy()
	}
	return out
}

// podSpec defaults a pod template's spec in place.
func podSpec(spec *corev1.PodSpec, at *field.Path, v upstream.Version) error {
	if spec.ServiceAccountName == "" {
		spec.ServiceAccountName = spec.DeprecatedServiceAccount
	}
	spec.DeprecatedServiceAccount = spec.ServiceAccountName
	if spec.DNSPolicy == "" {
		spec.DNSPolicy = corev1.DNSClusterFirst
	}
	if spec.RestartPolicy == "" {
		spec.RestartPolicy = corev1.RestartPolicyAlways
	}
	if spec.SecurityContext == nil {
		spec.SecurityContext = &corev1.PodSecurityContext{}
	}
	if spec.TerminationGracePeriodSeconds == nil {
		spec.TerminationGracePeriodSeconds = ptr.To(defaultGracePeriodSeconds)
	}
	if spec.SchedulerName == "" {
		spec.SchedulerName = corev1.DefaultSchedulerName
	}
	for i := range spec.Volumes {
		if err := volume(&spec.Volumes[i], at.Child("volumes").Index(i), v); err != nil {
			return err
		}
	}
	for i := range spec.InitContainers {
		if err := container(&spec.InitContainers[i], at.Child("initContainers").Index(i), v); err != nil {
			return err
		}
	}
	for i := range spec.Containers {
		if err := container(&spec.Containers[i], at.Child("containers").Index(i), v); err != nil {
			return err
		}
	}
	for i := range spec.EphemeralContainers {
		c := (*corev1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon)
		if err := container(c, at.Child("ephemeralContainers").Index(i), v); err != nil {
			return err
		}
	}
	roundUp(spec.Overhead)
	if r := spec.Resources; r != nil {
		roundUp(r.Limits)
		roundUp(r.Requests)
	}
	return nil
}

// container defaults a container (also an init, sidecar or ephemeral one).
func container(c *corev1.Container, at *field.Path, v upstream.Version) error {
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = pullPolicy(c.Image)
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = corev1.TerminationMessagePathDefault
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	}
	for i := range c.Ports {
		if c.Ports[i].Protocol == "" {
			c.Ports[i].Protocol = corev1.ProtocolTCP
		}
	}
	for i := range c.Env {
		from := c.Env[i].ValueFrom
		if from == nil {
			continue
		}
		if from.FieldRef != nil {
			fieldSelector(from.FieldRef)
		}
		if from.FileKeyRef != nil {
			if v < upstream.V1_35 {
				return offByDefault(at.Child("env").Index(i).Child("valueFrom", "fileKeyRef"), "EnvFiles", v)
			}
			if from.FileKeyRef.Optional == nil {
				from.FileKeyRef.Optional = ptr.To(false)
			}
		}
	}
	roundUp(c.Resources.Limits)
	roundUp(c.Resources.Requests)
	for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
		probe(p)
	}
	if l := c.Lifecycle; l != nil {
		for _, h := range []*corev1.LifecycleHandler{l.PostStart, l.PreStop} {
			if h != nil {
				httpGet(h.HTTPGet)
			}
		}
	}
	return nil
}

// pullPolicy is the pull policy of an image without one: Always for the
// tag latest, written or implied (no tag and no digest), IfNotPresent
// otherwise, also for a reference that does not parse.
func pullPolicy(image string) corev1.PullPolicy {
	named, err := reference.ParseNormalizedNamed(image)
	if err != nil {
		return corev1.PullIfNotPresent
	}
	tag := ""
	if t, ok := named.(reference.Tagged); ok {
		tag = t.Tag()
	}
	_, digested := named.(reference.Digested)
	if tag == "latest" || (tag == "" && !digested) {
		return corev1.PullAlways
	}
	return corev1.PullIfNotPresent
}

func probe(p *corev1.Probe) {
	if p == nil {
		return
	}
	if p.TimeoutSeconds == 0 {
		p.TimeoutSeconds = 1
	}
	if p.PeriodSeconds == 0 {
		p.PeriodSeconds = 10
	}
	if p.SuccessThreshold == 0 {
		p.SuccessThreshold = 1
	}
	if p.FailureThreshold == 0 {
		p.FailureThreshold = 3
	}
	httpGet(p.HTTPGet)
	if g := p.GRPC; g != nil && g.Service == nil {
		g.Service = ptr.To("")
	}
}

func httpGet(h *corev1.HTTPGetAction) {
	if h == nil {
		return
	}
	if h.Path == "" {
		h.Path = "/"
	}
	if h.Scheme == "" {
		h.Scheme = corev1.URISchemeHTTP
	}
}

func fieldSelector(f *corev1.ObjectFieldSelector) {
	if f.APIVersion == "" {
		f.APIVersion = "v1"
	}
}

// volume defaults a volume; one with no source is an emptyDir.
func volume(vol *corev1.Volume, at *field.Path, v upstream.Version) error {
	src := &vol.VolumeSource
	if ptr.AllPtrFieldsNil(src) {
		src.EmptyDir = &corev1.EmptyDirVolumeSource{}
	}
	if img := src.Image; img != nil {
		if v < upstream.V1_35 {
			return offByDefault(at.Child("image"), "ImageVolume", v)
		}
		if img.PullPolicy == "" {
			img.PullPolicy = pullPolicy(img.Reference)
		}
	}
	if h := src.HostPath; h != nil && h.Type == nil {
		h.Type = ptr.To(corev1.HostPathUnset)
	}
	if s := src.Secret; s != nil && s.DefaultMode == nil {
		s.DefaultMode = ptr.To(corev1.SecretVolumeSourceDefaultMode)
	}
	if c := src.ConfigMap; c != nil && c.DefaultMode == nil {
		c.DefaultMode = ptr.To(corev1.ConfigMapVolumeSourceDefaultMode)
	}
	if d := src.DownwardAPI; d != nil {
		if d.DefaultMode == nil {
			d.DefaultMode = ptr.To(corev1.DownwardAPIVolumeSourceDefaultMode)
		}
		for i := range d.Items {
			if d.Items[i].FieldRef != nil {
				fieldSelector(d.Items[i].FieldRef)
			}
		}
	}
	if p := src.Projected; p != nil {
		if p.DefaultMode == nil {
			p.DefaultMode = ptr.To(corev1.ProjectedVolumeSourceDefaultMode)
		}
		for i := range p.Sources {
			s := &p.Sources[i]
			if s.DownwardAPI != nil {
				for j := range s.DownwardAPI.Items {
					if s.DownwardAPI.Items[j].FieldRef != nil {
						fieldSelector(s.DownwardAPI.Items[j].FieldRef)
					}
				}
			}
			if t := s.ServiceAccountToken; t != nil && t.ExpirationSeconds == nil {
				t.ExpirationSeconds = ptr.To(defaultTokenExpiration)
			}
		}
	}
	if s := src.ISCSI; s != nil && s.ISCSIInterface == "" {
		s.ISCSIInterface = "default"
	}
	if r := src.RBD; r != nil {
		if r.RBDPool == "" {
			r.RBDPool = "rbd"
		}
		if r.RadosUser == "" {
			r.RadosUser = "admin"
		}
		if r.Keyring == "" {
			r.Keyring = "/etc/ceph/keyring"
		}
	}
	if a := src.AzureDisk; a != nil {
		if a.CachingMode == nil {
			a.CachingMode = ptr.To(corev1.AzureDataDiskCachingReadWrite)
		}
		if a.FSType == nil {
			a.FSType = ptr.To("ext4")
		}
		if a.ReadOnly == nil {
			a.ReadOnly = ptr.To(false)
		}
		if a.Kind == nil {
			a.Kind = ptr.To(corev1.AzureSharedBlobDisk)
		}
	}
	if s := src.ScaleIO; s != nil {
		if s.StorageMode == "" {
			s.StorageMode = "ThinProvisioned"
		}
		if s.FSType == "" {
			s.FSType = "xfs"
		}
	}
	if e := src.Ephemeral; e != nil && e.VolumeClaimTemplate != nil {
		spec := &e.VolumeClaimTemplate.Spec
		if spec.VolumeMode == nil {
			spec.VolumeMode = ptr.To(corev1.PersistentVolumeFilesystem)
		}
		roundUp(spec.Resources.Limits)
		roundUp(spec.Resources.Requests)
	}
	return nil
}

// roundUp rounds each quantity up to a whole milli-unit, in place.
func roundUp(l corev1.ResourceList) {
	for k, q := range l {
		q.RoundUp(resource.Milli)
		l[k] = q
	}
}

// offByDefault is the error for a field v's API server drops on create
// because its feature gate is off by default there.
func offByDefault(at *field.Path, gate string, v upstream.Version) error {
	return field.Forbidden(at, fmt.Sprintf("Kubernetes %s drops this field: its feature gate %s is off by default there", v, gate))
}
