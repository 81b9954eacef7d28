package api

import (
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/daemonplan/daemonplan/field"
	"github.com/daemonplan/daemonplan/resource"
)

// Messages fixed by the API server (docs/validation.md, V12); the other
// details are informative only.
const (
	msgNonNegative       = "must be greater than or equal to 0"
	msgSelectorMismatch  = "`selector` does not match template `labels`"
	msgEmptySelector     = "empty selector is invalid for daemonset"
	msgDeadlineForbidden = "activeDeadlineSeconds in DaemonSet is not Supported"
	msgPercentFormat     = "a valid percent string must be a numeric string followed by an ending '%' " +
		"(e.g. '1%' or '93%', regex used for validation is '[0-9]+%')"
	msgOver100Percent  = "must not be greater than 100%"
	msgSurgeAndUnavail = "may not be set when maxUnavailable is non-zero"
	msgBothZero        = "cannot be 0 when maxSurge is 0"
	msgImmutable       = "field is immutable"
	msgDecremented     = "cannot be decremented"
	msgNameRequired    = "name or generateName is required"
	msgDNSLabel        = "a lowercase RFC 1123 label must consist of lower case alphanumeric " +
		"characters or '-', and must start and end with an alphanumeric character " +
		"(e.g. 'my-name' or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
	msgTemplateGeneration = "must be a decimal integer (annotation " +
		AnnotationTemplateGeneration + ")"
)

// Limits the API server applies to object metadata.
const (
	maxDNSLabelLength = 63
	// maxAnnotationsBytes is the total size of the keys and values of one
	// annotation map (apimachinery TotalAnnotationSizeLimitB).
	maxAnnotationsBytes = 256 * 1024
)

