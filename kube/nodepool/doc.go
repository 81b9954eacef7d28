// Package nodepool reads the node templates autoscalers describe, as
// users write them, into [github.com/daemonplan/daemonplan/overhead]
// templates: Karpenter NodePools (karpenter.sh/v1) and a small list of
// instance types. It owns the file formats and their strict decoding only;
// what lands where is package overhead's question.
//
// # Entry points
//
//   - [Read]: the NodePools of a YAML or JSON file (one per document, or
//     the items of a List, as kubectl get nodepools -o yaml prints them),
//     each with its [overhead.NodeTemplate].
//   - [ReadInstanceTypes]: an instance-type list (docs/overhead.md,
//     "The CLI", gives the format).
//
// Decoding is strict: an unknown or repeated field in what is read is an
// error naming the file, document and field path; the parts of a NodePool
// that play no part in daemon placement (disruption, limits, weight,
// nodeClassRef, expiry, status) are accepted as they are and not read.
package nodepool
