package api

import "strconv"

// SpecChange is what an update changes in a DaemonSet's spec: the one
// distinction the API server draws when it numbers a DaemonSet's
// generations (docs/validation.md, V13). The zero value is no change.
type SpecChange uint8

// The changes an update makes.
const (
	// SpecUnchanged: the update changes metadata or the status only.
	SpecUnchanged SpecChange = iota
	// SpecChanged: the update changes the spec but not its template: the
	// update strategy, minReadySeconds, the selector or the history limit.
	SpecChanged
	// TemplateChanged: the update changes the pod template (and so the
	// spec).
	TemplateChanged
)

// BumpGenerations returns a deep copy of ds, a DaemonSet as the API server
// stores it, with the generations the API server gives it when an update
// makes change (upstream: the DaemonSet registry strategy's
// PrepareForUpdate; docs/validation.md, V13):
//
//  1. SpecUnchanged: neither generation moves;
//  2. SpecChanged: metadata.generation goes up by one;
//  3. TemplateChanged: metadata.generation goes up by one, and so does the
//     template generation (the annotation [AnnotationTemplateGeneration],
//     read as [TemplateGeneration] reads it), which starts at 1 when ds has
//     none or one that is not a decimal integer.
//
// The API server ignores the generations a client sends and numbers from the
// stored object's: so does BumpGenerations, from ds's. It is the one place
// daemonplan writes these numbers: package sim when it updates its
// DaemonSet, package whatif when it reads an edited spec, and the kube
// module's conformance fuzzer. A nil ds is the zero DaemonSet; ds is not
// changed.
func BumpGenerations(ds *DaemonSet, change SpecChange) DaemonSet {
	var out DaemonSet
	if ds != nil {
		out = *ds.DeepCopy()
	}
	if change == SpecUnchanged {
		return out
	}
	out.Generation++
	if change == TemplateChanged {
		next := int64(1)
		if g := TemplateGeneration(&out); g != nil {
			next = *g + 1
		}
		if out.Annotations == nil {
			out.Annotations = map[string]string{}
		}
		out.Annotations[AnnotationTemplateGeneration] = strconv.FormatInt(next, 10)
	}
	return out
}