// Validate checks ds as the API server checks a [DaemonSet] on create
// (upstream: ValidateDaemonSet; docs/validation.md) and returns every
// problem found, in
// the order upstream reports them, or nil. Each problem carries upstream's
// field path and type; numeric bad values are int64 as in upstream's
// non-negative checks, string budgets and names are strings. ds should be
// defaulted first ([Default]); Sync validates its defaulted copy. ds is not
// changed, and no returned bad value shares memory with it. ds must not be
// nil: Validate panics on a nil DaemonSet.
//
// The rules, in order:
//
//  1. metadata.name: empty is Required; otherwise each way in which it is not
//     a DNS-1123 subdomain is Invalid.
//  2. metadata.namespace: when set (the snapshot may leave it empty), each
//     way in which it is not a DNS-1123 label is Invalid.
//  3. metadata.annotations: each key that is not a qualified name (checked
//     in lower case) is Invalid; keys and values over 256 KiB in total are
//     TooLong.
//  4. spec.selector: label-selector syntax (docs/validation.md, V3), at
//     spec.selector.matchLabels and spec.selector.matchExpressions[i].….
//  5. spec.template.metadata.labels: when the selector is well formed it
//     must match the template labels, else Invalid "`selector` does not
//     match template `labels`". A nil selector matches nothing, so it is
//     reported here; like upstream, a nil selector is not also Required.
//  6. spec.selector: a non-nil selector with no matchLabels and no
//     matchExpressions is Invalid "empty selector is invalid for daemonset".
//  7. spec.template.labels and spec.template.annotations: label and
//     annotation syntax, as rule 3 and [ValidateLabelKey] and
//     [ValidateLabelValue] (upstream validates template
//     labels at spec.template.labels, without "metadata").
//  8. spec.template.spec.restartPolicy: a value other than Always, OnFailure
//     and Never is NotSupported (core pod validation).
//  9. spec.template.spec.nodeSelector: each bad key or value is Invalid at
//     the map's path, as upstream (no [key] step).
//  10. spec.template.spec.affinity.nodeAffinity.
//     requiredDuringSchedulingIgnoredDuringExecution: node selector syntax
//     ([ValidateNodeSelector]).
//  11. spec.template.spec.nodeName: when set, each way in which it is not a
//     DNS-1123 subdomain is Invalid.
//  12. spec.template.spec.activeDeadlineSeconds: when set and outside
//     1..2147483647, Invalid (core pod validation).
//  13. spec.template.spec.tolerations: toleration syntax
//     ([ValidateTolerations]; Lt and Gt only with
//     [ValidateOptions.ComparisonOperators]).
//  14. spec.template.spec.restartPolicy: any value but Always is
//     NotSupported, supported "Always". The empty string counts as not set
//     and is not reported: only the kube module fills RestartPolicy from the
//     API object, where the API server defaults it to Always.
//  15. spec.template.spec.activeDeadlineSeconds: set at all is Forbidden.
//  16. spec.minReadySeconds < 0 is Invalid "must be greater than or equal
//     to 0".
//  17. spec.templateGeneration, read from the annotation
//     deprecated.daemonset.template.generation: negative is Invalid "must be
//     greater than or equal to 0"; a value that is not a decimal integer is
//     Invalid with the string as bad value (upstream fails the conversion of
//     such an object before validation; daemonplan reports it here).
//  18. spec.updateStrategy: a type other than [RollingUpdate] and [OnDelete] is
//     NotSupported at spec.updateStrategy itself, not at .type (upstream's
//     bad value is the whole strategy; daemonplan reports the type).
//     RollingUpdate with a nil rollingUpdate is Required at
//     spec.updateStrategy.rollingUpdate, and the budgets are not checked.
//  19. spec.updateStrategy.rollingUpdate.maxUnavailable and .maxSurge, each
//     in turn: an int < 0 is Invalid "must be greater than or equal to 0";
//     a string not matching ^[0-9]+%$ is Invalid with the percent-format
//     message. Then, for each, a well-formed percentage above 100 is Invalid
//     "must not be greater than 100%". A nil budget counts as the int 0.
//  20. Exactly one budget must be non-zero: both non-zero is Invalid at
//     .maxSurge "may not be set when maxUnavailable is non-zero"; both zero
//     is Required at .maxUnavailable "cannot be 0 when maxSurge is 0". As
//     upstream, a budget's value is its percentage when well formed, else
//     strconv.Atoi of the string ignoring the error (so "abc" and "1.5%"
//     count as 0, but "5" counts as 5), else the int.
//  21. spec.revisionHistoryLimit, when set, < 0 is Invalid "must be greater
//     than or equal to 0" (0 is allowed).
//  22. spec.template.spec: each negative quantity of a container's or init
//     container's requests or limits, the overhead, or the pod-level
//     requests or limits is Invalid "must be greater than or equal to 0"
//     ([ValidateResources]).
//
// Containers and init containers are otherwise held but not validated
// (not their names, images, nor requests above limits); volume and other pod-spec rules need fields the
// snapshot does not hold and are not checked. Rules that need the previous object
// (selector immutability, status counters, collisionCount decrements) are in
// [ValidateUpdate].
func Validate(ds *DaemonSet) field.ErrorList {
	if ds == nil {
		panic("api.Validate: nil DaemonSet")
	}
	return ValidateWith(ds, ValidateOptions{})
}

// ValidateOptions relax [Validate] for daemonplan's opt-in extensions. The
// zero value is the API server's validation.
type ValidateOptions struct {
	// AllowSurgeWithUnavailable accepts maxSurge and maxUnavailable both
	// non-zero (rule 20 then only requires one of them to be non-zero), for
	// planners that enable rollout.Progressive.SurgeWithUnavailable.
	AllowSurgeWithUnavailable bool
	// ComparisonOperators accepts the Lt and Gt toleration operators, with
	// an integer value, as the API server does with the alpha
	// TaintTolerationComparisonOperators gate on (v1.35 and later); a
	// planner that honours them (taints.Options.ComparisonOperators) sets
	// it too.
	ComparisonOperators bool
}

