package overhead

import (
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
)

// Warnings returns what the API server would refuse in the DaemonSets'
// resources (docs/overhead.md, Q5): each negative quantity in a
// container's or init container's requests or limits, the overhead, or the
// pod-level requests or limits, Invalid at its path under
// daemonSets[i].spec.template.spec, i being the DaemonSet's index in
// Compile's input. Such a pod would never be created: its requests, totals
// and fit are not what a cluster would see. The list is s's own; do not
// change it.
func (s *Catalog) Warnings() field.ErrorList { return s.warnings }

// negativeQuantities reports the negative quantities of t, in the order
// of Warnings, under p (the DaemonSet's path): the API server's rule, as
// api.ValidateResources states it.
func negativeQuantities(p *field.Path, t *api.PodTemplate) field.ErrorList {
	return api.ValidateResources(t).Prefix(p.Child("spec", "template", "spec").String())
}
