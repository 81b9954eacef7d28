package convert

import (
	"errors"
	"maps"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/revision"
)

// DaemonSetKind is the group, version and kind of the controller owner
// references the DaemonSet controller writes.
var DaemonSetKind = appsv1.SchemeGroupVersion.WithKind("DaemonSet")

// ErrNoLabels is returned by NewPod when the pod would have no labels:
// upstream refuses to create such a pod ("unable to create pods, no
// labels").
var ErrNoLabels = errors.New("convert.NewPod: unable to create pods, no labels")

// ControllerRef returns the owner reference upstream puts on the pods and
// ControllerRevisions of ds, as metav1.NewControllerRef builds it: apiVersion
// apps/v1, kind DaemonSet, ds's name and UID, controller and
// blockOwnerDeletion true. ds must not be nil: ControllerRef panics on a nil
// DaemonSet.
func ControllerRef(ds *appsv1.DaemonSet) metav1.OwnerReference {
	if ds == nil {
		panic("convert.ControllerRef: nil DaemonSet")
	}
	return *metav1.NewControllerRef(ds, DaemonSetKind)
}

// NewPod returns the pod upstream creates for c, one create of a plan for
// ds (upstream: syncNodes, util.CreatePodTemplate, controller.GetPodFromTemplate):
//
//  1. generateName is "<ds.name>-", or the bare name when that is not a
//     valid DNS-subdomain prefix; the name is left for the API server;
//  2. namespace is ds's (upstream leaves it to the request path; the API
//     server stores the same);
//  3. labels are c.Labels: the template's plus pod-template-generation and
//     controller-revision-hash; annotations and finalizers are the
//     template's;
//  4. one owner reference, ControllerRef(ds);
//  5. the spec is a copy of the template's, with tolerations c.Tolerations
//     (the template's merged with the daemon defaults, in upstream's order)
//     and the affinity ReplaceNodeNameNodeAffinity(template affinity,
//     c.Node); spec.nodeName is the template's (normally empty: the
//     scheduler binds the pod).
//
// ds is not changed and the pod shares nothing with it. The only error is
// ErrNoLabels.
func NewPod(ds *appsv1.DaemonSet, c placement.Create) (*corev1.Pod, error) {
	if len(c.Labels) == 0 {
		return nil, ErrNoLabels
	}
	tmpl := ds.Spec.Template.DeepCopy()
	pod := &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			GenerateName:    podPrefix(ds.Name),
			Namespace:       ds.Namespace,
			Labels:          maps.Clone(c.Labels),
			Annotations:     tmpl.Annotations,
			Finalizers:      tmpl.Finalizers,
			OwnerReferences: []metav1.OwnerReference{ControllerRef(ds)},
		},
		Spec: tmpl.Spec,
	}
	pod.Spec.Tolerations = k8sTolerations(c.Tolerations)
	pod.Spec.Affinity = ReplaceNodeNameNodeAffinity(pod.Spec.Affinity, c.Node)
	return pod, nil
}

// podPrefix is upstream's getPodsPrefix: "<name>-" when that is a valid
// generateName prefix, otherwise the bare name.
func podPrefix(name string) string {
	prefix := name + "-"
	if len(apivalidation.NameIsDNSSubdomain(prefix, true)) != 0 {
		return name
	}
	return prefix
}

// ReplaceNodeNameNodeAffinity pins a pod to node the way upstream's
// util.ReplaceDaemonSetPodNodeNameNodeAffinity does, on a copy of a (a is not
// changed): the required node affinity becomes exactly one term,
// matchFields metadata.name In [node].
//
//  1. a nil: a new Affinity with only that required node affinity;
//  2. a.nodeAffinity nil: set to a NodeAffinity with only that selector;
//  3. the required selector nil: set to that selector;
//  4. otherwise every required term is replaced by that one term.
//
// Preferred node affinity terms, pod affinity and pod anti-affinity are kept.
func ReplaceNodeNameNodeAffinity(a *corev1.Affinity, node string) *corev1.Affinity {
	term := corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{{
		Key:      metav1.ObjectNameField,
		Operator: corev1.NodeSelectorOpIn,
		Values:   []string{node},
	}}}
	sel := &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{term}}
	if a == nil {
		return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: sel}}
	}
	out := a.DeepCopy()
	switch {
	case out.NodeAffinity == nil:
		out.NodeAffinity = &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: sel}
	case out.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil:
		out.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = sel
	default:
		out.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms = sel.NodeSelectorTerms
	}
	return out
}