// ValidateWith is [Validate] with the relaxations of opts. ds must not be
// nil.
func ValidateWith(ds *DaemonSet, opts ValidateOptions) field.ErrorList {
	if ds == nil {
		panic("api.ValidateWith: nil DaemonSet")
	}
	var errs field.ErrorList
	errs = append(errs, validateMeta(ds)...)
	errs = append(errs, validateSelector(ds)...)
	errs = append(errs, validateTemplate(&ds.Template, opts)...)

	spec := field.NewPath("spec")
	tspec := spec.Child("template", "spec")
	if rp := ds.Template.RestartPolicy; rp != "" && rp != "Always" {
		errs = append(errs, field.NotSupported(tspec.Child("restartPolicy"), rp, "Always"))
	}
	if ds.Template.ActiveDeadlineSeconds != nil {
		errs = append(errs, field.Forbidden(tspec.Child("activeDeadlineSeconds"), msgDeadlineForbidden))
	}
	errs = append(errs, nonNegativeErrors(spec.Child("minReadySeconds"), int64(ds.MinReadySeconds))...)
	if s, ok := ds.Annotations[AnnotationTemplateGeneration]; ok {
		p := spec.Child("templateGeneration")
		if g, err := strconv.ParseInt(s, 10, 64); err != nil {
			errs = append(errs, field.Invalid(p, s, msgTemplateGeneration))
		} else {
			errs = append(errs, nonNegativeErrors(p, g)...)
		}
	}
	errs = append(errs, validateStrategy(spec.Child("updateStrategy"), &ds.UpdateStrategy, opts)...)
	if ds.RevisionHistoryLimit != nil {
		errs = append(errs, nonNegativeErrors(spec.Child("revisionHistoryLimit"), int64(*ds.RevisionHistoryLimit))...)
	}
	return errs
}

// ValidateUpdate checks the rules that only apply when oldDS is replaced by
// newDS (upstream's update strategy and ValidateDaemonSetStatusUpdate), and
// returns every problem found, or nil. It does not repeat Validate(newDS):
// callers that want both call both. Neither input is changed. oldDS and
// newDS must not be nil: ValidateUpdate panics on a nil [DaemonSet].
//
//  1. spec.selector may not change (apps/v1): a selector that is not
//     semantically equal to the old one (nil and empty lists and maps are
//     equal; nil and non-nil selectors are not) is Invalid "field is
//     immutable", with the new selector as bad value.
//  2. status.currentNumberScheduled, numberMisscheduled,
//     desiredNumberScheduled, numberReady, observedGeneration,
//     updatedNumberScheduled, numberAvailable, numberUnavailable and, when
//     set, collisionCount: each negative one is Invalid "must be greater
//     than or equal to 0" at status.<field>.
//  3. status.collisionCount may not decrease, nor go from set to nil:
//     Invalid "cannot be decremented" with the new value (0 for nil), an
//     int32 as upstream.
//
// Upstream's template-generation update rules are not checked: the API
// server sets the generation itself, so clients cannot break them
// (docs/validation.md, V10).
func ValidateUpdate(oldDS, newDS *DaemonSet) field.ErrorList {
	if oldDS == nil || newDS == nil {
		panic("api.ValidateUpdate: nil DaemonSet")
	}
	var errs field.ErrorList
	if !selectorSemanticEqual(oldDS.Selector, newDS.Selector) {
		errs = append(errs, field.Invalid(field.NewPath("spec", "selector"),
			newDS.Selector.DeepCopy(), msgImmutable))
	}
	st := field.NewPath("status")
	s := &newDS.Status
	for _, c := range []struct {
		name  string
		value int64
	}{
		{"currentNumberScheduled", int64(s.CurrentNumberScheduled)},
		{"numberMisscheduled", int64(s.NumberMisscheduled)},
		{"desiredNumberScheduled", int64(s.DesiredNumberScheduled)},
		{"numberReady", int64(s.NumberReady)},
		{"observedGeneration", s.ObservedGeneration},
		{"updatedNumberScheduled", int64(s.UpdatedNumberScheduled)},
		{"numberAvailable", int64(s.NumberAvailable)},
		{"numberUnavailable", int64(s.NumberUnavailable)},
	} {
		errs = append(errs, nonNegativeErrors(st.Child(c.name), c.value)...)
	}
	if s.CollisionCount != nil {
		errs = append(errs, nonNegativeErrors(st.Child("collisionCount"), int64(*s.CollisionCount))...)
	}
	if old := oldDS.Status.CollisionCount; old != nil {
		if s.CollisionCount == nil || *s.CollisionCount < *old {
			var v int32
			if s.CollisionCount != nil {
				v = *s.CollisionCount
			}
			errs = append(errs, field.Invalid(st.Child("collisionCount"), v, msgDecremented))
		}
	}
	return errs
}

