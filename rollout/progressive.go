package rollout

import (
	"maps"
	"slices"
	"time"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
	"github.com/daemonplan/daemonplan/internal/base/enum"
)

// LabelZone is the node label [Zones] groups by when [Zones.Key] is empty.
const LabelZone = "topology.kubernetes.io/zone"

// Progressive are the progressive-delivery extensions of the rolling update
// (docs/progressive-delivery.md states their rules, numbered). Each is
// opt-in: the zero value adds nothing, and [RollingUpdate] with it is
// upstream's pass exactly.
type Progressive struct {
	// Partition is how many nodes keep their old pod (OpenKruise's
	// rollingUpdate.partition): an int, or a percentage of the desired
	// nodes rounded down. nil means no partition.
	Partition *api.IntOrPercent
	// PartitionedScaling extends the partition to the pods manage creates
	// (OpenKruise's scaleStrategy.partitionedScaling): creates are held
	// back so that at least Partition desired nodes run no pod of the
	// current revision. Held-back nodes stay empty until the partition is
	// lowered. Without a Partition it does nothing.
	PartitionedScaling bool
	// Scope limits the rolling update to nodes whose labels match
	// (OpenKruise's rollingUpdate.selector); other nodes keep their pods.
	// nil means every node; a selector with no requirements also matches
	// every node.
	Scope *api.LabelSelector
	// Pause stops the rolling update: no deletes for being outdated and no
	// surge creates. Manage still creates pods on nodes without one and
	// deletes pods from nodes that may no longer run them.
	Pause bool
	// Freeze stops every pod create and delete, manage's included. Pods
	// are still adopted and released, revisions written and the status
	// counted.
	Freeze bool
	// StrictBudgets makes an old pod that is not available cost budget like
	// any other: deleting it, or surging next to it, counts against
	// maxUnavailable (or maxSurge) instead of happening at once. Nodes
	// outside the update set count against the budget too.
	StrictBudgets bool
	// SurgeWithUnavailable lets maxSurge and maxUnavailable both be
	// non-zero: surge first, then take nodes out of service while fewer
	// than maxUnavailable desired nodes lack an available pod. API
	// validation (api.ValidateWith) accepts the pair only with this set.
	SurgeWithUnavailable bool
	// Zones updates nodes group by group; nil means no grouping.
	Zones *Zones
	// Canary updates a few nodes first and waits for a verdict; nil means
	// no canary.
	Canary *Canary
}

// Zones groups nodes by a label and updates a few groups at a time. The
// budgets stay the cluster's, as upstream's: the active groups together
// spend maxUnavailable and maxSurge, scaled to the cluster's desired nodes,
// unless PerGroupBudgets asks otherwise.
type Zones struct {
	// Key is the node label whose value names a node's group; empty means
	// LabelZone. Nodes without the label, or with an empty value, form the
	// group "", ordered after every other group.
	Key string
	// MaxConcurrent is how many groups may update at once; 0 means 1.
	MaxConcurrent int
	// PerGroupBudgets scales maxUnavailable and maxSurge to each active
	// group's desired nodes (at least one) and applies them group by
	// group; the cluster's budgets still bound the sum over the groups.
	// False: the budgets are the cluster's, as upstream's, and the groups
	// only choose which nodes spend them (docs/progressive-delivery.md,
	// 7.4).
	PerGroupBudgets bool
}

// key returns the grouping label.
func (z *Zones) key() string {
	if z.Key == "" {
		return LabelZone
	}
	return z.Key
}

// concurrent returns how many groups may update at once.
func (z *Zones) concurrent() int { return max(z.MaxConcurrent, 1) }

// Verdict is the caller's decision on a canary.
type Verdict uint8

// The verdicts. The zero value is no verdict: the canary waits.
const (
	// Promote lets the rollout go past the canary nodes.
	Promote Verdict = iota + 1
	// Abort stops the rollout; the plan names the revision to roll back to.
	Abort
)

var verdictNames = [...]string{Promote: "Promote", Abort: "Abort"}

// String returns the verdict's name.
func (v Verdict) String() string {
	return enum.Name(verdictNames[:], int(v), "Verdict")
}

// Canary rolls a revision out to a few nodes first (as DataDog's
// ExtendedDaemonSet does), then waits for the caller's verdict on that
// revision.
type Canary struct {
	// Nodes is how many nodes take the new revision before a verdict: an
	// int, or a percentage of the desired nodes rounded up. Required.
	Nodes *api.IntOrPercent
	// Selector limits canaries to nodes whose labels match; nil means
	// every node.
	Selector *api.LabelSelector
	// SpreadKeys spread canaries over the values of these node labels
	// (e.g. one per zone): no combination of values gets more than
	// ceil(Nodes / number of combinations) canaries.
	SpreadKeys []string
	// Verdicts are the caller's decisions by revision hash (Plan.Hash).
	// A revision that is promoted once stays promoted, so rolling back to
	// it is not gated again. Missing means no verdict yet.
	Verdicts map[string]Verdict
	// AutoFail turns what the caller observes of the canary pods into an
	// Abort in the plan; nil means only Verdicts decide.
	AutoFail *AutoFail
	// Restarts are the container restart counts the caller observes, by
	// pod name (the snapshot's api.Pod has none). Missing means 0.
	Restarts map[string]int32
}

