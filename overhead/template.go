package overhead

import (
	"slices"
	"strconv"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/selector"
	"github.com/daemonplan/daemonplan/taints"
)

// NodeTemplate describes the nodes an autoscaler may create, as a Karpenter
// NodePool or a Cluster Autoscaler node group does: every node whose
// labels satisfy all Requirements and carry all Labels, with Taints, and
// at first also StartupTaints. A label key the template does not constrain
// may be missing or hold any value on such a node; say DoesNotExist to
// rule a key out.
type NodeTemplate struct {
	// Name is the node's name when it is known. Empty, as for a node not
	// yet created, it is a name no DaemonSet writes: a template
	// spec.nodeName or a matchFields In on metadata.name never matches it,
	// and a matchFields NotIn always does.
	Name string
	// Labels are labels every node carries (Key In [value]).
	Labels map[string]string
	// Requirements use the six node operators, with their values as node
	// affinity takes them: In and NotIn one or more, Exists and
	// DoesNotExist none, Gt and Lt one integer. Requirements on one key
	// all hold.
	Requirements []selector.Requirement
	// Taints are on the node throughout.
	Taints []api.Taint
	// StartupTaints are on the node when it starts and removed later (by
	// whatever readies the node). The DaemonSet controller decides on the
	// node as it is: a daemon pod that does not tolerate one is created only
	// once it is gone.
	StartupTaints []api.Taint
}

// CompiledTemplate is a [NodeTemplate] checked and compiled once by
// [CompileTemplate], for any number of [Catalog.QueryTemplate] calls.
type CompiledTemplate struct {
	name    string
	domains map[string]*domain
	// emptyKey is a key no node of the template can satisfy, "" if the
	// template produces nodes.
	emptyKey              string
	taints, startupTaints []api.Taint
}