// validateMeta checks rules 1 to 3 of Validate.
func validateMeta(ds *DaemonSet) field.ErrorList {
	var errs field.ErrorList
	meta := field.NewPath("metadata")
	if ds.Name == "" {
		errs = append(errs, field.Required(meta.Child("name"), msgNameRequired))
	} else {
		errs = append(errs, field.InvalidEach(meta.Child("name"), ds.Name, IsDNS1123Subdomain(ds.Name))...)
	}
	if ds.Namespace != "" {
		errs = append(errs, field.InvalidEach(meta.Child("namespace"), ds.Namespace, dns1123LabelErrors(ds.Namespace))...)
	}
	return append(errs, annotationErrors(meta.Child("annotations"), ds.Annotations)...)
}

// validateSelector checks rules 4 to 6 of Validate.
func validateSelector(ds *DaemonSet) field.ErrorList {
	errs := ValidateLabelSelector(ds.Selector).Prefix("spec.selector")
	if len(errs) == 0 && !validSelectorMatches(ds.Selector, ds.Template.Labels) {
		errs = append(errs, field.Invalid(field.NewPath("spec", "template", "metadata", "labels"),
			maps.Clone(ds.Template.Labels), msgSelectorMismatch))
	}
	if ls := ds.Selector; ls != nil && len(ls.MatchLabels)+len(ls.MatchExpressions) == 0 {
		errs = append(errs, field.Invalid(field.NewPath("spec", "selector"), ls.DeepCopy(), msgEmptySelector))
	}
	return errs
}

// validateTemplate checks rules 7 to 13 of Validate: what upstream's core
// pod-template validation checks among the fields the snapshot holds.
func validateTemplate(t *PodTemplate, opts ValidateOptions) field.ErrorList {
	tp := field.NewPath("spec", "template")
	errs := labelErrors(tp.Child("labels"), t.Labels)
	errs = append(errs, annotationErrors(tp.Child("annotations"), t.Annotations)...)
	sp := tp.Child("spec")
	switch t.RestartPolicy {
	case "", "Always", "OnFailure", "Never":
	default:
		errs = append(errs, field.NotSupported(sp.Child("restartPolicy"), t.RestartPolicy,
			"Always", "OnFailure", "Never"))
	}
	errs = append(errs, labelErrors(sp.Child("nodeSelector"), t.NodeSelector)...)
	errs = append(errs, ValidateNodeSelector(t.RequiredNodeAffinity).
		Prefix(sp.Child("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution").String())...)
	if t.NodeName != "" {
		errs = append(errs, field.InvalidEach(sp.Child("nodeName"), t.NodeName, IsDNS1123Subdomain(t.NodeName))...)
	}
	if d := t.ActiveDeadlineSeconds; d != nil && (*d < 1 || *d > math.MaxInt32) {
		errs = append(errs, field.Invalid(sp.Child("activeDeadlineSeconds"), *d,
			"must be between 1 and 2147483647, inclusive"))
	}
	tols := ValidateTolerations(t.Tolerations, opts)
	errs = append(errs, tols.Prefix(sp.Child("tolerations").String())...)
	return append(errs, ValidateResources(t).Prefix(sp.String())...)
}

