package rollout

import (
	"cmp"
	"slices"
	"strings"

	"github.com/daemonplan/daemonplan/api"
)

// zgroup is one zone group of a step.
type zgroup struct {
	name     string
	nodes    []*pnode // in node-name order
	desired  int
	inFlight bool // a node of the group is being replaced
	active   bool
}

// inFlight reports a node whose pods are being replaced: more than one pod
// of a kind, a desired node without pods, an old pod next to a new one, or
// a new pod that is not available yet.
func inFlight(n *pnode, avail func(*api.Pod) bool) bool {
	switch {
	case n.Crowded:
		return true
	case n.New == nil:
		return n.Old == nil && n.Desired
	default:
		return n.Old != nil || !avail(n.New)
	}
}

// rank groups the present nodes by the zone label and orders the groups in
// two tiers, those with a node in flight and then the others, each tier by
// name with the group "" last (docs/progressive-delivery.md, 7.2). It
// sets each node's group to its group's rank.
func (z *Zones) rank(ns []pnode, avail func(*api.Pod) bool) []*zgroup {
	key := z.key()
	byName := map[string]*zgroup{}
	var groups []*zgroup
	for i := range ns {
		n := &ns[i]
		if !n.Present {
			continue
		}
		name := n.labels[key]
		g := byName[name]
		if g == nil {
			g = &zgroup{name: name}
			byName[name] = g
			groups = append(groups, g)
		}
		g.nodes = append(g.nodes, n)
		if n.Desired {
			g.desired++
		}
		g.inFlight = g.inFlight || inFlight(n, avail)
	}
	slices.SortFunc(groups, func(a, b *zgroup) int {
		return cmp.Or(
			-cmp.Compare(b2i(a.inFlight), b2i(b.inFlight)),
			-cmp.Compare(b2i(a.name != ""), b2i(b.name != "")),
			strings.Compare(a.name, b.name))
	})
	for r, g := range groups {
		for _, n := range g.nodes {
			n.group = r
		}
	}
	return groups
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// activate marks active the first k groups, in rank order, that are in
// flight or hold a node of the update set, keeps the update set to the
// active groups, and reports the order.
func activate(groups []*zgroup, k int) *ZoneProgress {
	zp := &ZoneProgress{}
	for _, g := range groups {
		cand := slices.ContainsFunc(g.nodes, func(n *pnode) bool { return n.Allowed })
		switch {
		case len(zp.Active) < k && (g.inFlight || cand):
			g.active = true
			zp.Active = append(zp.Active, g.name)
		case cand:
			zp.Waiting = append(zp.Waiting, g.name)
			for _, n := range g.nodes {
				n.Allowed = false
			}
		}
	}
	return zp
}
