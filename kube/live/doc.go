// Package live reads, from a running cluster, the objects one DaemonSet
// sync reads, into the same load.Objects that package load makes of
// `kubectl get -o yaml` output, so that everything after reading is shared
// by files and clusters.
//
// It owns the reading only, and it only reads: get and list, nothing else
// (DryRunUpdate sends an update the server does not persist). What it lists:
//
//   - the DaemonSet (get by name, or list the namespace to find the only one);
//   - every node, in pages;
//   - the pods of the DaemonSet's namespace matching its selector, in pages:
//     the pods it owns and the orphans it would adopt, never another
//     namespace's (a DaemonSet owns pods of its own namespace only);
//   - the ControllerRevisions of that namespace matching the selector, in
//     pages (its history and the orphans it would adopt).
//
// Lists are paged (Options.PageSize items per request, continuing with the
// server's continue token, so one consistent snapshot of each list) and kept
// in the order the server returns them; the planner does not depend on it.
//
// Nothing here bounds how long a request waits: the caller does, with the
// context it passes or its rest.Config's Timeout, for a server that accepts
// the connection and never answers would otherwise hold a read forever.
// The daemonplan command sets the Timeout from kubectl's --request-timeout,
// one minute unless given (docs/live-cluster.md).
//
// ReadAdmission adds what admission and preemption read (LimitRanges,
// PriorityClasses, RuntimeClasses, PodDisruptionBudgets), and ReadPods every
// unfinished pod of every namespace, bound to a node or nominated for one:
// what the scheduler counts when the new daemon pods of a plan or a diff
// are judged (daemonplan plan -o wide, diff).
//
// ServerVersion reads the Kubernetes minor from the server's /version.
// Entry points: Read, ReadAll, ReadAdmission, ReadPods, ServerVersion,
// DryRunUpdate.
package live
