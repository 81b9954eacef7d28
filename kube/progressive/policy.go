package progressive

import (
	"fmt"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/rollout"
)

// Policy is how a DaemonSet is rolled out: a canary first, then zone by
// zone, then the rest, under one cluster-wide budget. It is a JSON
// document (the "policy" of the rollout annotation, or a file given to
// `daemonplan rollout start`). The zero Policy rolls out every node under
// maxUnavailable 1, with the default gates.
type Policy struct {
	// Canary updates a few nodes first and waits for `rollout promote`;
	// nil means no canary.
	Canary *CanaryPolicy `json:"canary,omitempty"`
	// Zones updates the nodes zone by zone after the canary; nil means no
	// zone order.
	Zones *ZonesPolicy `json:"zones,omitempty"`
	// MaxUnavailable is the cluster-wide budget, as a DaemonSet's
	// rollingUpdate.maxUnavailable: an int or a percentage of the desired
	// nodes, rounded up. nil means 1.
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`
	// MaxSurge must be absent or 0: under OnDelete the DaemonSet
	// controller creates a pod only on a node without one, so no node
	// can run an old and a new pod side by side.
	MaxSurge *intstr.IntOrString `json:"maxSurge,omitempty"`
	// StrictBudgets makes an old pod that is not available cost budget
	// like any other (docs/progressive-delivery.md, 3.3).
	StrictBudgets bool `json:"strictBudgets,omitempty"`
	// MinReadySeconds is how long a new pod must be Ready to count as
	// available; 0 means the DaemonSet's spec.minReadySeconds.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty"`
	// PauseBefore names phases the rollout pauses before entering, for
	// `rollout resume` to go on: "zone:NAME" or "rest".
	PauseBefore []string `json:"pauseBefore,omitempty"`
	// Gates judge the new pods; nil means DefaultGates.
	Gates *Gates `json:"gates,omitempty"`
}

// CanaryPolicy picks the canary nodes.
type CanaryPolicy struct {
	// Nodes is how many nodes run the new revision before the verdict: an
	// int, or a percentage of the desired nodes rounded up. nil means
	// "100%" of the nodes Selector matches (Selector is then required).
	Nodes *intstr.IntOrString `json:"nodes,omitempty"`
	// Selector limits the canaries to nodes whose labels match; nil means
	// any node (taken by name).
	Selector *metav1.LabelSelector `json:"selector,omitempty"`
}

// ZonesPolicy orders the nodes by a label after the canary.
type ZonesPolicy struct {
	// Key is the node label naming a node's zone; empty means
	// topology.kubernetes.io/zone.
	Key string `json:"key,omitempty"`
	// Order is the zones in the order they are updated. Empty means
	// every value of Key found on the nodes when the zone phase starts,
	// by name. Nodes in no listed zone (or without the label) are
	// updated last, in phase "rest".
	Order []string `json:"order,omitempty"`
	// PauseBetween pauses the rollout after each zone but the last, for
	// `rollout resume` to go on.
	PauseBetween bool `json:"pauseBetween,omitempty"`
}

// Gates are the health checks of the new pods. A new pod that fails one
// stops the rollout (OnFailure).
type Gates struct {
	// ReadyDeadline: a pod of the new revision not Ready this long after
	// it was created fails the gate. 0 means DefaultReadyDeadline; a
	// negative value is invalid.
	ReadyDeadline metav1.Duration `json:"readyDeadline,omitempty"`
	// MaxRestarts: a pod of the new revision whose containers restarted
	// more often than this, in sum, fails the gate. nil means
	// DefaultMaxRestarts.
	MaxRestarts *int32 `json:"maxRestarts,omitempty"`
	// OnFailure is Pause (the default) or Abort.
	OnFailure GateAction `json:"onFailure,omitempty"`
}

// GateAction is what a failed gate does.
type GateAction string

// The actions of a failed gate.
const (
	// ActionPause pauses the rollout; `rollout resume` goes on.
	ActionPause GateAction = "Pause"
	// ActionAbort aborts the rollout: no more deletes for this revision.
	ActionAbort GateAction = "Abort"
)

// Defaults of the gates.
const (
	DefaultReadyDeadline       = 5 * time.Minute
	DefaultMaxRestarts   int32 = 3
)

