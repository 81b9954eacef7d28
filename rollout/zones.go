package rollout

import (
	"cmp"
	"slices"
	"strings"
)

// zgroup is one zone group of a step.
type zgroup struct {
	name     string
	nodes    []*pnode // in node-name order
	desired  int
	inFlight bool // a node of the group is being replaced
	active   bool
}

// inFlight reports a node whose pods are being replaced (the words of
// docs/progressive-delivery.md): more than one live pod of a kind, no live
// pod although it should run one, an old pod next to a new one, or a new
// pod that is not available yet. It asks the decision table rather than
// repeat its row: these are the nodes that are not outdated and that
// Classify counts as unavailable, whatever the switches (it counts every
// node that is not outdated), but for a node without live pods that
// should not run one, which only waits for its pods to go.
func inFlight(n *pnode, cls *Classifier) bool {
	if n.Outdated() || !n.Desired && !n.Crowded && n.New == nil && n.Old == nil {
		return false
	}
	return cls.Classify(&n.NodeView).Unavailable
}

// rank groups the present nodes by the zone label and orders the groups in
// two tiers, those with a node in flight and then the others, each tier by
// name with the group "" last (docs/progressive-delivery.md, 7.2). It
// sets each node's group to its group's rank.
func (z *Zones) rank(ns []pnode, cls *Classifier) []*zgroup {
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
		g.inFlight = g.inFlight || inFlight(n, cls)
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
