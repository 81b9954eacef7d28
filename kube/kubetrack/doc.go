// Package kubetrack plans a DaemonSet's syncs from the events of a
// controller's informers: nodes, pods, ControllerRevisions and the
// DaemonSet come in as Kubernetes objects, one add, update or delete at a
// time, and the plan of the next sync comes out, the plan
// [github.com/daemonplan/daemonplan/kube/kubesync.Sync] returns for a
// snapshot of the same objects, at a cost that follows the event, not the
// cluster.
//
// It owns the glue between informers and daemonplan.Tracker: each object is
// converted once, when its event arrives (package convert), and handed to a
// [github.com/daemonplan/daemonplan/daemonplan.Tracker], which keeps every
// node's decision and summary between events. The revision hash is
// upstream's for Options.KubernetesVersion, as kubesync's.
//
// # Entry points
//
//   - [New]: a [Tracker] for the DaemonSet namespace/name, empty.
//   - Events: SetDaemonSet and DeleteDaemonSet, SetNode and DeleteNode,
//     SetPod and DeletePod, SetRevision and DeleteRevision. Objects of other
//     namespaces (pods, revisions) and other DaemonSets are ignored, so a
//     controller may feed it every event of its informers.
//   - Plan: the plan of the next sync at a given time and
//     [github.com/daemonplan/daemonplan/kube/kubesync.State], without the
//     lists that name every node and pod (Plan.Nodes, Plan.Keep); FullPlan
//     adds them and equals kubesync.Sync on the same objects.
//
// # What costs what
//
// A node or pod event costs what the Tracker's change costs, O(pods on the
// node + log n); SetNode and DeleteNode report whether the change may
// change a plan, so that a controller with one Tracker per DaemonSet syncs
// only those a node event concerns (docs/incremental.md, I17); a revision event reconstructs the history, O(revisions).
// A DaemonSet event that changes its spec decides every node again, O(n),
// like a sync; one that changes only the status counters (the controller's
// own status write) does not. Plan costs the plan's writes plus what the
// clock and the backoff touch (nodes with failed pods or pods about to
// become available).
//
// The objects are kept as they are given, label maps included, as the
// informers' caches hold them: a caller must not change an object after
// passing it (informers never do; their objects are read-only).
//
// # Equivalence
//
// The package's state-machine property feeds random event sequences to a
// Tracker and keeps the same objects in a load.Snapshot beside it; after
// every event FullPlan equals kubesync.Sync of the snapshot.
package kubetrack
