// Package upstream reproduces, byte for byte, the two values the Kubernetes
// v1.34 DaemonSet controller derives from a DaemonSet's pod template
// (ComputeHash, and getPatch in pkg/controller/daemon/update.go;
// docs/history.md, H2 and H5):
//
//   - Hash, the revision hash that names ControllerRevisions and labels pods
//     (controller-revision-hash);
//   - RevisionData, the content of a ControllerRevision (its data.raw), which
//     decides whether the DaemonSet's template equals a revision.
//
// Both depend on the compiled k8s.io/api types and their JSON encoding, so
// they live in the kube module, pinned to the Kubernetes minor the planner
// targets. Package convert adapts Hash to the hook the core revision package calls.
//
// The package owns no decisions: which revision is current, how collisions
// are resolved and when revisions are renumbered is the core planner's job.
package upstream
