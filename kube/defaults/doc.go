// Package defaults fills in what the Kubernetes API server fills in when it
// stores a DaemonSet written by hand, so that a manifest hashes, names its
// revisions and labels its pods as the cluster will.
//
// Entry points:
//
//   - DaemonSet: a copy of a DaemonSet with the defaults of the chosen
//     Kubernetes minor set: the update strategy and its budgets, the
//     history limit, and the pod template (pull policy by image tag,
//     termination message path and policy, DNS and restart policy,
//     scheduler name, security context, grace period, probe, port, env,
//     volume and resource defaults) for containers, init and sidecar
//     containers and ephemeral containers.
//   - Created: DaemonSet and what a create stores besides (generation 1,
//     template generation 1, an empty status).
//   - Node: a copy of a node with allocatable taken from capacity when
//     absent, as the API server stores a node.
//
// The package owns defaulting only: it does not validate (package
// daemonplan's validation does), does not drop fields of disabled feature
// gates, and never sets a UID, a creation time or a resource version,
// which only a server invents. Inputs are never mutated.
//
// The rules are those of the API server's defaulting for apps/v1
// DaemonSets and core/v1 nodes, written against k8s.io/api types so that
// this module does not depend on k8s.io/kubernetes. kube/testbed checks
// them field by field against a real kube-apiserver on generated
// manifests (TestDefaultsDifferential).
package defaults
