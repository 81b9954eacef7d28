package api_test

import (
	"fmt"
	"maps"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
	"github.com/daemonplan/daemonplan/resource"
	"github.com/daemonplan/daemonplan/selector"
)

// Fixed details (docs/validation.md, V12). Other details are not compared.
const (
	detNonNeg     = "must be greater than or equal to 0"
	detMismatch   = "`selector` does not match template `labels`"
	detEmpty      = "empty selector is invalid for daemonset"
	detDeadline   = "activeDeadlineSeconds in DaemonSet is not Supported"
	detOver100    = "must not be greater than 100%"
	detSurgeSet   = "may not be set when maxUnavailable is non-zero"
	detBothZero   = "cannot be 0 when maxSurge is 0"
	detImmutable  = "field is immutable"
	detDecrement  = "cannot be decremented"
	pathRU        = "spec.updateStrategy.rollingUpdate"
	pathUnavail   = pathRU + ".maxUnavailable"
	pathSurge     = pathRU + ".maxSurge"
	pathTSpec     = "spec.template.spec"
	pathAffinity  = pathTSpec + ".affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
	pathTolerates = pathTSpec + ".tolerations"
)

// fe builds an expected problem; an empty detail is not compared.
func fe(typ field.ErrorType, path string, bad any, detail string) *field.Error {
	return &field.Error{Type: typ, Field: path, BadValue: bad, Detail: detail}
}

// validDS returns a DaemonSet that passes validation before defaulting:
// every optional field is set to something valid.
func validDS() *api.DaemonSet {
	return &api.DaemonSet{
		Namespace:   "kube-system",
		Name:        "fluentd.logging",
		UID:         "uid-1",
		Annotations: map[string]string{api.AnnotationTemplateGeneration: "3", "example.com/owner": "ops"},
		Selector: &api.LabelSelector{
			MatchLabels:      map[string]string{"app": "fluentd"},
			MatchExpressions: []api.LabelSelectorRequirement{{Key: "tier", Operator: api.SelectorOpIn, Values: []string{"node"}}},
		},
		Template: api.PodTemplate{
			Labels:       map[string]string{"app": "fluentd", "tier": "node"},
			Annotations:  map[string]string{"kubectl.kubernetes.io/restartedAt": "now"},
			NodeSelector: map[string]string{"kubernetes.io/os": "linux"},
			RequiredNodeAffinity: &api.NodeSelector{Terms: []api.NodeSelectorTerm{{
				MatchExpressions: []api.NodeSelectorRequirement{{Key: "zone", Operator: api.SelectorOpNotIn, Values: []string{"z9"}}},
			}}},
			Tolerations:   []api.Toleration{{Key: "dedicated", Operator: api.TolerationOpEqual, Value: "logs", Effect: api.TaintEffectNoSchedule}},
			RestartPolicy: "Always",
		},
		UpdateStrategy:  api.UpdateStrategy{Type: api.RollingUpdate},
		MinReadySeconds: 5,
	}
}

func defaulted(ds *api.DaemonSet) *api.DaemonSet {
	d := api.Default(ds)
	return &d
}

func int64p(v int64) *int64 { return &v }
func int32p(v int32) *int32 { return &v }

