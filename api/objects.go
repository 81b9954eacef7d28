package api

import (
	"unicode/utf8"

	"github.com/daemonplan/daemonplan/field"
)

// Details of the snapshot-list findings.
const (
	msgUTF8     = "must be valid UTF-8"
	msgNameless = "every object of a snapshot needs a name"
)

// NodeWellFormed reports whether n passes what [ValidateNodes] checks of
// each node alone, rules 1 and 2: it has a name, and the name is valid
// UTF-8 (docs/never-harm.md, N1 and N2). Whether a name repeats is a
// property of the list, which ValidateNodes checks and callers with an
// index of their own check there. It is the one statement of the rule:
// ValidateNodes reports a node that fails it, and placement's index and
// the Tracker ask it, leaving the findings to ValidateNodes. A nil n
// is not well formed.
func NodeWellFormed(n *Node) bool {
	return n != nil && n.Name != "" && utf8.ValidString(n.Name)
}

// PodWellFormed reports whether p passes what [ValidatePods] checks of each
// pod alone, rules 1 and 2: it has a name, and its namespace, name, UID and
// node name are valid UTF-8 (docs/never-harm.md, N1 and N2). A name or UID
// held twice is a property of the list, which ValidatePods checks and
// callers with an index of their own check there. It is the one statement
// of the rule: ValidatePods reports a pod that fails it, and placement's
// pod check (internal/base/scratch) and the Tracker ask it, leaving the
// findings to ValidatePods. A nil p is not well formed.
func PodWellFormed(p *Pod) bool {
	return p != nil && p.Name != "" && utf8.ValidString(p.Namespace) && utf8.ValidString(p.Name) &&
		utf8.ValidString(p.UID) && utf8.ValidString(p.NodeName)
}

// podStrings are the strings of p that must be valid UTF-8 (rule 2 of
// ValidatePods), named as their fields: those PodWellFormed reads, for
// ValidatePods to say which failed. (PodWellFormed reads them one by one:
// it runs on every pod of every sync, and a loop over this array made the
// pod check of a sync about a fifth slower. TestPodWellFormedFields keeps
// the two in step.)
func podStrings(p *Pod) [4]struct{ name, value string } {
	return [...]struct{ name, value string }{
		{"namespace", p.Namespace}, {"name", p.Name}, {"uid", p.UID}, {"nodeName", p.NodeName},
	}
}

// ValidateNodes checks that a node list is a snapshot of distinct nodes, as
// an API server's list always is, and returns every problem, or nil. Paths
// are rooted at "nodes" ("nodes[3].name"); nodes is not changed.
//
//  1. An empty name is Required.
//  2. A name that is not valid UTF-8 is Invalid.
//  3. A name already used by an earlier node is Duplicate, with the index of
//     the first one in the detail ("also nodes[1]").
//
// A node listed twice would otherwise be decided twice, and every pod on it
// would look like a duplicate.
func ValidateNodes(nodes []Node) field.ErrorList {
	var errs field.ErrorList
	at := func(i int) *field.Path { return field.NewPath("nodes").Index(i).Child("name") }
	seen := make(map[string]int32, len(nodes))
	for i := range nodes {
		name := nodes[i].Name
		if !NodeWellFormed(&nodes[i]) {
			if name == "" {
				errs = append(errs, field.Required(at(i), msgNameless))
				continue
			}
			errs = append(errs, field.Invalid(at(i), name, msgUTF8))
		}
		if j, ok := seen[name]; ok {
			errs = append(errs, duplicate(at(i), name, "nodes", j))
			continue
		}
		seen[name] = int32(i)
	}
	return errs
}

// ValidatePods checks that a pod list is a snapshot of distinct pods and
// returns every problem, or nil. Paths are rooted at "pods" ("pods[3].name");
// pods is not changed.
//
//  1. An empty name is Required.
//  2. A namespace, name, UID or nodeName that is not valid UTF-8 is Invalid.
//  3. A namespace and name already used by an earlier pod is Duplicate at
//     .name, with the index of the first one in the detail ("also
//     pods[1]").
//  4. A non-empty UID already used by an earlier pod is Duplicate at .uid:
//     one pod listed under two names.
//
// A pod listed twice would otherwise count twice on its node, and the plan
// would delete it as a duplicate of itself.
func ValidatePods(pods []Pod) field.ErrorList {
	var errs field.ErrorList
	at := func(i int, name string) *field.Path { return field.NewPath("pods").Index(i).Child(name) }
	type key struct{ namespace, name string }
	seen := make(map[key]int32, len(pods))
	var uids map[string]int32
	for i := range pods {
		pod := &pods[i]
		if !PodWellFormed(pod) {
			// What PodWellFormed refuses, field by field.
			if pod.Name == "" {
				errs = append(errs, field.Required(at(i, "name"), msgNameless))
			}
			for _, f := range podStrings(pod) {
				if !utf8.ValidString(f.value) {
					errs = append(errs, field.Invalid(at(i, f.name), f.value, msgUTF8))
				}
			}
		}
		if pod.Name != "" {
			k := key{pod.Namespace, pod.Name}
			if j, ok := seen[k]; ok {
				errs = append(errs, duplicate(at(i, "name"), pod.Name, "pods", j))
			} else {
				seen[k] = int32(i)
			}
		}
		if pod.UID != "" {
			if uids == nil {
				uids = make(map[string]int32, len(pods))
			}
			if j, ok := uids[pod.UID]; ok {
				errs = append(errs, duplicate(at(i, "uid"), pod.UID, "pods", j))
			} else {
				uids[pod.UID] = int32(i)
			}
		}
	}
	return errs
}

// duplicate reports value at p, first seen at item first of list.
func duplicate(p *field.Path, value string, list string, first int32) *field.Error {
	e := field.Duplicate(p, value)
	e.Detail = "also " + field.NewPath(list).Index(int(first)).String()
	return e
}
