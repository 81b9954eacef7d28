// Package load reads what `kubectl get … -o json` or `-o yaml` prints into
// the typed Kubernetes objects a DaemonSet sync reads.
//
// It owns parsing only: it neither validates nor defaults, and it does not
// convert to daemonplan's snapshot types (package convert does that).
//
// Accepted input, detected from the first non-blank byte of each source:
//
//  1. JSON: one value or several concatenated values, each a single object,
//     a list (any object with an "items" array, whatever its kind) or a bare
//     array of objects.
//  2. YAML: one document or a stream of documents separated by `---`, each
//     as in 1.
//
// Every object is classified by apiVersion and kind, as kubectl would:
//
//  1. apps/v1 DaemonSet, v1 Node, v1 Pod and apps/v1 ControllerRevision,
//     and what admission and preemption read (v1 LimitRange,
//     scheduling.k8s.io/v1 PriorityClass, node.k8s.io/v1 RuntimeClass,
//     policy/v1 PodDisruptionBudget), are decoded into their k8s.io/api
//     types; an OpenKruise DaemonSet
//     (apps.kruise.io v1beta1 or v1alpha1) into an unstructured object
//     (Objects.Kruise);
//  2. one of those kinds under another version of its group (DaemonSet in
//     apps or extensions, ControllerRevision in apps, Node and Pod in the
//     core group, PodDisruptionBudget in policy, ...) is an error: the API server serves no other version of
//     them;
//  3. a kind or apiVersion kubectl would not know is an error that names
//     what was found: a kind that differs from one of those only in case
//     (kinds are case-sensitive), the group written "core", a kind or
//     version the core and apps groups do not have;
//  4. every other kind is ignored (Objects.Ignored);
//  5. an object without apiVersion or kind is an error, and so is a list
//     without kind; an item of a list without both is of the list's kind
//     less "List" (a typed NodeList's items).
//
// Objects are decoded like the API server decodes them: field names are
// case-sensitive, every known field keeps its value exactly (the
// DaemonSet's template feeds the revision hash), and an unknown field, or a
// field given twice (its last value kept, whole: two metadata objects are
// not merged, so that JSON reads as YAML does), is a Warning worded as
// kubectl words it, or with Options.Strict an error. An OpenKruise
// DaemonSet's metadata is read by the same rule as an apps/v1 DaemonSet's
// (decoded into the same ObjectMeta: a namespace that is not a string is
// an error naming metadata.namespace). A namespaced object without a
// namespace once decoded (none, null, or metadata null) is read in
// Options.DefaultNamespace ("default"), said in one warning.
//
// Several sources, and several documents, are merged as `kubectl get -f a
// -f b` reads them, object by object in order, with three safeguards, so
// that no object is ever planned twice or under a wrong name:
//
//  1. an object found again (same kind, namespace and name; a node's
//     namespace does not count) with the same content is kept once, at the
//     position of its first copy, however it was written (with or without
//     apiVersion and kind in a typed list);
//  2. one found again with other content, or an object whose non-empty UID
//     another object already has, is an error (ErrConflict) naming both
//     positions;
//  3. a decoded object that is not valid UTF-8, or whose name, namespace or
//     UID holds U+FFFD (what an invalid escape decodes to), is an error
//     (ErrInvalidUTF8); so is a YAML document that is not valid UTF-8.
//
// A YAML document whose aliases would add more than MaxAliasExpansion bytes
// once expanded is refused before it is decoded (ErrAliasExpansion): the
// decoder copies an aliased value out at every alias, so that a small file
// could otherwise make it build gigabytes.
//
// Every decoding error is an *Error naming the source, the YAML document or JSON
// value (counted from 1) and the List items that lead to the object
// (Position), and every object's Position is kept in Objects.At.
//
// Each source is read once and walked in one pass: a small scanner finds
// the objects of a list and their apiVersion, kind and metadata without
// copying or decoding them, and each object's bytes go once to the typed
// decoder. Reading a 100,000-node dump takes about what client-go's codecs
// take to decode it (kube/README.md, Performance).
//
// Entry points: Load reads several named sources with Options; Sources is
// Load with the zero Options; Decode reads one unnamed reader; Read
// additionally requires exactly one DaemonSet (ErrNoDaemonSet,
// ErrManyDaemonSets), as Objects.Snapshot does.
package load