// withoutUncheckedDetails clears the Detail of every problem whose expected
// detail is empty, so that cmp.Diff compares only what upstream fixes.
func withoutUncheckedDetails(want, got field.ErrorList) field.ErrorList {
	out := make(field.ErrorList, len(got))
	for i, e := range got {
		c := *e
		if i < len(want) && want[i].Detail == "" {
			c.Detail = ""
		}
		out[i] = &c
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func TestValidateAcceptsDefaultedDaemonSet(t *testing.T) {
	for _, tc := range []struct {
		name, reason string
		mutate       func(*api.DaemonSet)
	}{
		{"rolling update", "defaults give maxUnavailable 1, maxSurge 0", func(*api.DaemonSet) {}},
		{"on delete", "OnDelete has no budgets to check", func(ds *api.DaemonSet) {
			ds.UpdateStrategy = api.UpdateStrategy{Type: api.OnDelete}
		}},
		{"surge only", "maxUnavailable 0 with maxSurge non-zero is the surge strategy", func(ds *api.DaemonSet) {
			ds.UpdateStrategy.RollingUpdate = &api.RollingUpdateParams{MaxUnavailable: api.Int(0), MaxSurge: api.Percent("100%")}
		}},
		{"empty restart policy", "an unset restartPolicy is not reported (only the kube module fills it)", func(ds *api.DaemonSet) {
			ds.Template.RestartPolicy = ""
		}},
		{"zero history and generation", "revisionHistoryLimit 0 and templateGeneration 0 are allowed", func(ds *api.DaemonSet) {
			ds.RevisionHistoryLimit = int32p(0)
			ds.Annotations[api.AnnotationTemplateGeneration] = "0"
		}},
		{"bare minimum", "no namespace, annotations, affinity or tolerations", func(ds *api.DaemonSet) {
			ds.Namespace, ds.Annotations = "", nil
			ds.Template = api.PodTemplate{Labels: map[string]string{"app": "fluentd", "tier": "node"}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := validDS()
			tc.mutate(ds)
			if got := api.Validate(defaulted(ds)); got != nil {
				t.Errorf("Validate() = %v, want nil (%s)", got, tc.reason)
			}
		})
	}
}

func TestValidateRules(t *testing.T) {
	const (
		req = field.TypeRequired
		inv = field.TypeInvalid
		ns  = field.TypeNotSupported
		fb  = field.TypeForbidden
	)
	budgets := func(unavail, surge *api.IntOrPercent) func(*api.DaemonSet) {
		return func(ds *api.DaemonSet) {
			ds.UpdateStrategy.RollingUpdate = &api.RollingUpdateParams{MaxUnavailable: unavail, MaxSurge: surge}
		}
	}
	bigAnnotations := map[string]string{"a": strings.Repeat("x", 256*1024)}
	for _, tc := range []struct {
		name, reason string
		mutate       func(*api.DaemonSet)
		noDefaults   bool
		want         field.ErrorList
	}{
		// Object meta.
		{name: "name required", reason: "ValidateObjectMeta: an empty name is Required",
			mutate: func(ds *api.DaemonSet) { ds.Name = "" },
			want:   field.ErrorList{fe(req, "metadata.name", nil, "")}},
		{name: "name not a subdomain", reason: "DaemonSet names are DNS-1123 subdomains",
			mutate: func(ds *api.DaemonSet) { ds.Name = "Fluentd_1" },
			want:   field.ErrorList{fe(inv, "metadata.name", "Fluentd_1", "")}},
		{name: "name too long", reason: "a subdomain has at most 253 characters",
			mutate: func(ds *api.DaemonSet) { ds.Name = strings.Repeat("a", 254) },
			want:   field.ErrorList{fe(inv, "metadata.name", strings.Repeat("a", 254), "")}},
		{name: "namespace not a label", reason: "namespaces are DNS-1123 labels: no dots",
			mutate: func(ds *api.DaemonSet) { ds.Namespace = "kube.system" },
			want:   field.ErrorList{fe(inv, "metadata.namespace", "kube.system", "")}},
		{name: "annotation key", reason: "annotation keys are qualified names",
			mutate: func(ds *api.DaemonSet) { ds.Annotations["bad key"] = "v" },
			want:   field.ErrorList{fe(inv, "metadata.annotations", "bad key", "")}},
		{name: "annotations too large", reason: "keys and values may not exceed 256 KiB in total",
			mutate: func(ds *api.DaemonSet) { ds.Annotations = bigAnnotations },
			want:   field.ErrorList{fe(field.TypeTooLong, "metadata.annotations", "", "")}},

		// Selector.
		{name: "selector label value", reason: "matchLabels syntax; a selector that does not compile is not matched against the template",
			mutate: func(ds *api.DaemonSet) { ds.Selector.MatchLabels["app"] = "-fluentd" },
			want:   field.ErrorList{fe(inv, "spec.selector.matchLabels", "-fluentd", "")}},
		{name: "selector operator", reason: "Gt is not a label selector operator",
			mutate: func(ds *api.DaemonSet) { ds.Selector.MatchExpressions[0].Operator = api.SelectorOpGt },
			want:   field.ErrorList{fe(inv, "spec.selector.matchExpressions[0].operator", "Gt", "")}},
		{name: "selector In without values", reason: "In needs at least one value",
			mutate: func(ds *api.DaemonSet) { ds.Selector.MatchExpressions[0].Values = nil },
			want:   field.ErrorList{fe(req, "spec.selector.matchExpressions[0].values", nil, "")}},
		{name: "selector does not match", reason: "the template labels must satisfy the selector",
			mutate: func(ds *api.DaemonSet) { ds.Template.Labels["app"] = "other" },
			want: field.ErrorList{fe(inv, "spec.template.metadata.labels",
				map[string]string{"app": "other", "tier": "node"}, detMismatch)}},
		{name: "nil selector", reason: "a nil selector matches nothing, so the template never matches; upstream adds no Required",
			mutate: func(ds *api.DaemonSet) { ds.Selector = nil },
			want: field.ErrorList{fe(inv, "spec.template.metadata.labels",
				map[string]string{"app": "fluentd", "tier": "node"}, detMismatch)}},
		{name: "empty selector", reason: "an empty selector would select every pod; it matches the template so only this is reported",
			mutate: func(ds *api.DaemonSet) { ds.Selector = &api.LabelSelector{} },
			want:   field.ErrorList{fe(inv, "spec.selector", &api.LabelSelector{}, detEmpty)}},

		// Pod template.
		{name: "template label key", reason: "upstream validates template labels at spec.template.labels",
			mutate: func(ds *api.DaemonSet) { ds.Template.Labels["bad key"] = "v" },
			want:   field.ErrorList{fe(inv, "spec.template.labels", "bad key", "")}},
		{name: "template label value", reason: "label values are at most 63 characters",
			mutate: func(ds *api.DaemonSet) { ds.Template.Labels["x"] = strings.Repeat("v", 64) },
			want:   field.ErrorList{fe(inv, "spec.template.labels", strings.Repeat("v", 64), "")}},
		{name: "template annotation key", reason: "template annotations follow annotation key syntax",
			mutate: func(ds *api.DaemonSet) { ds.Template.Annotations["a/b/c"] = "v" },
			want:   field.ErrorList{fe(inv, "spec.template.annotations", "a/b/c", "")}},
		{name: "restart policy unknown", reason: "core validation rejects the value, then the DaemonSet rule rejects anything but Always",
			mutate: func(ds *api.DaemonSet) { ds.Template.RestartPolicy = "Sometimes" },
			want: field.ErrorList{
				fe(ns, pathTSpec+".restartPolicy", "Sometimes", `supported values: "Always", "OnFailure", "Never"`),
				fe(ns, pathTSpec+".restartPolicy", "Sometimes", `supported values: "Always"`)}},
		{name: "restart policy never", reason: "daemons must restart: only Always is supported",
			mutate: func(ds *api.DaemonSet) { ds.Template.RestartPolicy = "Never" },
			want:   field.ErrorList{fe(ns, pathTSpec+".restartPolicy", "Never", `supported values: "Always"`)}},
		{name: "node selector key", reason: "nodeSelector keys are label keys; upstream reports at the map, without [key]",
			mutate: func(ds *api.DaemonSet) { ds.Template.NodeSelector["a/b/c"] = "x" },
			want:   field.ErrorList{fe(inv, pathTSpec+".nodeSelector", "a/b/c", "")}},
		{name: "node affinity without terms", reason: "a required node selector needs at least one term",
			mutate: func(ds *api.DaemonSet) { ds.Template.RequiredNodeAffinity = &api.NodeSelector{} },
			want:   field.ErrorList{fe(req, pathAffinity+".nodeSelectorTerms", nil, "")}},
		{name: "node affinity operator", reason: "= is not a node selector operator",
			mutate: func(ds *api.DaemonSet) {
				ds.Template.RequiredNodeAffinity.Terms[0].MatchExpressions[0].Operator = selector.Equals
			},
			want: field.ErrorList{fe(inv, pathAffinity+".nodeSelectorTerms[0].matchExpressions[0].operator", "=", "")}},
		{name: "node name", reason: "spec.nodeName is a DNS-1123 subdomain",
			mutate: func(ds *api.DaemonSet) { ds.Template.NodeName = "Node_1" },
			want:   field.ErrorList{fe(inv, pathTSpec+".nodeName", "Node_1", "")}},
		{name: "toleration empty key", reason: "an empty key requires operator Exists",
			mutate: func(ds *api.DaemonSet) { ds.Template.Tolerations[0].Key = "" },
			want:   field.ErrorList{fe(inv, pathTolerates+"[0].operator", "Equal", "")}},
		{name: "active deadline set", reason: "DaemonSet pods may not have a deadline",
			mutate: func(ds *api.DaemonSet) { ds.Template.ActiveDeadlineSeconds = int64p(30) },
			want:   field.ErrorList{fe(fb, pathTSpec+".activeDeadlineSeconds", nil, detDeadline)}},
		{name: "active deadline zero", reason: "core validation wants 1..MaxInt32 before the DaemonSet rule forbids it",
			mutate: func(ds *api.DaemonSet) { ds.Template.ActiveDeadlineSeconds = int64p(0) },
			want: field.ErrorList{
				fe(inv, pathTSpec+".activeDeadlineSeconds", int64(0), ""),
				fe(fb, pathTSpec+".activeDeadlineSeconds", nil, detDeadline)}},

		// Spec counters.
		{name: "min ready seconds", reason: "minReadySeconds is non-negative",
			mutate: func(ds *api.DaemonSet) { ds.MinReadySeconds = -1 },
			want:   field.ErrorList{fe(inv, "spec.minReadySeconds", int64(-1), detNonNeg)}},
		{name: "template generation negative", reason: "the annotation carries spec.templateGeneration, which is non-negative",
			mutate: func(ds *api.DaemonSet) { ds.Annotations[api.AnnotationTemplateGeneration] = "-2" },
			want:   field.ErrorList{fe(inv, "spec.templateGeneration", int64(-2), detNonNeg)}},
		{name: "template generation unparsable", reason: "upstream fails conversion; reported at the field it converts to",
			mutate: func(ds *api.DaemonSet) { ds.Annotations[api.AnnotationTemplateGeneration] = "three" },
			want:   field.ErrorList{fe(inv, "spec.templateGeneration", "three", "")}},
		{name: "revision history limit", reason: "revisionHistoryLimit is non-negative",
			mutate: func(ds *api.DaemonSet) { ds.RevisionHistoryLimit = int32p(-1) },
			want:   field.ErrorList{fe(inv, "spec.revisionHistoryLimit", int64(-1), detNonNeg)}},

		// Update strategy.
		{name: "strategy type", reason: "only RollingUpdate and OnDelete exist; reported at spec.updateStrategy itself",
			mutate: func(ds *api.DaemonSet) { ds.UpdateStrategy.Type = "Recreate" },
			want:   field.ErrorList{fe(ns, "spec.updateStrategy", "Recreate", `supported values: "RollingUpdate", "OnDelete"`)}},
		{name: "strategy type empty", reason: "without defaulting an empty type is not supported", noDefaults: true,
			mutate: func(ds *api.DaemonSet) { ds.UpdateStrategy.Type = "" },
			want:   field.ErrorList{fe(ns, "spec.updateStrategy", "", "")}},
		{name: "rolling update missing", reason: "RollingUpdate needs its parameters; budgets are then not checked", noDefaults: true,
			mutate: func(ds *api.DaemonSet) {},
			want:   field.ErrorList{fe(req, pathRU, nil, "")}},
		{name: "on delete ignores budgets", reason: "rollingUpdate is not validated for OnDelete",
			mutate: func(ds *api.DaemonSet) {
				ds.UpdateStrategy = api.UpdateStrategy{Type: api.OnDelete,
					RollingUpdate: &api.RollingUpdateParams{MaxUnavailable: api.Int(-1)}}
			}},
		{name: "max unavailable negative", reason: "an int budget is non-negative; -1 is non-zero so no zero error",
			mutate: budgets(api.Int(-1), api.Int(0)),
			want:   field.ErrorList{fe(inv, pathUnavail, int64(-1), detNonNeg)}},
		{name: "max surge negative", reason: "format first, then both budgets count as non-zero",
			mutate: budgets(api.Int(1), api.Int(-1)),
			want: field.ErrorList{
				fe(inv, pathSurge, int64(-1), detNonNeg),
				fe(inv, pathSurge, int64(-1), detSurgeSet)}},
		{name: "percent without sign", reason: `"5" is not a percentage, yet upstream counts it as 5, so no zero error`,
			mutate: budgets(api.Percent("5"), api.Int(0)),
			want:   field.ErrorList{fe(inv, pathUnavail, "5", "")}},
		{name: "negative percent", reason: `"-5%" does not match [0-9]+% and counts as 0`,
			mutate: budgets(api.Percent("-5%"), api.Int(0)),
			want: field.ErrorList{
				fe(inv, pathUnavail, "-5%", ""),
				fe(req, pathUnavail, nil, detBothZero)}},
		{name: "fractional percent", reason: `"1.5%" does not match [0-9]+% and counts as 0`,
			mutate: budgets(api.Int(0), api.Percent("1.5%")),
			want: field.ErrorList{
				fe(inv, pathSurge, "1.5%", ""),
				fe(req, pathUnavail, nil, detBothZero)}},
		{name: "max unavailable over 100%", reason: "a percentage may not exceed 100",
			mutate: budgets(api.Percent("101%"), api.Int(0)),
			want:   field.ErrorList{fe(inv, pathUnavail, "101%", detOver100)}},
		{name: "max surge over 100%", reason: "a percentage may not exceed 100, huge ones included",
			mutate: budgets(api.Int(0), api.Percent("99999999999999999999%")),
			want:   field.ErrorList{fe(inv, pathSurge, "99999999999999999999%", detOver100)}},
		{name: "both non-zero", reason: "exactly one budget may be non-zero; reported at maxSurge",
			mutate: budgets(api.Int(1), api.Percent("10%")),
			want:   field.ErrorList{fe(inv, pathSurge, "10%", detSurgeSet)}},
		{name: "both zero ints", reason: "one budget must be non-zero; reported at maxUnavailable",
			mutate: budgets(api.Int(0), api.Int(0)),
			want:   field.ErrorList{fe(req, pathUnavail, nil, detBothZero)}},
		{name: "both zero percent", reason: `"0%" and "000%" are zero`,
			mutate: budgets(api.Percent("0%"), api.Percent("000%")),
			want:   field.ErrorList{fe(req, pathUnavail, nil, detBothZero)}},
		{name: "nil budgets", reason: "without defaulting nil budgets count as 0", noDefaults: true,
			mutate: func(ds *api.DaemonSet) {
				ds.UpdateStrategy.RollingUpdate = &api.RollingUpdateParams{}
			},
			want: field.ErrorList{fe(req, pathUnavail, nil, detBothZero)}},

		// Several problems keep upstream's order.
		{name: "order", reason: "metadata, selector, template, DaemonSet template rules, counters, strategy, history",
			mutate: func(ds *api.DaemonSet) {
				ds.Name = ""
				ds.Template.Labels = map[string]string{"app": "other"}
				ds.Template.ActiveDeadlineSeconds = int64p(10)
				ds.MinReadySeconds = -3
				ds.RevisionHistoryLimit = int32p(-4)
				ds.UpdateStrategy.RollingUpdate = &api.RollingUpdateParams{MaxUnavailable: api.Percent("200%"), MaxSurge: api.Int(2)}
			},
			want: field.ErrorList{
				fe(req, "metadata.name", nil, ""),
				fe(inv, "spec.template.metadata.labels", map[string]string{"app": "other"}, detMismatch),
				fe(fb, pathTSpec+".activeDeadlineSeconds", nil, detDeadline),
				fe(inv, "spec.minReadySeconds", int64(-3), detNonNeg),
				fe(inv, pathUnavail, "200%", detOver100),
				fe(inv, pathSurge, int64(2), detSurgeSet),
				fe(inv, "spec.revisionHistoryLimit", int64(-4), detNonNeg)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := validDS()
			tc.mutate(ds)
			if !tc.noDefaults {
				ds = defaulted(ds)
			}
			got := api.Validate(ds)
			if diff := cmp.Diff(tc.want, withoutUncheckedDetails(tc.want, got)); diff != "" {
				t.Errorf("Validate() mismatch (-want +got) (%s):\n%s", tc.reason, diff)
			}
		})
	}
}

// TestValidatePercentDetail checks the one detail the table leaves out: the
// percent-format message names the regex.
func TestValidatePercentDetail(t *testing.T) {
	ds := defaulted(validDS())
	ds.UpdateStrategy.RollingUpdate.MaxUnavailable = api.Percent("x")
	errs := api.Validate(ds)
	if len(errs) == 0 || !strings.Contains(errs[0].Detail, "[0-9]+%") {
		t.Fatalf("Validate() = %v, want a percent-format error naming [0-9]+%%", errs)
	}
}

func TestValidateUpdate(t *testing.T) {
	inv := field.TypeInvalid
	for _, tc := range []struct {
		name, reason string
		old, new     func(*api.DaemonSet)
		want         field.ErrorList
	}{
		{name: "unchanged", reason: "nothing changed, nothing to report"},
		{name: "selector changed", reason: "spec.selector is immutable in apps/v1",
			new: func(ds *api.DaemonSet) { ds.Selector.MatchLabels["app"] = "other" },
			want: field.ErrorList{fe(inv, "spec.selector", &api.LabelSelector{
				MatchLabels:      map[string]string{"app": "other"},
				MatchExpressions: []api.LabelSelectorRequirement{{Key: "tier", Operator: api.SelectorOpIn, Values: []string{"node"}}},
			}, detImmutable)}},
		{name: "selector removed", reason: "nil is not semantically equal to a selector",
			new:  func(ds *api.DaemonSet) { ds.Selector = nil },
			want: field.ErrorList{fe(inv, "spec.selector", (*api.LabelSelector)(nil), detImmutable)}},
		{name: "selector nil vs empty lists", reason: "semantic equality treats nil and empty maps and slices alike",
			old: func(ds *api.DaemonSet) {
				ds.Selector = &api.LabelSelector{MatchLabels: map[string]string{}, MatchExpressions: []api.LabelSelectorRequirement{}}
			},
			new: func(ds *api.DaemonSet) { ds.Selector = &api.LabelSelector{} }},
		{name: "status counters", reason: "every status counter is non-negative",
			new: func(ds *api.DaemonSet) {
				ds.Status = api.Status{CurrentNumberScheduled: -1, NumberMisscheduled: -2, DesiredNumberScheduled: -3,
					NumberReady: -4, ObservedGeneration: -5, UpdatedNumberScheduled: -6, NumberAvailable: -7,
					NumberUnavailable: -8, CollisionCount: int32p(-9)}
			},
			want: field.ErrorList{
				fe(inv, "status.currentNumberScheduled", int64(-1), detNonNeg),
				fe(inv, "status.numberMisscheduled", int64(-2), detNonNeg),
				fe(inv, "status.desiredNumberScheduled", int64(-3), detNonNeg),
				fe(inv, "status.numberReady", int64(-4), detNonNeg),
				fe(inv, "status.observedGeneration", int64(-5), detNonNeg),
				fe(inv, "status.updatedNumberScheduled", int64(-6), detNonNeg),
				fe(inv, "status.numberAvailable", int64(-7), detNonNeg),
				fe(inv, "status.numberUnavailable", int64(-8), detNonNeg),
				fe(inv, "status.collisionCount", int64(-9), detNonNeg)}},
		{name: "collision count decremented", reason: "collisionCount only grows",
			old:  func(ds *api.DaemonSet) { ds.Status.CollisionCount = int32p(3) },
			new:  func(ds *api.DaemonSet) { ds.Status.CollisionCount = int32p(2) },
			want: field.ErrorList{fe(inv, "status.collisionCount", int32(2), detDecrement)}},
		{name: "collision count cleared", reason: "set to nil counts as a decrement, reported as 0",
			old:  func(ds *api.DaemonSet) { ds.Status.CollisionCount = int32p(3) },
			want: field.ErrorList{fe(inv, "status.collisionCount", int32(0), detDecrement)}},
		{name: "collision count set", reason: "nil to a value and increments are fine",
			old: func(ds *api.DaemonSet) { ds.Status.CollisionCount = nil },
			new: func(ds *api.DaemonSet) { ds.Status.CollisionCount = int32p(1) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			oldDS, newDS := validDS(), validDS()
			if tc.old != nil {
				tc.old(oldDS)
			}
			if tc.new != nil {
				tc.new(newDS)
			}
			got := api.ValidateUpdate(oldDS, newDS)
			if diff := cmp.Diff(tc.want, withoutUncheckedDetails(tc.want, got)); diff != "" {
				t.Errorf("ValidateUpdate() mismatch (-want +got) (%s):\n%s", tc.reason, diff)
			}
		})
	}
}

// dsRecipe is a DaemonSet drawn by rapid as plain values, so that the same
// DaemonSet can be built twice and one copy kept as a reference.
type dsRecipe struct {
	Name, Namespace, RestartPolicy, Strategy, TemplateGen string
	SelectorKind                                          int // 0 nil, 1 empty, 2 labels
	SelectorLabels, TemplateLabels, NodeSelector, Annots  map[string]string
	Exprs                                                 []api.LabelSelectorRequirement
	Terms                                                 []api.NodeSelectorTerm
	HasAffinity                                           bool
	Tolerations                                           []api.Toleration
	Deadline                                              *int64
	MinReady                                              int32
	History                                               *int32
	RU                                                    *api.RollingUpdateParams
}

func (r dsRecipe) build() *api.DaemonSet {
	// Every map and slice is copied so that two builds share nothing.
	ds := &api.DaemonSet{
		Name: r.Name, Namespace: r.Namespace, Annotations: maps.Clone(r.Annots),
		MinReadySeconds: r.MinReady, UpdateStrategy: api.UpdateStrategy{Type: api.StrategyType(r.Strategy)},
		Template: api.PodTemplate{
			Labels: maps.Clone(r.TemplateLabels), NodeSelector: maps.Clone(r.NodeSelector),
			RestartPolicy: r.RestartPolicy,
		},
	}
	if r.TemplateGen != "" {
		if ds.Annotations == nil {
			ds.Annotations = map[string]string{}
		}
		ds.Annotations[api.AnnotationTemplateGeneration] = r.TemplateGen
	}
	switch r.SelectorKind {
	case 1:
		ds.Selector = &api.LabelSelector{}
	case 2:
		ds.Selector = &api.LabelSelector{MatchLabels: maps.Clone(r.SelectorLabels)}
		for _, e := range r.Exprs {
			ds.Selector.MatchExpressions = append(ds.Selector.MatchExpressions,
				api.LabelSelectorRequirement{Key: e.Key, Operator: e.Operator, Values: append([]string(nil), e.Values...)})
		}
	}
	if r.HasAffinity {
		ns := &api.NodeSelector{}
		for _, t := range r.Terms {
			var nt api.NodeSelectorTerm
			for _, e := range t.MatchExpressions {
				nt.MatchExpressions = append(nt.MatchExpressions,
					api.NodeSelectorRequirement{Key: e.Key, Operator: e.Operator, Values: append([]string(nil), e.Values...)})
			}
			ns.Terms = append(ns.Terms, nt)
		}
		ds.Template.RequiredNodeAffinity = ns
	}
	for _, t := range r.Tolerations {
		if t.TolerationSeconds != nil {
			t.TolerationSeconds = int64p(*t.TolerationSeconds)
		}
		ds.Template.Tolerations = append(ds.Template.Tolerations, t)
	}
	if r.Deadline != nil {
		ds.Template.ActiveDeadlineSeconds = int64p(*r.Deadline)
	}
	if r.History != nil {
		ds.RevisionHistoryLimit = int32p(*r.History)
	}
	if r.RU != nil {
		ru := api.RollingUpdateParams{}
		if b := r.RU.MaxUnavailable; b != nil {
			c := *b
			ru.MaxUnavailable = &c
		}
		if b := r.RU.MaxSurge; b != nil {
			c := *b
			ru.MaxSurge = &c
		}
		ds.UpdateStrategy.RollingUpdate = &ru
	}
	return ds
}

// Small pools of good and bad syntax, so that draws hit both sides of
// every rule.
var (
	genWord   = rapid.SampledFrom([]string{"", "app", "a", "fluentd", "Bad_Name", "-x", "x.y", "a/b", "a/b/c", "example.com/k", "kube-system", strings.Repeat("z", 64)})
	genLabels = rapid.MapOfN(genWord, genWord, 0, 3)
	genBudget = rapid.Custom(func(t *rapid.T) *api.IntOrPercent {
		switch rapid.IntRange(0, 2).Draw(t, "budgetKind") {
		case 0:
			return nil
		case 1:
			return api.Int(rapid.Int32Range(-2, 3).Draw(t, "int"))
		}
		return api.Percent(rapid.SampledFrom([]string{"0%", "25%", "100%", "101%", "5", "-5%", "1.5%", "", "%"}).Draw(t, "str"))
	})
	genRecipe = rapid.Custom(func(t *rapid.T) dsRecipe {
		r := dsRecipe{
			Name: genWord.Draw(t, "name"), Namespace: genWord.Draw(t, "namespace"),
			RestartPolicy:  rapid.SampledFrom([]string{"", "Always", "Never", "Sometimes"}).Draw(t, "restart"),
			Strategy:       rapid.SampledFrom([]string{"", "RollingUpdate", "OnDelete", "Recreate"}).Draw(t, "strategy"),
			TemplateGen:    rapid.SampledFrom([]string{"", "0", "7", "-1", "x"}).Draw(t, "templateGen"),
			SelectorKind:   rapid.IntRange(0, 2).Draw(t, "selectorKind"),
			SelectorLabels: genLabels.Draw(t, "selectorLabels"), TemplateLabels: genLabels.Draw(t, "templateLabels"),
			NodeSelector: genLabels.Draw(t, "nodeSelector"), Annots: genLabels.Draw(t, "annotations"),
			HasAffinity: rapid.Bool().Draw(t, "hasAffinity"),
			MinReady:    rapid.Int32Range(-2, 2).Draw(t, "minReady"),
		}
		genOp := rapid.SampledFrom([]api.SelectorOperator{api.SelectorOpIn, api.SelectorOpNotIn, api.SelectorOpExists, api.SelectorOpGt, "bogus"})
		genValues := rapid.SliceOfN(genWord, 0, 2)
		for i := range rapid.IntRange(0, 2).Draw(t, "nExprs") {
			r.Exprs = append(r.Exprs, api.LabelSelectorRequirement{
				Key: genWord.Draw(t, fmt.Sprint("exprKey", i)), Operator: genOp.Draw(t, fmt.Sprint("exprOp", i)),
				Values: genValues.Draw(t, fmt.Sprint("exprValues", i))})
		}
		for i := range rapid.IntRange(0, 2).Draw(t, "nTerms") {
			var term api.NodeSelectorTerm
			for j := range rapid.IntRange(0, 2).Draw(t, fmt.Sprint("nTermExprs", i)) {
				term.MatchExpressions = append(term.MatchExpressions, api.NodeSelectorRequirement{
					Key: genWord.Draw(t, fmt.Sprint("termKey", i, j)), Operator: genOp.Draw(t, fmt.Sprint("termOp", i, j)),
					Values: genValues.Draw(t, fmt.Sprint("termValues", i, j))})
			}
			r.Terms = append(r.Terms, term)
		}
		for i := range rapid.IntRange(0, 2).Draw(t, "nTolerations") {
			tol := api.Toleration{
				Key:      genWord.Draw(t, fmt.Sprint("tolKey", i)),
				Operator: rapid.SampledFrom([]api.TolerationOperator{"", api.TolerationOpEqual, api.TolerationOpExists, "Lt"}).Draw(t, fmt.Sprint("tolOp", i)),
				Value:    genWord.Draw(t, fmt.Sprint("tolValue", i)),
				Effect:   rapid.SampledFrom([]api.TaintEffect{"", api.TaintEffectNoExecute, "Sometimes"}).Draw(t, fmt.Sprint("tolEffect", i)),
			}
			if rapid.Bool().Draw(t, fmt.Sprint("tolSeconds", i)) {
				tol.TolerationSeconds = int64p(5)
			}
			r.Tolerations = append(r.Tolerations, tol)
		}
		if rapid.Bool().Draw(t, "hasDeadline") {
			r.Deadline = int64p(rapid.Int64Range(-1, 1).Draw(t, "deadline"))
		}
		if rapid.Bool().Draw(t, "hasHistory") {
			r.History = int32p(rapid.Int32Range(-1, 1).Draw(t, "history"))
		}
		if rapid.Bool().Draw(t, "hasRU") {
			r.RU = &api.RollingUpdateParams{MaxUnavailable: genBudget.Draw(t, "maxUnavailable"), MaxSurge: genBudget.Draw(t, "maxSurge")}
		}
		return r
	})
)

// scribble overwrites the contents of every map and selector a problem
// holds as its bad value, to prove that none of them is the caller's.
func scribble(errs field.ErrorList) {
	for _, e := range errs {
		switch v := e.BadValue.(type) {
		case map[string]string:
			for k := range v {
				v[k] = "scribbled"
			}
			v["scribbled"] = "x"
		case *api.LabelSelector:
			if v == nil {
				continue
			}
			for k := range v.MatchLabels {
				v.MatchLabels[k] = "scribbled"
			}
			for i := range v.MatchExpressions {
				v.MatchExpressions[i].Key = "scribbled"
				for j := range v.MatchExpressions[i].Values {
					v.MatchExpressions[i].Values[j] = "scribbled"
				}
			}
		}
	}
}

// TestValidatePropertyPure checks on arbitrary DaemonSets, defaulted or
// not, that Validate does not panic, does not change its input even when
// the caller then writes to the returned bad values, is deterministic, and
// returns only well-formed problems.
func TestValidatePropertyPure(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := genRecipe.Draw(t, "ds")
		ds, ref := r.build(), r.build()
		if rapid.Bool().Draw(t, "defaulted") {
			ds, ref = defaulted(ds), defaulted(ref)
		}
		first := api.Validate(ds)
		second := api.Validate(ds)
		if diff := cmp.Diff(first, second); diff != "" {
			t.Fatalf("Validate() not deterministic (-first +second):\n%s", diff)
		}
		scribble(first)
		if diff := cmp.Diff(ref, ds); diff != "" {
			t.Fatalf("Validate() changed its input (-before +after):\n%s", diff)
		}
		if first != nil && len(first) == 0 {
			t.Fatalf("Validate() returned an empty non-nil list")
		}
		for _, e := range first {
			if e.Type < field.TypeRequired || e.Type > field.TypeTooLong {
				t.Fatalf("problem with invalid type: %#v", e)
			}
			if !strings.HasPrefix(e.Field, "metadata.") && !strings.HasPrefix(e.Field, "spec.") {
				t.Fatalf("problem outside metadata and spec: %#v", e)
			}
		}

		oldR := genRecipe.Draw(t, "old")
		oldDS, oldRef := oldR.build(), oldR.build()
		scribble(api.ValidateUpdate(oldDS, ds))
		if diff := cmp.Diff(oldRef, oldDS); diff != "" {
			t.Fatalf("ValidateUpdate() changed the old object (-before +after):\n%s", diff)
		}
		if diff := cmp.Diff(ref, ds); diff != "" {
			t.Fatalf("ValidateUpdate() changed the new object (-before +after):\n%s", diff)
		}
	})
}

// A deliberately naive reference for budgets, using regexp and big numbers
// rather than the validator's byte loop and strconv.Atoi.
var percentRE = regexp.MustCompile(`^[0-9]+%$`)

func refPercentOK(s string) bool {
	if !percentRE.MatchString(s) {
		return false
	}
	n, _ := new(big.Int).SetString(strings.TrimSuffix(s, "%"), 10)
	return n.Cmp(big.NewInt(100)) <= 0
}

// refNonZero is upstream's getIntOrPercentValue(b) != 0.
func refNonZero(isStr bool, i int32, s string) bool {
	switch {
	case !isStr:
		return i != 0
	case percentRE.MatchString(s):
		n, _ := new(big.Int).SetString(strings.TrimSuffix(s, "%"), 10)
		return n.Sign() != 0
	}
	n, _ := strconv.Atoi(s)
	return n != 0
}

func budgetOf(isStr bool, i int32, s string) *api.IntOrPercent {
	if isStr {
		return api.Percent(s)
	}
	return api.Int(i)
}

// checkBudgets checks Validate's verdict on two budgets against the naive
// reference.
func checkBudgets(t *testing.T, uStr bool, uInt int32, uS string, sStr bool, sInt int32, sS string) {
	t.Helper()
	ds := defaulted(validDS())
	ds.UpdateStrategy.RollingUpdate = &api.RollingUpdateParams{
		MaxUnavailable: budgetOf(uStr, uInt, uS), MaxSurge: budgetOf(sStr, sInt, sS)}
	errs := api.Validate(ds)
	own := map[string]bool{} // path -> the budget's own value was rejected
	var surgeSet, bothZero bool
	for _, e := range errs {
		switch {
		case e.Field == pathSurge && e.Detail == detSurgeSet:
			surgeSet = true
		case e.Field == pathUnavail && e.Type == field.TypeRequired:
			bothZero = true
		case e.Field == pathUnavail || e.Field == pathSurge:
			own[e.Field] = true
		default:
			t.Fatalf("unexpected problem %v", e)
		}
	}
	for _, b := range []struct {
		path  string
		isStr bool
		i     int32
		s     string
	}{{pathUnavail, uStr, uInt, uS}, {pathSurge, sStr, sInt, sS}} {
		wantOK := b.i >= 0
		if b.isStr {
			wantOK = refPercentOK(b.s)
		}
		if own[b.path] == wantOK {
			t.Errorf("%s = %v/%d/%q: rejected %v, want %v (problems %v)", b.path, b.isStr, b.i, b.s, own[b.path], !wantOK, errs)
		}
	}
	u, s := refNonZero(uStr, uInt, uS), refNonZero(sStr, sInt, sS)
	if surgeSet != (u && s) || bothZero != (!u && !s) {
		t.Errorf("budgets %v/%d/%q and %v/%d/%q: surge-set %v, both-zero %v, want %v, %v (problems %v)",
			uStr, uInt, uS, sStr, sInt, sS, surgeSet, bothZero, u && s, !u && !s, errs)
	}
}

func FuzzValidateIntOrPercent(f *testing.F) {
	f.Add(false, int32(1), "", false, int32(0), "")
	f.Add(true, int32(0), "25%", true, int32(0), "0%")
	f.Add(true, int32(0), "101%", false, int32(-1), "")
	f.Add(true, int32(0), "5", true, int32(0), "-5%")
	f.Add(true, int32(0), "1.5%", true, int32(0), "99999999999999999999%")
	f.Fuzz(checkBudgets)
}

var (
	subdomainRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	dnsLabelRE  = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
)

// FuzzValidateDaemonSet fuzzes a few string fields of an otherwise valid
// spec and checks, against regexps, the rules they alone decide.
func FuzzValidateDaemonSet(f *testing.F) {
	f.Add("fluentd", "kube-system", "app", "fluentd", "Always", "RollingUpdate", "3")
	f.Add("", "", "", "", "", "", "")
	f.Add("Bad_Name", "a.b", "a/b/c", "-x", "Never", "Recreate", "-1")
	f.Fuzz(func(t *testing.T, name, namespace, labelKey, labelValue, restart, strategy, generation string) {
		build := func() *api.DaemonSet {
			ds := validDS()
			ds.Name, ds.Namespace = name, namespace
			ds.Selector = &api.LabelSelector{MatchLabels: map[string]string{labelKey: labelValue}}
			ds.Template.Labels = map[string]string{labelKey: labelValue}
			ds.Template.RestartPolicy = restart
			ds.UpdateStrategy.Type = api.StrategyType(strategy)
			ds.Annotations[api.AnnotationTemplateGeneration] = generation
			return defaulted(ds)
		}
		ds, ref := build(), build()
		errs := api.Validate(ds)
		scribble(errs)
		if diff := cmp.Diff(ref, ds); diff != "" {
			t.Fatalf("Validate() changed its input (-before +after):\n%s", diff)
		}
		has := func(path string) bool {
			for _, e := range errs {
				if e.Field == path {
					return true
				}
			}
			return false
		}
		if want := !(len(name) <= 253 && subdomainRE.MatchString(name)); has("metadata.name") != want {
			t.Errorf("name %q: reported %v, want %v (%v)", name, !want, want, errs)
		}
		if want := namespace != "" && !(len(namespace) <= 63 && dnsLabelRE.MatchString(namespace)); has("metadata.namespace") != want {
			t.Errorf("namespace %q: reported %v, want %v (%v)", namespace, !want, want, errs)
		}
		if want := restart != "" && restart != "Always"; has(pathTSpec+".restartPolicy") != want {
			t.Errorf("restartPolicy %q: reported %v, want %v (%v)", restart, !want, want, errs)
		}
		if want := strategy != "" && strategy != "RollingUpdate" && strategy != "OnDelete"; has("spec.updateStrategy") != want {
			t.Errorf("strategy %q: reported %v, want %v (%v)", strategy, !want, want, errs)
		}
		g, err := strconv.ParseInt(generation, 10, 64)
		if want := err != nil || g < 0; has("spec.templateGeneration") != want {
			t.Errorf("generation %q: reported %v, want %v (%v)", generation, !want, want, errs)
		}
		// The selector is exactly the template labels, so it never
		// mismatches: either it is invalid or it matches.
		if has("spec.template.metadata.labels") {
			t.Errorf("selector %q=%q reported as not matching identical template labels: %v", labelKey, labelValue, errs)
		}
	})
}

func ExampleValidate() {
	ds := api.DaemonSet{
		Namespace: "kube-system",
		Name:      "fluentd",
		Selector:  &api.LabelSelector{MatchLabels: map[string]string{"app": "fluentd"}},
		Template:  api.PodTemplate{Labels: map[string]string{"app": "fluentd"}},
		UpdateStrategy: api.UpdateStrategy{
			Type: api.RollingUpdate,
			RollingUpdate: &api.RollingUpdateParams{
				MaxUnavailable: api.Int(1),
				MaxSurge:       api.Percent("10%"),
			},
		},
	}
	d := api.Default(&ds)
	for _, e := range api.Validate(&d) {
		fmt.Println(e)
	}
	// Output:
	// spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: "10%": may not be set when maxUnavailable is non-zero
}

func ExampleValidateUpdate() {
	old := api.DaemonSet{
		Name:     "fluentd",
		Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "fluentd"}},
		Status:   api.Status{CollisionCount: int32p(2)},
	}
	updated := old
	updated.Selector = &api.LabelSelector{MatchLabels: map[string]string{"app": "fluent-bit"}}
	updated.Status.CollisionCount = int32p(1)
	for _, e := range api.ValidateUpdate(&old, &updated) {
		fmt.Println(e.Type, e.Field, e.Detail)
	}
	// Output:
	// Invalid spec.selector field is immutable
	// Invalid status.collisionCount cannot be decremented
}

