package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/daemonplan/daemonplan/kube/internal/conformance"
	"github.com/daemonplan/daemonplan/kube/schema"
)

// expectation is what upstream did over several runs of one cluster: a
// conformance.Expected (the first run, and the other create/delete outcomes
// as alternatives) plus Groups.
//
// The conformance rules allow non-determinism in create and delete only:
// those are the lists upstream fills in Go map order in the recorded cases.
// Generated clusters reach ties the recorded ones never had, e.g. two
// ControllerRevisions with the current template's data and the same revision
// number: upstream keeps whichever its lister returned last, and that choice
// changes the relabels, the revisions deleted, the status and even how many
// pods are created or deleted. When runs differ in anything but create and
// delete, Groups holds one Expected per set of runs that agree on the rest,
// and a plan conforms when it conforms to one of them.
type expectation struct {
	conformance.Expected
	Groups []conformance.Expected `json:"groups,omitempty"`
}

// buildExpectation runs upstream runs times on cl.
func buildExpectation(cl *cluster, runs int) (*expectation, []*outcome, error) {
	outs := make([]*outcome, 0, runs)
	for range runs {
		o, err := runUpstream(cl)
		if err != nil {
			return nil, nil, err
		}
		outs = append(outs, o)
	}
	exp := &expectation{Expected: fold(outs)}
	var keys []string
	groups := map[string][]*outcome{}
	for _, o := range outs {
		k := restKey(&o.Plan)
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], o)
	}
	if len(keys) > 1 {
		for _, k := range keys {
			exp.Groups = append(exp.Groups, fold(groups[k]))
		}
	}
	return exp, outs, nil
}

// fold is outs[0] with the distinct create/delete outcomes of the others as
// alternatives.
func fold(outs []*outcome) conformance.Expected {
	e := conformance.Expected{Plan: outs[0].Plan, Alternatives: []conformance.Alternative{}}
	seen := map[string]bool{createDeleteKey(&outs[0].Plan): true}
	for _, o := range outs[1:] {
		if k := createDeleteKey(&o.Plan); !seen[k] {
			seen[k] = true
			e.Alternatives = append(e.Alternatives, conformance.Alternative{Create: o.Create, Delete: o.Delete})
		}
	}
	deterministic := len(e.Alternatives) == 0
	e.Deterministic = &deterministic
	return e
}

// createDeleteKey identifies an outcome's creates and deletes regardless of
// order.
func createDeleteKey(p *schema.Plan) string {
	var creates, deletes []string
	for _, c := range p.Create {
		b, _ := json.Marshal(schema.Create{Node: c.Node, Labels: c.Labels, Tolerations: c.Tolerations})
		creates = append(creates, string(b))
	}
	for _, d := range p.Delete {
		deletes = append(deletes, d.Pod)
	}
	slices.Sort(creates)
	slices.Sort(deletes)
	return strings.Join(creates, "|") + "##" + strings.Join(deletes, "|")
}

// restKey identifies everything the rules compare exactly, besides the
// nodes, which upstream's own predicate decides the same way every run.
func restKey(p *schema.Plan) string {
	b, _ := json.Marshal([]any{p.Adopt, p.Release, p.Relabel, p.Revisions, p.Status, p.RolloutStatus, len(p.Errors) > 0})
	return string(b)
}

// compare reports how got (daemonplan's plan, JSON) departs from exp: the
// fewest differences over the expectation and its groups, each compared with
// conformance.Compare.
func (exp *expectation) compare(got []byte) ([]string, error) {
	var best []string
	for i, e := range append([]conformance.Expected{exp.Expected}, exp.Groups...) {
		b, err := json.Marshal(e)
		if err != nil {
			return nil, err
		}
		if d := conformance.Compare(b, got); i == 0 || len(d) < len(best) {
			best = d
		}
	}
	return best, nil
}

// expectedKeys are the keys of an expected.json: the conformance schema
// (schema.Plan up to "errors") and what conformance.Expected and expectation
// add. The rest of schema.Plan is daemonplan's, which upstream runs never
// fill.
var expectedKeys = []string{
	"daemonSet", "nodes", "create", "delete", "adopt", "release", "relabel", "revisions",
	"status", "rolloutStatus", "errors", "deterministic", "alternatives", "unmapped", "groups",
}

// marshal renders exp as an expected.json: the keys in the order of the
// recorded cases, indented as they are.
func (exp *expectation) marshal() ([]byte, error) {
	groups := make([]json.RawMessage, 0, len(exp.Groups))
	for _, g := range exp.Groups {
		b, err := trimmed(g, nil)
		if err != nil {
			return nil, err
		}
		groups = append(groups, b)
	}
	var extra map[string]any
	if len(groups) > 0 {
		extra = map[string]any{"groups": groups}
	}
	b, err := trimmed(exp.Expected, extra)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// trimmed is v and extra as one JSON object with only expectedKeys, in that
// order.
func trimmed(v any, extra map[string]any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, x := range extra {
		if m[k], err = json.Marshal(x); err != nil {
			return nil, err
		}
	}
	var out bytes.Buffer
	out.WriteByte('{')
	for _, k := range expectedKeys {
		raw, ok := m[k]
		if !ok {
			continue
		}
		if out.Len() > 1 {
			out.WriteByte(',')
		}
		key, _ := json.Marshal(k)
		out.Write(key)
		out.WriteByte(':')
		out.Write(raw)
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}
