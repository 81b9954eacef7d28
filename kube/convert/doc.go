// Package convert turns k8s.io/api objects into daemonplan's snapshot types:
// DaemonSet, Node, Pod and Revision (with the plural forms for slices), and
// supplies HashFunc, upstream's exact revision hash for package revision.
//
// It copies only what decisions read (see api.DaemonSet, Node and Pod)
// and does not validate: a DaemonSet the API server would reject converts
// as it is, so that the planner can report or tolerate it. Conversion never
// changes its input. Maps (labels, annotations, node selectors) and string
// slices (selector values) are shared with the input rather than copied;
// neither side may change them while the snapshot is in use.
//
// Times are converted to UTC. Pods and revisions are not filtered by
// namespace or owner: the planner decides which ones the DaemonSet claims.
//
// OpenKruise's Advanced DaemonSet (apps.kruise.io/v1beta1 and v1alpha1) is
// read without OpenKruise's types: KruiseObjects finds such objects in
// `kubectl get -o yaml|json` output as unstructured objects, and
// KruiseDaemonSet turns one into an apps/v1 DaemonSet plus the
// rollout.Progressive options its partition, update selector, paused and
// partitioned scaling map to, with a warning for every field daemonplan
// does not honour (docs/progressive-delivery.md, "OpenKruise input").
package convert