// TestValidateNegativeQuantity checks rule 22: the API server refuses a
// negative quantity wherever the template holds one, each Invalid at its
// path, as it refuses a negative minReadySeconds.
func TestValidateNegativeQuantity(t *testing.T) {
	ds := defaulted(validDS())
	q := func(s string) resource.List { return resource.List{"cpu": resource.MustParse(s)} }
	ds.Template.Containers = []api.Container{
		{Name: "ok", Resources: api.Resources{Requests: q("100m")}},
		{Name: "bad", Resources: api.Resources{Requests: q("-1"), Limits: resource.List{"memory": resource.MustParse("-1Mi")}}},
	}
	ds.Template.InitContainers = []api.Container{{Name: "init", Resources: api.Resources{Limits: q("-100m")}}}
	ds.Template.Overhead = q("-10m")
	ds.Template.Resources = api.Resources{Requests: q("-2")}
	want := field.ErrorList{
		fe(field.TypeInvalid, "spec.template.spec.containers[1].resources.requests[cpu]", "-1", detNonNeg),
		fe(field.TypeInvalid, "spec.template.spec.containers[1].resources.limits[memory]", "-1Mi", detNonNeg),
		fe(field.TypeInvalid, "spec.template.spec.initContainers[0].resources.limits[cpu]", "-100m", detNonNeg),
		fe(field.TypeInvalid, "spec.template.spec.overhead[cpu]", "-10m", detNonNeg),
		fe(field.TypeInvalid, "spec.template.spec.resources.requests[cpu]", "-2", detNonNeg),
	}
	if diff := cmp.Diff(want, api.Validate(ds)); diff != "" {
		t.Errorf("Validate() mismatch (-want +got):\n%s", diff)
	}
}

func ExampleValidateResources() {
	t := api.PodTemplate{Containers: []api.Container{{
		Name:      "agent",
		Resources: api.Resources{Requests: resource.List{"cpu": resource.MustParse("-1"), "memory": resource.MustParse("64Mi")}},
	}}}
	for _, e := range api.ValidateResources(&t) {
		fmt.Println(e)
	}
	// Output:
	// containers[0].resources.requests[cpu]: Invalid value: "-1": must be greater than or equal to 0
}

func ExampleValidateQuantities() {
	overhead := resource.List{"memory": resource.MustParse("-16Mi"), "cpu": resource.MustParse("-250m"), "pods": resource.MustParse("1")}
	for _, e := range api.ValidateQuantities(field.NewPath("overhead", "podFixed"), overhead) {
		fmt.Println(e)
	}
	// Output:
	// overhead.podFixed[cpu]: Invalid value: "-250m": must be greater than or equal to 0
	// overhead.podFixed[memory]: Invalid value: "-16Mi": must be greater than or equal to 0
}
