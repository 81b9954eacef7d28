// Package schema holds the Go types of the plan document that
// `daemonplan plan -o json` (and -o yaml) prints and kubesync.JSON returns.
//
// The document is a rendering of one daemonplan.Plan for people and
// programs: names instead of pointers, reasons as their names, every list
// present and sorted. Its first keys, up to "warnings", are the schema the
// conformance cases (kube/testdata/conformance/README.md) record upstream's
// plan in, with the same names and meaning; the keys after them
// (kubernetesVersion, statusChanged, hash, keep, skippedCreates,
// skippedDeletes, requeueAfter, backoff, progress, and revisions.release)
// carry the rest of the plan.
//
// Simulation is the document `daemonplan simulate -o json` prints: a
// rollout simulated to convergence or to a stall (package timeline). Diff
// is the document `daemonplan diff -o json` prints: what an edit to the
// cluster would change, node by node, against the same cluster without
// it, and apart what is pending anyway (package whatif, docs/whatif.md).
//
// It owns no logic: kubesync.JSON fills a Plan, the CLI a Simulation and a
// Diff.
package schema
