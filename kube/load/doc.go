// Package load reads what `kubectl get … -o json` or `-o yaml` prints into
// the typed Kubernetes objects a DaemonSet sync reads.
//
// It owns parsing only: it neither validates nor defaults, and it does not
// convert to daemonplan's snapshot types (package convert does that).
//
// Accepted input, detected from the first non-blank byte of each source:
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
//  2. one of those kinds under another version of its group (DaemonSet in
//     apps or extensions, ControllerRevision in apps, Node and Pod in the
//     core group) is an error: the API server serves no other version of
//     them; the same kind in another group (an apps.kruise.io DaemonSet) is
//     ignored, as every other kind;
//  3. every other kind is ignored;
//  4. an object without apiVersion or kind is an error.
//
// Objects are decoded like the API server decodes them: field names are
// case-sensitive, unknown fields are dropped, and every known field keeps its
// value exactly, because the DaemonSet's template feeds the revision hash.
//
// Several sources, and several documents, are merged as `kubectl get -f a
// -f b` reads them, object by object in order, with three safeguards, so
// that no object is ever planned twice or under a wrong name:
//
//  1. an object found again (same kind, namespace and name; a node's
//     namespace does not count) with the same content is kept once, at the
//     position of its first copy;
//  2. one found again with other content, or an object whose non-empty UID
//     another object already has, is an error (ErrConflict) naming both
//     positions;
//  3. a decoded object that is not valid UTF-8, or whose name, namespace or
//     UID holds U+FFFD (what an invalid escape decodes to), is an error
//     (ErrInvalidUTF8); so is a YAML document that is not valid UTF-8, or
//     that repeats a key in one mapping (two Lists concatenated without
//     "---" would otherwise lose the first one's items), or a JSON object
//     that gives a field twice (decoding would keep the last silently).
//
// Every decoding error is an *Error naming the source, the YAML document or JSON
// value (counted from 1) and the List items that lead to the object
// (Position), and every object's Position is kept in Objects.At.
//
// Entry points: Sources reads several named sources; Decode reads one
// unnamed reader; Read additionally requires exactly one DaemonSet
// (ErrNoDaemonSet, ErrManyDaemonSets), as Objects.Snapshot does.
package load