// AutoFail are the thresholds beyond which a canary fails by itself
// ([AutoFail.Judge]): a canary pod that failed fails it too.
type AutoFail struct {
	// MaxRestarts: a canary pod that restarted more often fails the
	// canary (0: any restart does).
	MaxRestarts int32
	// MaxUnready: a canary pod that is still not Ready more than this
	// after it was created fails the canary; 0 means readiness is not
	// judged.
	MaxUnready time.Duration
}

// IsZero reports whether p enables no extension: plans are upstream's.
func (p Progressive) IsZero() bool {
	return p.Partition == nil && !p.PartitionedScaling && p.Scope == nil && !p.Pause && !p.Freeze &&
		!p.StrictBudgets && !p.SurgeWithUnavailable && p.Zones == nil && p.Canary == nil
}

// Validate checks p and returns every problem, with paths relative to p
// ("partition", "canary.nodes"); the caller prefixes them. The rules:
//
//  1. partition, canary.nodes: an int must be ≥ 0 (canary.nodes ≥ 1); a
//     string must be a percentage "N%" with N at most 100 (canary.nodes:
//     at least 1).
//  2. canary.nodes is Required when canary is set.
//  3. scope, canary.selector: label-selector syntax.
//  4. zones.key, canary.spreadKeys[i]: label-key syntax; a spread key
//     listed twice is Duplicate.
//  5. zones.maxConcurrent, canary.autoFail.maxRestarts,
//     canary.autoFail.maxUnready, canary.restarts[pod]: not negative.
//  6. canary.verdicts[hash]: [Promote] or [Abort], else NotSupported.
func (p Progressive) Validate() field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, countErrors(field.NewPath("partition"), p.Partition, 0)...)
	errs = append(errs, api.ValidateLabelSelector(p.Scope).Prefix("scope")...)
	if z := p.Zones; z != nil {
		if z.Key != "" {
			errs = append(errs, field.InvalidEach(field.NewPath("zones", "key"), z.Key, api.ValidateLabelKey(z.Key))...)
		}
		if z.MaxConcurrent < 0 {
			errs = append(errs, field.Invalid(field.NewPath("zones", "maxConcurrent"), int64(z.MaxConcurrent), msgNonNegative))
		}
	}
	if c := p.Canary; c != nil {
		cp := field.NewPath("canary")
		if c.Nodes == nil {
			errs = append(errs, field.Required(cp.Child("nodes"), ""))
		} else {
			errs = append(errs, countErrors(cp.Child("nodes"), c.Nodes, 1)...)
		}
		errs = append(errs, api.ValidateLabelSelector(c.Selector).Prefix("canary.selector")...)
		seen := map[string]bool{}
		for i, k := range c.SpreadKeys {
			kp := cp.Child("spreadKeys").Index(i)
			errs = append(errs, field.InvalidEach(kp, k, api.ValidateLabelKey(k))...)
			if seen[k] {
				errs = append(errs, field.Duplicate(kp, k))
			}
			seen[k] = true
		}
		for _, h := range slices.Sorted(maps.Keys(c.Verdicts)) {
			if v := c.Verdicts[h]; v != Promote && v != Abort {
				errs = append(errs, field.NotSupported(cp.Child("verdicts").Key(h), v.String(), Promote.String(), Abort.String()))
			}
		}
		if a := c.AutoFail; a != nil {
			if a.MaxRestarts < 0 {
				errs = append(errs, field.Invalid(cp.Child("autoFail", "maxRestarts"), int64(a.MaxRestarts), msgNonNegative))
			}
			if a.MaxUnready < 0 {
				errs = append(errs, field.Invalid(cp.Child("autoFail", "maxUnready"), a.MaxUnready.String(), msgNonNegative))
			}
		}
		for _, pod := range slices.Sorted(maps.Keys(c.Restarts)) {
			if n := c.Restarts[pod]; n < 0 {
				errs = append(errs, field.Invalid(cp.Child("restarts").Key(pod), int64(n), msgNonNegative))
			}
		}
	}
	return errs
}

const (
	msgNonNegative = "must be greater than or equal to 0"
	msgPositive    = "must be greater than 0"
	msgPercent     = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%' or '93%')"
	msgOver100     = "must not be greater than 100%"
)

// countErrors checks an int-or-percent count that must be at least least
// (0 or 1).
func countErrors(p *field.Path, v *api.IntOrPercent, least int) field.ErrorList {
	if v == nil {
		return nil
	}
	msg := msgNonNegative
	if least > 0 {
		msg = msgPositive
	}
	if !v.IsString {
		if int(v.IntVal) < least {
			return field.ErrorList{field.Invalid(p, int64(v.IntVal), msg)}
		}
		return nil
	}
	n, ok := v.Percentage()
	switch {
	case !ok:
		return field.ErrorList{field.Invalid(p, v.StrVal, msgPercent)}
	case n > 100:
		return field.ErrorList{field.Invalid(p, v.StrVal, msgOver100)}
	case n < least:
		return field.ErrorList{field.Invalid(p, v.StrVal, msg)}
	}
	return nil
}
