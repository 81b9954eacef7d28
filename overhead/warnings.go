package overhead

import (
	"slices"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
	"github.com/daemonplan/daemonplan/resource"
)

// msgNonNegative is the API server's detail for a negative quantity.
const msgNonNegative = "must be greater than or equal to 0"

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
// of Warnings, under p (the DaemonSet's path).
func negativeQuantities(p *field.Path, t *api.PodTemplate) field.ErrorList {
	var out field.ErrorList
	check := func(p *field.Path, l resource.List) {
		names := make([]string, 0, len(l))
		for name, q := range l {
			if q.Sign() < 0 {
				names = append(names, name)
			}
		}
		slices.Sort(names)
		for _, name := range names {
			out = append(out, field.Invalid(p.Key(name), l[name].String(), msgNonNegative))
		}
	}
	spec := p.Child("spec", "template", "spec")
	for _, cs := range []struct {
		name string
		list []api.Container
	}{{"containers", t.Containers}, {"initContainers", t.InitContainers}} {
		for j := range cs.list {
			r := spec.Child(cs.name).Index(j).Child("resources")
			check(r.Child("requests"), cs.list[j].Resources.Requests)
			check(r.Child("limits"), cs.list[j].Resources.Limits)
		}
	}
	check(spec.Child("overhead"), t.Overhead)
	check(spec.Child("resources", "requests"), t.Resources.Requests)
	check(spec.Child("resources", "limits"), t.Resources.Limits)
	return out
}