func k8sTolerations(ts []api.Toleration) []corev1.Toleration {
	if ts == nil {
		return nil
	}
	out := make([]corev1.Toleration, len(ts))
	for i, t := range ts {
		out[i] = corev1.Toleration{
			Key:               t.Key,
			Operator:          corev1.TolerationOperator(t.Operator),
			Value:             t.Value,
			Effect:            corev1.TaintEffect(t.Effect),
			TolerationSeconds: clone(t.TolerationSeconds),
		}
	}
	return out
}

// NewControllerRevision returns the ControllerRevision upstream creates for
// r, an entry of a plan's Revisions.Create for ds (upstream: snapshot): r's
// name, labels (the template's plus controller-revision-hash), annotations
// (the DaemonSet's), revision number and data, in ds's namespace, with
// ControllerRef(ds) as its only owner reference. Nothing is shared with ds
// or r. ds must not be nil: NewControllerRevision panics on a nil
// DaemonSet.
func NewControllerRevision(ds *appsv1.DaemonSet, r revision.Revision) *appsv1.ControllerRevision {
	if ds == nil {
		panic("convert.NewControllerRevision: nil DaemonSet")
	}
	return &appsv1.ControllerRevision{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ControllerRevision"},
		ObjectMeta: metav1.ObjectMeta{
			Name:            r.Name,
			Namespace:       ds.Namespace,
			Labels:          maps.Clone(r.Labels),
			Annotations:     maps.Clone(r.Annotations),
			OwnerReferences: []metav1.OwnerReference{ControllerRef(ds)},
		},
		Data:     runtime.RawExtension{Raw: append([]byte(nil), r.Data...)},
		Revision: r.Revision,
	}
}

// UpdatedControllerRevision returns a copy of cur, the stored revision, with
// the labels and revision number of r, an entry of a plan's
// Revisions.Update (upstream updates a revision to renumber it or to add its
// missing hash label). The resourceVersion of cur is kept, so that an update
// fails if the revision changed since it was read. cur must not be nil:
// UpdatedControllerRevision panics on a nil revision.
func UpdatedControllerRevision(cur *appsv1.ControllerRevision, r revision.Revision) *appsv1.ControllerRevision {
	if cur == nil {
		panic("convert.UpdatedControllerRevision: nil ControllerRevision")
	}
	out := cur.DeepCopy()
	out.Labels = maps.Clone(r.Labels)
	out.Revision = r.Revision
	return out
}

// DaemonSetStatus returns old with the counters, observedGeneration and
// collisionCount of st, a plan's Status: what upstream's
// updateDaemonSetStatus writes. Conditions and any other field of old are
// kept.
func DaemonSetStatus(old appsv1.DaemonSetStatus, st api.Status) appsv1.DaemonSetStatus {
	out := *old.DeepCopy()
	out.CurrentNumberScheduled = st.CurrentNumberScheduled
	out.NumberMisscheduled = st.NumberMisscheduled
	out.DesiredNumberScheduled = st.DesiredNumberScheduled
	out.NumberReady = st.NumberReady
	out.ObservedGeneration = st.ObservedGeneration
	out.UpdatedNumberScheduled = st.UpdatedNumberScheduled
	out.NumberAvailable = st.NumberAvailable
	out.NumberUnavailable = st.NumberUnavailable
	out.CollisionCount = clone(st.CollisionCount)
	return out
}

// DaemonSetWithStatus returns a copy of ds whose status is
// DaemonSetStatus(ds.Status, st), ready for UpdateStatus. ds must not be
// nil: DaemonSetWithStatus panics on a nil DaemonSet.
func DaemonSetWithStatus(ds *appsv1.DaemonSet, st api.Status) *appsv1.DaemonSet {
	if ds == nil {
		panic("convert.DaemonSetWithStatus: nil DaemonSet")
	}
	out := ds.DeepCopy()
	out.Status = DaemonSetStatus(ds.Status, st)
	return out
}
