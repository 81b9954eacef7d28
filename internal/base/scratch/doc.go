// Package scratch holds the data structures package placement indexes a
// snapshot with, none of them a DaemonSet rule, each keeping its memory
// from one snapshot to the next so that a
// [github.com/daemonplan/daemonplan/placement.Index] that is Reset again and
// again stops allocating for them:
//
//   - [NodeIndex]: a node's position by name in a name-sorted node list, in
//     an open-addressing table of positions whose slots carry the top bits
//     of the name's hash, so that a probe passes over other names without
//     reading them. A reused index is not rebuilt while the names stay
//     the same.
//   - [PodCheck]: whether [github.com/daemonplan/daemonplan/api.ValidatePods]
//     would find nothing in a pod list (names, UTF-8, no name or UID twice),
//     checked pod by pod in a pass that does other work, without allocating
//     once it has grown to the cluster.
//   - [SortByName]: a sort by name that radix-sorts eight bytes of each name
//     past the prefix all share and compares in full only the names whose
//     bytes tie; lists from an informer's lister come in map order.
//   - [Arena]: string slices handed out until the next Reset.
//   - [Resize]: a slice of a given length on the array of another.
//
// The package owns how a snapshot is indexed, not what is decided from
// it: which pods a DaemonSet claims, where they belong and what a plan
// does are placement's. It reads the snapshot types of package api and
// nothing else of the module. None of its types is safe for concurrent
// use.
package scratch
