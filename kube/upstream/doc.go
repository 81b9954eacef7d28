// Package upstream reproduces, byte for byte, the two values the Kubernetes
// DaemonSet controller derives from a DaemonSet's pod template:
//
//   - the revision hash that names ControllerRevisions and labels pods
//     (controller-revision-hash), for each supported Kubernetes version;
//   - RevisionData, the content of a ControllerRevision (its data.raw), which
//     decides whether the DaemonSet's template equals a revision.
//
// Entry points:
//
//   - Version (V1_34 … V1_37, Latest), Versions, ParseVersion: the
//     Kubernetes minor to reproduce. Latest is the default target.
//   - Version.Hash: the revision hash that minor's controller computes.
//   - RevisionData and StoredData: a revision's content, and kubectl's
//     indented data.raw made compact for comparison with it.
//
// The hash is a dump of the Go struct PodTemplateSpec, and that struct
// gains fields in every release, so each minor hashes the same template
// differently. Version.Hash does not dump the struct this program is built
// with: it walks it along the layout of the requested minor (layouts/,
// generated from each minor's own k8s.io/api by kube/tools/hashgolden), so
// the hash does not depend on which k8s.io/api a caller's build resolves.
// testdata/hash holds golden hashes computed by each minor's own code.
//
// RevisionData depends on the JSON encoding of the compiled k8s.io/api
// types; every field added since 1.34 is omitted when empty, so the data
// of a template an API server stored is the same for every supported
// version.
//
// The package owns no decisions: which revision is current, how collisions
// are resolved and when revisions are renumbered is the core planner's job.
package upstream