// ValidateResources returns rule 22 of [Validate]: each negative quantity
// of t, Invalid "must be greater than or equal to 0" at its path under the
// pod spec ("containers[1].resources.requests[cpu]"), as the API server
// refuses it. In order: containers, then init containers, each's requests
// then limits; the overhead; the pod-level requests, then limits; names in
// each list sorted. A pod with such a quantity is never created, so what
// it requests is no pod's. A nil t has nothing to refuse.
func ValidateResources(t *PodTemplate) field.ErrorList {
	if t == nil {
		return nil
	}
	var errs field.ErrorList
	check := func(p *field.Path, l resource.List) { errs = append(errs, ValidateQuantities(p, l)...) }
	for _, cs := range []struct {
		name string
		list []Container
	}{{"containers", t.Containers}, {"initContainers", t.InitContainers}} {
		for j := range cs.list {
			r := field.NewPath(cs.name).Index(j).Child("resources")
			check(r.Child("requests"), cs.list[j].Resources.Requests)
			check(r.Child("limits"), cs.list[j].Resources.Limits)
		}
	}
	check(field.NewPath("overhead"), t.Overhead)
	check(field.NewPath("resources", "requests"), t.Resources.Requests)
	check(field.NewPath("resources", "limits"), t.Resources.Limits)
	return errs
}

// ValidateQuantities returns each negative quantity of l, Invalid "must be
// greater than or equal to 0" at p[name], names sorted: the rule
// [ValidateResources] applies to a pod's lists, for any other list of
// quantities the API server holds to it (a LimitRange's, a
// RuntimeClass's overhead).
func ValidateQuantities(p *field.Path, l resource.List) field.ErrorList {
	var errs field.ErrorList
	for _, name := range l.Names() {
		if q := l[name]; q.Sign() < 0 {
			errs = append(errs, field.Invalid(p.Key(name), q.String(), msgNonNegative))
		}
	}
	return errs
}

// validateStrategy checks rules 18 to 20 of Validate.
func validateStrategy(p *field.Path, s *UpdateStrategy, opts ValidateOptions) field.ErrorList {
	switch s.Type {
	case OnDelete:
		return nil
	case RollingUpdate:
	default:
		return field.ErrorList{field.NotSupported(p, string(s.Type),
			string(RollingUpdate), string(OnDelete))}
	}
	ru := s.RollingUpdate
	if ru == nil {
		return field.ErrorList{field.Required(p.Child("rollingUpdate"), "")}
	}
	rp := p.Child("rollingUpdate")
	up, sp := rp.Child("maxUnavailable"), rp.Child("maxSurge")
	errs := budgetFormatErrors(up, ru.MaxUnavailable)
	errs = append(errs, budgetFormatErrors(sp, ru.MaxSurge)...)
	errs = append(errs, budgetRangeErrors(up, ru.MaxUnavailable)...)
	errs = append(errs, budgetRangeErrors(sp, ru.MaxSurge)...)
	hasUnavailable, hasSurge := budgetValue(ru.MaxUnavailable) != 0, budgetValue(ru.MaxSurge) != 0
	switch {
	case hasUnavailable && hasSurge && !opts.AllowSurgeWithUnavailable:
		errs = append(errs, field.Invalid(sp, budgetBadValue(ru.MaxSurge), msgSurgeAndUnavail))
	case !hasUnavailable && !hasSurge:
		errs = append(errs, field.Required(up, msgBothZero))
	}
	return errs
}

// budgetFormatErrors reports a negative int or a malformed percentage.
func budgetFormatErrors(p *field.Path, b *IntOrPercent) field.ErrorList {
	switch {
	case b == nil:
		return nil
	case b.IsString:
		if !isPercentString(b.StrVal) {
			return field.ErrorList{field.Invalid(p, b.StrVal, msgPercentFormat)}
		}
		return nil
	default:
		return nonNegativeErrors(p, int64(b.IntVal))
	}
}

