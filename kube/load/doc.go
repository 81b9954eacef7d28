// Package load reads what `kubectl get … -o json` or `-o yaml` prints into
// the typed Kubernetes objects a DaemonSet sync reads.
//
// It owns parsing only: it neither validates nor defaults, and it does not
// convert to daemonplan's snapshot types (package convert does that).
//
// Accepted input, detected from the first non-blank byte:
//
//  1. JSON: one value or several concatenated values, each a single object,
//     a `List` (any kind ending in "List" with an "items" array), or a bare
//     array of objects.
//  2. YAML: one document or a stream of documents separated by `---`, each
//     as in 1.
//
// Every object is classified by apiVersion and kind:
//
//  1. apps/v1 DaemonSet, v1 Node, v1 Pod and apps/v1 ControllerRevision are
//     decoded into their k8s.io/api types;
//  2. one of those kinds under another apiVersion is an error (the API server
//     of v1.34 serves no other version of them);
//  3. every other kind is ignored;
//  4. an object without apiVersion or kind is an error.
//
// Objects are decoded like the API server decodes them: field names are
// case-sensitive, unknown fields are dropped, and every known field keeps its
// value exactly, because the DaemonSet's template feeds the revision hash.
//
// Entry points: Decode returns everything it found; Read additionally
// requires exactly one DaemonSet (ErrNoDaemonSet, ErrManyDaemonSets).
package load