// PhaseRest names the last phase in Policy.PauseBefore.
const PhaseRest = "rest"

// zonePrefix prefixes a zone's phase name in Policy.PauseBefore.
const zonePrefix = "zone:"

// Defaulted returns a copy of p with every default filled in:
// maxUnavailable 1, the zone key, the canary's "100%" with a selector, and
// the gates. p is not changed.
func (p Policy) Defaulted() Policy {
	out := p.clone()
	if out.MaxUnavailable == nil {
		v := intstr.FromInt32(1)
		out.MaxUnavailable = &v
	}
	if out.Canary != nil && out.Canary.Nodes == nil && out.Canary.Selector != nil {
		v := intstr.FromString("100%")
		out.Canary.Nodes = &v
	}
	if out.Zones != nil && out.Zones.Key == "" {
		out.Zones.Key = rollout.LabelZone
	}
	if out.Gates == nil {
		out.Gates = &Gates{}
	}
	if out.Gates.ReadyDeadline.Duration == 0 {
		out.Gates.ReadyDeadline.Duration = DefaultReadyDeadline
	}
	if out.Gates.MaxRestarts == nil {
		n := DefaultMaxRestarts
		out.Gates.MaxRestarts = &n
	}
	if out.Gates.OnFailure == "" {
		out.Gates.OnFailure = ActionPause
	}
	return out
}

// clone returns a deep copy of p.
func (p Policy) clone() Policy {
	out := p
	if p.Canary != nil {
		c := *p.Canary
		c.Nodes = cloneIntOrString(c.Nodes)
		c.Selector = c.Selector.DeepCopy()
		out.Canary = &c
	}
	if p.Zones != nil {
		z := *p.Zones
		z.Order = slices.Clone(z.Order)
		out.Zones = &z
	}
	out.MaxUnavailable = cloneIntOrString(p.MaxUnavailable)
	out.MaxSurge = cloneIntOrString(p.MaxSurge)
	out.PauseBefore = slices.Clone(p.PauseBefore)
	if p.Gates != nil {
		g := *p.Gates
		if g.MaxRestarts != nil {
			n := *g.MaxRestarts
			g.MaxRestarts = &n
		}
		out.Gates = &g
	}
	return out
}

func cloneIntOrString(v *intstr.IntOrString) *intstr.IntOrString {
	if v == nil {
		return nil
	}
	c := *v
	return &c
}

const msgSurge = "must be 0: under updateStrategy OnDelete the DaemonSet controller creates a pod only on a node without one, so an old and a new pod never run side by side"

