// Command updiff runs the real Kubernetes DaemonSet controller
// (k8s.io/kubernetes pkg/controller/daemon) in this process on a fake
// clientset, one sync per cluster, and compares what it writes with what the
// daemonplan CLI plans for the same cluster. It is how daemonplan's
// conformance is checked beyond the recorded cases: on mutations of the
// recorded clusters and on clusters generated from scratch.
//
// It is not part of daemonplan's build: this directory has its own go.mod,
// which pins k8s.io/kubernetes (v1.37.2, or v1.34.4 through go.134.mod), and
// the repository's go.work does not list it. run.sh vendors the modules and
// builds it with -overlay: the controller keeps its sync unexported, and the
// go command refuses overlays inside the module cache, so the one file of our
// own that exports it (_overlay/export.go) is laid over the vendored package.
//
// Subcommands (run.sh passes its arguments through):
//
//   - validate DIR...: the harness against recorded cases; every one of 20
//     upstream runs must conform to the case's expected.json. This is the
//     evidence that the fake clientset stands in for an API server.
//   - fuzz -source mutate|gen -n N -seed S: mutated or generated clusters;
//     every cluster on which daemonplan departs from upstream is saved.
//   - recheck DIR...: compare daemonplan with upstream again on saved clusters.
//   - shrink IN OUT: remove nodes, pods and revisions while the disagreement
//     keeps its signature.
//   - expect [-runs N] DIR...: write expected.json from upstream runs.
//
// Comparison follows the conformance rules of kube/internal/conformance,
// with one extension for non-determinism those rules cannot express (see
// expectation).
package main
