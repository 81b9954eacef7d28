// Package kubesync runs one daemonplan sync on Kubernetes API objects and
// renders the plan. It is the code path of the daemonplan CLI, of the
// conformance test that compares it with the real controller, and of a
// controller built on package apply.
//
// Entry points:
//
//   - Sync converts a load.Snapshot (package convert) and runs
//     daemonplan.Sync with upstream's exact revision hash. Options are the
//     core's daemonplan.Options and the Kubernetes version; State carries
//     what a controller keeps between syncs, as daemonplan.Input does: the
//     failed-pod backoff the previous plan returned and whether earlier
//     writes are still pending.
//   - Input is what Sync syncs: the daemonplan input and options, for a
//     controller that keeps a daemonplan.Planner between syncs.
//   - Planner is Sync for a controller that syncs the same DaemonSet again
//     and again from its listers: it keeps what each node and pod converted
//     to while the object does not change, and plans exactly as Sync. An
//     object is unchanged while it is the very object of the last sync (the
//     same pointer: objects are never changed in place) or has the same UID,
//     namespace, name and metadata.resourceVersion, which the API server
//     changes at every write; objects without a UID or resourceVersion are
//     converted at every sync.
//   - JSON renders a plan as the document of package schema, what
//     `daemonplan plan -o json` prints.
//
// It reads no clock: the caller passes "now".
package kubesync