// Validate checks p and returns every problem with its field path, rooted
// at "policy" ("policy.canary.nodes"). The rules:
//
//  1. maxUnavailable: an int ≥ 1 or a percentage "N%" with 1 ≤ N ≤ 100 (a
//     budget of 0 would never delete).
//  2. maxSurge: absent or 0 (Forbidden otherwise: see MaxSurge).
//  3. canary.nodes: an int ≥ 1 or a percentage "N%" with 1 ≤ N ≤ 100;
//     Required when canary.selector is absent. canary.selector: label
//     selector syntax.
//  4. zones.key: label-key syntax; zones.order[i]: not empty (a zone is a
//     label value: its syntax), no duplicates.
//  5. minReadySeconds, gates.readyDeadline, gates.maxRestarts: not
//     negative; gates.onFailure: Pause or Abort.
//  6. pauseBefore[i]: "rest" or "zone:NAME", NAME one of zones.order when
//     an order is given; no duplicates.
func (p Policy) Validate() field.ErrorList {
	root := field.NewPath("policy")
	var errs field.ErrorList
	errs = append(errs, budgetErrors(root.Child("maxUnavailable"), p.MaxUnavailable)...)
	if s := p.MaxSurge; s != nil && !(s.Type == intstr.Int && s.IntVal == 0) && !(s.Type == intstr.String && s.StrVal == "0%") {
		errs = append(errs, field.Forbidden(root.Child("maxSurge"), msgSurge))
	}
	if c := p.Canary; c != nil {
		cp := root.Child("canary")
		if c.Nodes == nil && c.Selector == nil {
			errs = append(errs, field.Required(cp.Child("nodes"), "a count or percentage of nodes, or a selector"))
		}
		errs = append(errs, budgetErrors(cp.Child("nodes"), c.Nodes)...)
		errs = append(errs, api.ValidateLabelSelector(convert.LabelSelector(c.Selector)).Prefix("policy.canary.selector")...)
	}
	if z := p.Zones; z != nil {
		zp := root.Child("zones")
		if z.Key != "" {
			errs = append(errs, field.InvalidEach(zp.Child("key"), z.Key, api.ValidateLabelKey(z.Key))...)
		}
		seen := map[string]bool{}
		for i, name := range z.Order {
			ip := zp.Child("order").Index(i)
			switch {
			case name == "":
				errs = append(errs, field.Invalid(ip, name, "a zone must not be empty"))
			case seen[name]:
				errs = append(errs, field.Duplicate(ip, name))
			default:
				errs = append(errs, field.InvalidEach(ip, name, api.ValidateLabelValue(name))...)
			}
			seen[name] = true
		}
	}
	if p.MinReadySeconds < 0 {
		errs = append(errs, field.Invalid(root.Child("minReadySeconds"), int64(p.MinReadySeconds), msgNonNegative))
	}
	if g := p.Gates; g != nil {
		gp := root.Child("gates")
		if g.ReadyDeadline.Duration < 0 {
			errs = append(errs, field.Invalid(gp.Child("readyDeadline"), g.ReadyDeadline.Duration.String(), msgNonNegative))
		}
		if g.MaxRestarts != nil && *g.MaxRestarts < 0 {
			errs = append(errs, field.Invalid(gp.Child("maxRestarts"), int64(*g.MaxRestarts), msgNonNegative))
		}
		if g.OnFailure != "" && g.OnFailure != ActionPause && g.OnFailure != ActionAbort {
			errs = append(errs, field.NotSupported(gp.Child("onFailure"), string(g.OnFailure), string(ActionPause), string(ActionAbort)))
		}
	}
	seen := map[string]bool{}
	for i, ph := range p.PauseBefore {
		ip := root.Child("pauseBefore").Index(i)
		zone, isZone := cutZone(ph)
		switch {
		case seen[ph]:
			errs = append(errs, field.Duplicate(ip, ph))
		case ph == PhaseRest:
		case !isZone || zone == "":
			errs = append(errs, field.Invalid(ip, ph, `must be "rest" or "zone:NAME"`))
		case p.Zones == nil:
			errs = append(errs, field.Invalid(ip, ph, "a zone phase needs policy.zones"))
		case len(p.Zones.Order) > 0 && !slices.Contains(p.Zones.Order, zone):
			errs = append(errs, field.Invalid(ip, ph, "not a zone of policy.zones.order"))
		}
		seen[ph] = true
	}
	return errs
}

const msgNonNegative = "must be greater than or equal to 0"

// budgetErrors checks an int-or-percent count that must be at least 1.
func budgetErrors(p *field.Path, v *intstr.IntOrString) field.ErrorList {
	if v == nil {
		return nil
	}
	b := convert.IntOrPercent(v)
	if !b.IsString {
		if b.IntVal < 1 {
			return field.ErrorList{field.Invalid(p, int64(b.IntVal), "must be greater than 0")}
		}
		return nil
	}
	n, ok := b.Percentage()
	switch {
	case !ok:
		return field.ErrorList{field.Invalid(p, b.StrVal, "must be an int or a percentage such as '10%'")}
	case n < 1 || n > 100:
		return field.ErrorList{field.Invalid(p, b.StrVal, "must be between 1% and 100%")}
	}
	return nil
}

// cutZone returns the zone of a "zone:NAME" phase name.
func cutZone(phase string) (string, bool) {
	if len(phase) < len(zonePrefix) || phase[:len(zonePrefix)] != zonePrefix {
		return "", false
	}
	return phase[len(zonePrefix):], true
}

// ZonePhase is the name of a zone's phase in Policy.PauseBefore.
func ZonePhase(zone string) string { return zonePrefix + zone }

// String renders a count for messages.
func countString(v *intstr.IntOrString) string {
	if v == nil {
		return "<none>"
	}
	return fmt.Sprint(v.String())
}