// budgetRangeErrors reports a well-formed percentage above 100.
func budgetRangeErrors(p *field.Path, b *IntOrPercent) field.ErrorList {
	if v, ok := b.Percentage(); ok && v > 100 {
		return field.ErrorList{field.Invalid(p, b.StrVal, msgOver100Percent)}
	}
	return nil
}

// budgetValue is upstream's getIntOrPercentValue: the percentage of a
// well-formed percent string, strconv.Atoi of any other string (0 when it
// does not parse), or the int. A nil budget is 0.
func budgetValue(b *IntOrPercent) int {
	if v, ok := b.Percentage(); ok {
		return v
	}
	switch {
	case b == nil:
		return 0
	case b.IsString:
		v, _ := strconv.Atoi(b.StrVal)
		return v
	default:
		return int(b.IntVal)
	}
}

// budgetBadValue is the bad value reported for a budget: its string, or
// its int as an int64.
func budgetBadValue(b *IntOrPercent) any {
	switch {
	case b == nil:
		return int64(0)
	case b.IsString:
		return b.StrVal
	default:
		return int64(b.IntVal)
	}
}

// isPercentString reports whether s matches ^[0-9]+%$.
func isPercentString(s string) bool {
	if len(s) < 2 || s[len(s)-1] != '%' {
		return false
	}
	for i := 0; i < len(s)-1; i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func nonNegativeErrors(p *field.Path, v int64) field.ErrorList {
	if v < 0 {
		return field.ErrorList{field.Invalid(p, v, msgNonNegative)}
	}
	return nil
}

// labelErrors is upstream's ValidateLabels: every bad key, then its bad
// value, Invalid at p itself (keys in sorted order).
func labelErrors(p *field.Path, m map[string]string) field.ErrorList {
	var errs field.ErrorList
	for _, k := range sortedLabelKeys(m) {
		errs = append(errs, field.InvalidEach(p, k, ValidateLabelKey(k))...)
		errs = append(errs, field.InvalidEach(p, m[k], ValidateLabelValue(m[k]))...)
	}
	return errs
}

// annotationErrors is upstream's ValidateAnnotations: each key must be a
// qualified name once lower-cased (Invalid at p, keys in sorted order), and
// keys plus values may not exceed 256 KiB (TooLong at p).
func annotationErrors(p *field.Path, m map[string]string) field.ErrorList {
	var errs field.ErrorList
	size := 0
	for _, k := range sortedLabelKeys(m) {
		errs = append(errs, field.InvalidEach(p, k, ValidateLabelKey(strings.ToLower(k)))...)
		size += len(k) + len(m[k])
	}
	if size > maxAnnotationsBytes {
		errs = append(errs, field.TooLong(p, "", maxAnnotationsBytes))
	}
	return errs
}

// dns1123LabelErrors reports what is wrong with s as a DNS-1123 label (a
// namespace name): at most 63 characters of lower-case alphanumerics and
// '-', starting and ending with an alphanumeric.
func dns1123LabelErrors(s string) []string {
	var probs []string
	if len(s) > maxDNSLabelLength {
		probs = append(probs, "must be no more than 63 characters")
	}
	if !isDNS1123Label(s) {
		probs = append(probs, msgDNSLabel)
	}
	return probs
}

func isDNS1123Label(s string) bool {
	alnum := func(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }
	if s == "" || !alnum(s[0]) || !alnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if !alnum(s[i]) && s[i] != '-' {
			return false
		}
	}
	return true
}

func sortedLabelKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// selectorSemanticEqual is apimachinery's semantic equality on label selectors:
// nil and empty maps and slices are equal, expression order matters.
func selectorSemanticEqual(a, b *LabelSelector) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if !maps.Equal(a.MatchLabels, b.MatchLabels) {
		return false
	}
	return slices.EqualFunc(a.MatchExpressions, b.MatchExpressions, func(x, y LabelSelectorRequirement) bool {
		return x.Key == y.Key && x.Operator == y.Operator && slices.Equal(x.Values, y.Values)
	})
}
