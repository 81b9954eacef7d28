package main

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// trim is the informers' transform (SharedInformer.SetTransform): it
// runs on every object the informers receive, before the store and the
// event handlers see it, and keeps only what the controller reads, so that
// a node costs the few hundred bytes of its name, labels and taints
// instead of the kilobytes of its status. What is kept:
//
//  1. A node: metadata.name, uid, resourceVersion and labels, and
//     spec.taints. daemonplan decides a node from its name, labels and
//     taints (convert.Node); the uid and resourceVersion tell kubesync and
//     kubetrack whether a node changed. Everything else goes: annotations,
//     owner references, managedFields, the rest of the spec (podCIDRs,
//     providerID, unschedulable, which the DaemonSet controller ignores)
//     and the whole status (images, conditions, capacity, allocatable,
//     addresses, nodeInfo, volumes).
//  2. A pod: metadata.name, namespace, uid, resourceVersion, labels,
//     ownerReferences, creationTimestamp and deletionTimestamp;
//     spec.nodeName and spec.affinity.nodeAffinity's required node
//     selector; status.phase and the first condition of type Ready (its
//     status and lastTransitionTime). These are what convert.Pod reads
//     (the pod's node, whether it is the DaemonSet's, updated, ready,
//     available, being deleted), what apply checks a write against, and
//     what the event handlers read (the controller reference, Ready). The
//     containers, volumes, tolerations, annotations, the other conditions
//     and the container statuses go.
//  3. Every other object (DaemonSets, ControllerRevisions) keeps all but
//     metadata.managedFields, which nothing reads: the DaemonSet's template
//     is hashed whole and its status written back, and a revision's data
//     is compared byte for byte. A status update sent without
//     managedFields leaves the API server's record of field managers as it
//     was.
//
// A rule that starts reading a field dropped here would decide from a
// zero value in the controller and from the real value everywhere else:
// TestTrimKeepsThePlan plans every conformance case and random objects
// with and without the transform and fails on any difference, and
// TestTrimFields lists the fields kept.
//
// The transform builds a new object for nodes and pods rather than
// clearing fields of the decoded one: a field added to the API later is
// dropped without a change here, and the decoded object, with everything
// dropped, becomes garbage at once. The new objects share the kept maps
// and slices with the decoded one, which nothing else holds. Other
// objects lose their managedFields in place: client-go hands the
// transform objects nobody else has seen yet. trim is idempotent, as
// client-go asks of a transform; tombstones (DeletedFinalStateUnknown)
// hold objects trimmed already and pass unchanged.
func trim(obj any) (any, error) {
	switch o := obj.(type) {
	case *corev1.Node:
		return trimNode(o), nil
	case *corev1.Pod:
		return trimPod(o), nil
	}
	if m, err := meta.Accessor(obj); err == nil && m.GetManagedFields() != nil {
		m.SetManagedFields(nil)
	}
	return obj, nil
}

// trimNode returns the part of n the controller reads (trim's list, 1).
func trimNode(n *corev1.Node) *corev1.Node {
	return &corev1.Node{
		TypeMeta: n.TypeMeta,
		ObjectMeta: metav1.ObjectMeta{
			Name:            n.Name,
			UID:             n.UID,
			ResourceVersion: n.ResourceVersion,
			Labels:          n.Labels,
		},
		Spec: corev1.NodeSpec{Taints: n.Spec.Taints},
	}
}

// trimPod returns the part of p the controller reads (trim's list, 2).
func trimPod(p *corev1.Pod) *corev1.Pod {
	out := &corev1.Pod{
		TypeMeta: p.TypeMeta,
		ObjectMeta: metav1.ObjectMeta{
			Name:              p.Name,
			Namespace:         p.Namespace,
			UID:               p.UID,
			ResourceVersion:   p.ResourceVersion,
			Labels:            p.Labels,
			OwnerReferences:   p.OwnerReferences,
			CreationTimestamp: p.CreationTimestamp,
			DeletionTimestamp: p.DeletionTimestamp,
		},
		Spec:   corev1.PodSpec{NodeName: p.Spec.NodeName},
		Status: corev1.PodStatus{Phase: p.Status.Phase},
	}
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		out.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution}}
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			out.Status.Conditions = []corev1.PodCondition{{Type: c.Type, Status: c.Status, LastTransitionTime: c.LastTransitionTime}}
			break
		}
	}
	return out
}