// CompileTemplate checks t and compiles it. A malformed requirement (an
// unknown operator, values where none belong or none where some do, a Gt
// or Lt value that is not one integer) is an error naming its field path
// ("requirements[2].values"). Requirements that contradict each other are
// not an error: the template then produces no node ([CompiledTemplate.NoNode]).
// t is read, never changed, and not retained.
func CompileTemplate(t *NodeTemplate) (*CompiledTemplate, error) {
	var errs field.ErrorList
	ct := &CompiledTemplate{
		name:          t.Name,
		domains:       map[string]*domain{},
		taints:        slices.Clone(t.Taints),
		startupTaints: slices.Clone(t.StartupTaints),
	}
	// Each key's requirements are gathered first and made a domain in one
	// go (newDomain), so that long value lists are sorted once.
	byKey := map[string][]selector.Requirement{}
	for i, r := range t.Requirements {
		p := field.NewPath("requirements").Index(i)
		if e := checkRequirement(p, r); len(e) > 0 {
			errs = append(errs, e...)
			continue
		}
		byKey[r.Key] = append(byKey[r.Key], r)
	}
	for _, k := range sortedKeys(t.Labels) {
		if k == "" {
			errs = append(errs, field.Invalid(field.NewPath("labels").Key(k), k, "must not be empty"))
			continue
		}
		byKey[k] = append(byKey[k], selector.Requirement{Key: k, Operator: api.SelectorOpIn, Values: []string{t.Labels[k]}})
	}
	for i, tt := range t.Taints {
		errs = append(errs, checkTaint(field.NewPath("taints").Index(i), tt)...)
	}
	for i, tt := range t.StartupTaints {
		errs = append(errs, checkTaint(field.NewPath("startupTaints").Index(i), tt)...)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	for k, rs := range byKey {
		d := newDomain(rs)
		ct.domains[k] = &d
	}
	for _, k := range sortedKeys(ct.domains) {
		if ct.domains[k].empty() {
			ct.emptyKey = k
			break
		}
	}
	return ct, nil
}

func checkRequirement(p *field.Path, r selector.Requirement) field.ErrorList {
	var errs field.ErrorList
	if r.Key == "" {
		errs = append(errs, field.Required(p.Child("key"), ""))
	}
	vp := p.Child("values")
	switch r.Operator {
	case api.SelectorOpIn, api.SelectorOpNotIn:
		if len(r.Values) == 0 {
			errs = append(errs, field.Required(vp, "In and NotIn need at least one value"))
		}
	case api.SelectorOpExists, api.SelectorOpDoesNotExist:
		if len(r.Values) != 0 {
			errs = append(errs, field.Invalid(vp, r.Values, "Exists and DoesNotExist take no values"))
		}
	case api.SelectorOpGt, api.SelectorOpLt:
		if len(r.Values) != 1 {
			errs = append(errs, field.Invalid(vp, r.Values, "Gt and Lt take exactly one value"))
		} else if _, err := strconv.ParseInt(r.Values[0], 10, 64); err != nil {
			errs = append(errs, field.Invalid(vp.Index(0), r.Values[0], "Gt and Lt take an integer"))
		}
	default:
		errs = append(errs, field.NotSupported(p.Child("operator"), string(r.Operator),
			"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"))
	}
	return errs
}

func checkTaint(p *field.Path, t api.Taint) field.ErrorList {
	var errs field.ErrorList
	if t.Key == "" {
		errs = append(errs, field.Required(p.Child("key"), ""))
	}
	switch t.Effect {
	case api.TaintEffectNoSchedule, api.TaintEffectPreferNoSchedule, api.TaintEffectNoExecute:
	default:
		errs = append(errs, field.NotSupported(p.Child("effect"), string(t.Effect), "NoSchedule", "PreferNoSchedule", "NoExecute"))
	}
	return errs
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// NoNode returns a label key whose requirements no node can meet, in key
// order, and true when the template produces no node at all; then every
// answer is None.
func (ct *CompiledTemplate) NoNode() (string, bool) { return ct.emptyKey, ct.emptyKey != "" }

// domain returns what ct allows for key.
func (ct *CompiledTemplate) domain(key string) *domain {
	if d := ct.domains[key]; d != nil {
		return d
	}
	return &fullDomain
}

// Answer says on which of a template's nodes a DaemonSet's pod lands.
type Answer uint8

const (
	// None: on no node the template can produce.
	None Answer = iota + 1
	// Every: on every node the template can produce.
	Every
	// Depends: on some and not others; [TemplateAnswer.Where] says where.
	Depends
)

var answerNames = [...]string{None: "None", Every: "Every", Depends: "Depends"}

// String returns "None", "Every" or "Depends".
func (a Answer) String() string {
	if int(a) < len(answerNames) && answerNames[a] != "" {
		return answerNames[a]
	}
	return "Answer(" + strconv.Itoa(int(a)) + ")"
}

// TemplateAnswer is one DaemonSet's answer about a template.
type TemplateAnswer struct {
	Answer Answer
	// Reason is why the answer is None: NodeNameMismatch (a template
	// nodeName), NodeSelectorMismatch (Key names a nodeSelector key no node
	// of the template matches), NodeAffinityMismatch, or an untolerated
	// taint of Taints (UntoleratedNoExecute or UntoleratedNoSchedule,
	// named by Taint, as placement.Eligibility.Decide reports it). For
	// Every and Depends it is Eligible; zero when the template produces no
	// node.
	Reason placement.Reason
	Key    string
	Taint  *api.Taint
	// Where is, for Depends, where the pod lands: on a node of the template
	// exactly when it meets every requirement of one Where entry. An
	// entry keeps the DaemonSet's own requirements that the template leaves
	// open; on a key the template limits to a list of values it is said
	// with that list ("zone In [a]"). Nil otherwise.
	Where [][]selector.Requirement
	// Keys are, for Depends, the label keys that decide: for each, two
	// nodes of the template that differ in that label alone get different
	// answers. Sorted. (When telling them exactly would take more than
	// [MaxTemplateSteps], but a node where the pod does not land was found
	// on the way, Keys are instead the keys Where names, a superset.)
	Keys []string
	// StartupTaint is, when the pod lands somewhere, the first startup
	// taint it does not tolerate (NoSchedule or NoExecute): the controller
	// creates the pod only once that taint is removed. Nil when the pod
	// tolerates them all and is created as soon as the node registers.
	StartupTaint *api.Taint
}

// Lands reports whether the pod lands on some node of the template.
func (a *TemplateAnswer) Lands() bool { return a.Answer == Every || a.Answer == Depends }

// TemplateResult is a template's answers, one per DaemonSet of the [Catalog] in
// its order, laid out for reuse by [Catalog.QueryTemplate].
type TemplateResult struct {
	Answers []TemplateAnswer
}

// tplDaemon is what a Set keeps of one DaemonSet for template queries.
type tplDaemon struct {
	nodeName string
	terms    []selector.NodeTerm
	// selectorOnly is the nodeSelector as one term, to tell a
	// NodeSelectorMismatch from a NodeAffinityMismatch.
	selector []selector.Requirement
	tols     taints.Set
}

func newTplDaemon(ds *api.DaemonSet, opts placement.Options) tplDaemon {
	t := &ds.Template
	m := selector.CompileNode(t.NodeSelector, t.RequiredNodeAffinity)
	terms := m.Terms()
	for ti := range terms {
		for ri := range terms[ti].Labels {
			// Queries search these lists (classify, satisfies): Terms
			// gives them sorted, and a list that is not is sorted here,
			// in the copy Terms allocated.
			if r := &terms[ti].Labels[ri]; !slices.IsSorted(r.Values) {
				r.Values = sortedSet(r.Values)
			}
		}
	}
	return tplDaemon{
		nodeName: t.NodeName,
		terms:    terms,
		selector: selector.CompileNode(t.NodeSelector, nil).Terms()[0].Labels,
		tols:     taints.NewSet(taints.MergeDaemonDefaults(t.Tolerations, t.HostNetwork), opts.Taints),
	}
}

// QueryTemplate answers for every DaemonSet of s whether its pod lands on
// every node ct can produce, on none, or depending on labels, and where
// (docs/overhead.md, A1–A7). The answer is exact: the same as
// [Catalog.Query]'s ShouldRun on each such node, with the DaemonSet
// controller's default tolerations, every taint effect, every affinity
// term and matchFields included. Taints decide for every node alike;
// StartupTaints only say when the pod is created. r is overwritten and
// its slices (Where and Keys included) reused: copy what must outlive the
// next query. Once r has grown to s, a query allocates nothing but on the
// exact path (several open terms, or one with two requirements on a key).
//
// The work on one DaemonSet is bounded (docs/never-harm.md, N15): one
// whose affinity terms would take more than [MaxTemplateSteps] to decide
// is refused, its answer left zero (neither None, Every nor Depends), and
// the error, a [field.ErrorList], holds one Forbidden entry for each such
// DaemonSet at daemonSets[i].spec.template.spec.affinity.nodeAffinity.
// requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms, i
// being its index in [Compile]'s input. The other answers are complete.
func (s *Catalog) QueryTemplate(ct *CompiledTemplate, r *TemplateResult) error {
	return s.queryTemplate(ct, r).ToError()
}

// queryTemplate is QueryTemplate with its refusals as a list.
func (s *Catalog) queryTemplate(ct *CompiledTemplate, r *TemplateResult) field.ErrorList {
	r.Answers = grow(r.Answers, len(s.daemons))
	var errs field.ErrorList
	for i := range s.daemons {
		a := &r.Answers[i]
		*a = TemplateAnswer{Where: a.Where[:0], Keys: a.Keys[:0]}
		if !s.daemons[i].tpl.answer(ct, a) {
			*a = TemplateAnswer{}
			errs = append(errs, s.daemons[i].refusal())
			continue
		}
		if a.Answer != Depends {
			a.Where, a.Keys = nil, nil
		}
	}
	return errs
}

// refusal is the error for a DaemonSet whose template answer would cost
// more than MaxTemplateSteps.
func (d *daemon) refusal() *field.Error {
	p := field.NewPath("daemonSets").Index(d.input).Child("spec", "template", "spec", "affinity", "nodeAffinity",
		"requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
	return field.Forbidden(p, d.Namespace+"/"+d.Name+": deciding on which of the template's nodes the pod lands takes more than "+
		strconv.Itoa(MaxTemplateSteps)+" steps (overhead.MaxTemplateSteps); no answer")
}

// forceExact makes every query take the exact path; tests set it to
// check the fast path against it.
var forceExact = false

// answer fills a, or reports false when the work to decide it passes
// MaxTemplateSteps.
func (d *tplDaemon) answer(ct *CompiledTemplate, a *TemplateAnswer) bool {
	if _, empty := ct.NoNode(); empty {
		a.Answer = None // Reason stays zero: no node to decide about
		return true
	}
	if d.nodeName != "" && d.nodeName != ct.name {
		a.Answer, a.Reason = None, placement.NodeNameMismatch
		return true
	}
	// A taint the pod does not tolerate makes the answer None wherever the
	// labels let it land: then whether that is everywhere need not be
	// decided, nor cost anything.
	blocked := d.tols.IndexUntolerated(ct.taints, taints.ScheduleBlocking) >= 0
	ans, ok := d.labels(ct, a, !blocked)
	if !ok {
		return false
	}
	if ans == None {
		a.Answer = None
		a.Reason = placement.NodeAffinityMismatch
		for _, r := range d.selector {
			if ct.domain(r.Key).classify(&r) == never {
				a.Reason, a.Key = placement.NodeSelectorMismatch, r.Key
				break
			}
		}
		return true
	}
	if i := d.tols.IndexUntolerated(ct.taints, taints.ScheduleBlocking); i >= 0 {
		a.Answer, a.Reason, a.Taint = None, placement.UntoleratedNoSchedule, &ct.taints[i]
		if ct.taints[i].Effect == api.TaintEffectNoExecute {
			a.Reason = placement.UntoleratedNoExecute
		} else if j := d.tols.IndexUntolerated(ct.taints, taints.ExecuteBlocking); j >= 0 {
			a.Reason, a.Taint = placement.UntoleratedNoExecute, &ct.taints[j]
		}
		a.Where, a.Keys = nil, nil
		return true
	}
	a.Answer, a.Reason = ans, placement.Eligible
	if i := d.tols.IndexUntolerated(ct.startupTaints, taints.ScheduleBlocking); i >= 0 {
		a.StartupTaint = &ct.startupTaints[i]
	}
	return true
}

// fieldsHold reports whether the node's fields meet the term's
// matchFields; an unknown name is one no DaemonSet writes.
func fieldsHold(t *selector.NodeTerm, name string) bool {
	for _, f := range t.Fields {
		in := f.Operator == api.SelectorOpIn
		var equal bool
		switch {
		case f.Key != api.NodeNameField:
			equal = f.Values[0] == "" // other fields read as ""
		case name == "":
			equal = false // a fresh name equals none written
		default:
			equal = f.Values[0] == name
		}
		if equal != in {
			return false
		}
	}
	return true
}

// labels answers the label part (nodeSelector and affinity): Every, None
// or Depends, filling a.Where and a.Keys for Depends; ok is false when
// the exact path gave up (MaxTemplateSteps). Without where, the caller
// only asks whether the pod lands somewhere, and the exact path may say
// Depends for Every.
func (d *tplDaemon) labels(ct *CompiledTemplate, a *TemplateAnswer, where bool) (ans Answer, ok bool) {
	if !forceExact {
		open := 0   // terms that hold on some nodes only
		single := 0 // the last of them
		for ti := range d.terms {
			t := &d.terms[ti]
			if !fieldsHold(t, ct.name) {
				continue
			}
			state := always
			for ri := range t.Labels {
				if c := ct.domain(t.Labels[ri].Key).classify(&t.Labels[ri]); c < state {
					state = c
					if c == never {
						break
					}
				}
			}
			if state == always {
				return Every, true
			}
			if state == some {
				open++
				single = ti
			}
		}
		if open == 0 {
			return None, true
		}
		if open == 1 && d.singleDepends(ct, &d.terms[single], a) {
			return Depends, true
		}
	}
	if !where {
		c := d.classesOn(ct)
		if ans, ok := c.settled(); ok {
			return ans, true
		}
		return Depends, true // or Every: the caller need not know which
	}
	return d.exact(ct, a, MaxTemplateSteps)
}

// singleDepends answers Depends for the usual case without the exact
// path: one term holds on some nodes and not others, every other term on
// none, and the term's requirements that the template leaves open are on
// distinct keys. Keys are independent in a template, so the term holds
// where each of those requirements does, and each of their keys decides.
// It reports false, having changed nothing, when the case does not apply.
func (d *tplDaemon) singleDepends(ct *CompiledTemplate, t *selector.NodeTerm, a *TemplateAnswer) bool {
	keys := a.Keys[:0]
	for ri := range t.Labels {
		r := &t.Labels[ri]
		if ct.domain(r.Key).classify(r) == always {
			continue
		}
		keys = append(keys, r.Key)
	}
	// Sorted, then a key named twice sits next to itself: n log n for a
	// term of any length.
	slices.Sort(keys)
	for i := 1; i < len(keys); i++ {
		if keys[i] == keys[i-1] {
			return false
		}
	}
	var w []selector.Requirement
	if cap(a.Where) > 0 {
		w = a.Where[:1][0][:0] // reuse the last query's first entry
	}
	for ri := range t.Labels {
		r := &t.Labels[ri]
		dom := ct.domain(r.Key)
		if dom.classify(r) != always {
			w = slices.Grow(w, 1)
			w = w[:len(w)+1]
			dom.describeOne(r, &w[len(w)-1])
		}
	}
	a.Keys = keys
	a.Where = append(a.Where[:0], w)
	return true
}
