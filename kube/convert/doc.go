// Package convert turns Kubernetes API objects into daemonplan's snapshot
// types and a plan's writes back into Kubernetes API objects.
//
// In: DaemonSet, Node, Pod and Revision (Nodes, Pods and Revisions for slices);
// LimitRange, PriorityClass and RuntimeClass (AdmissionObjects for all three)
// for package admission, DisruptionBudget and PodUsage for package overhead;
// and HashFunc, upstream's exact revision hash for package revision. They
// copy only what decisions read (see api.DaemonSet, Node and Pod), plus the
// template's containers, overhead and pod-level resources (for any pod
// spec, through Workload), and do not validate: a DaemonSet the API server would reject converts as it is, so
// that the planner can report or tolerate it. Maps (labels, annotations,
// node selectors) and string slices (selector values) are shared with the
// input rather than copied; neither side may change them while the snapshot
// is in use. Times are converted to UTC. Pods and revisions are not filtered
// by namespace or owner: the planner decides which ones the DaemonSet claims.
//
// Out, the objects upstream writes for a plan, each sharing nothing with its
// inputs:
//
//   - NewPod: the *corev1.Pod of one Create (generateName, labels, the
//     controller owner reference, merged tolerations, node affinity pinned
//     by ReplaceNodeNameNodeAffinity);
//   - NewControllerRevision and UpdatedControllerRevision: the
//     ControllerRevision of a Revisions.Create entry, and the stored one
//     with the labels and number of a Revisions.Update entry;
//   - DaemonSetStatus and DaemonSetWithStatus: the status upstream writes;
//   - ControllerRef: the owner reference of everything the DaemonSet owns.
//
// No conversion changes its input.
//
// OpenKruise's Advanced DaemonSet (apps.kruise.io/v1beta1 and v1alpha1) is
// read without OpenKruise's types: KruiseObjects finds such objects in
// `kubectl get -o yaml|json` output as unstructured objects, and
// KruiseDaemonSet turns one into an apps/v1 DaemonSet plus the
// rollout.Progressive options its partition, update selector, paused and
// partitioned scaling map to, with a warning for every field daemonplan
// does not honour (docs/progressive-delivery.md, "OpenKruise input").
package convert
