package cli

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/daemonplan/daemonplan/admission"
	"github.com/daemonplan/daemonplan/field"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/overhead"
)

// admissionRules compiles the LimitRanges, PriorityClasses and
// RuntimeClasses of objs; nil, with no error, when there are none, so that
// the DaemonSets are taken as written (docs/overhead.md, AD1–AD7). A bad
// object is an error naming where it was found and the field.
func admissionRules(objs *load.Objects) (*admission.Rules, error) {
	if len(objs.LimitRanges)+len(objs.PriorityClasses)+len(objs.RuntimeClasses) == 0 {
		return nil, nil
	}
	in, err := convert.AdmissionObjects(objs.LimitRanges, objs.PriorityClasses, objs.RuntimeClasses)
	if err != nil {
		return nil, err
	}
	rules, err := admission.Compile(in)
	if err == nil {
		return rules, nil
	}
	errs, ok := err.(field.ErrorList)
	if !ok {
		return nil, err
	}
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = admissionObjectAt(objs, e)
	}
	return nil, fmt.Errorf("%s", strings.Join(msgs, "; "))
}

var admissionPath = regexp.MustCompile(`^(limitRanges|priorityClasses|runtimeClasses)\[([0-9]+)\]\.?`)

// admissionObjectAt renders e with the position of the object its path
// names: "in.yaml: YAML document 2 (scheduling.k8s.io/v1 PriorityClass
// high): preemptionPolicy: Unsupported value: ...".
func admissionObjectAt(objs *load.Objects, e *field.Error) string {
	m := admissionPath.FindStringSubmatch(e.Field)
	if m == nil {
		return e.Error()
	}
	i, _ := strconv.Atoi(m[2])
	var at load.Position
	var kind, name string
	switch m[1] {
	case "limitRanges":
		at, kind, name = objs.At.LimitRanges[i], "LimitRange", objs.LimitRanges[i].Namespace+"/"+objs.LimitRanges[i].Name
	case "priorityClasses":
		at, kind, name = objs.At.PriorityClasses[i], "PriorityClass", objs.PriorityClasses[i].Name
	default:
		at, kind, name = objs.At.RuntimeClasses[i], "RuntimeClass", objs.RuntimeClasses[i].Name
	}
	c := *e
	c.Field = strings.TrimPrefix(e.Field, m[0])
	return fmt.Sprintf("%s (%s %s): %s", at, kind, name, c.Error())
}

// warnUnmodelled says which admission objects of objs do more than
// daemonplan models: a RuntimeClass's scheduling (docs/overhead.md, AD7).
func (c *cli) warnUnmodelled(objs *load.Objects) { c.warnUnmodelledFor("overhead", objs) }

// warnUnmodelledFor is warnUnmodelled for command cmd.
func (c *cli) warnUnmodelledFor(cmd string, objs *load.Objects) {
	for i, rc := range objs.RuntimeClasses {
		if s := rc.Scheduling; s != nil && (len(s.NodeSelector) > 0 || len(s.Tolerations) > 0) {
			fmt.Fprintf(c.stderr, "warning: %s: %s (RuntimeClass %s): scheduling.nodeSelector and tolerations are not modelled: pods of this class may not fit where said\n", cmd, objs.At.RuntimeClasses[i], rc.Name)
		}
	}
}

// warnRefusals says, per DaemonSet whose pods the API server would refuse,
// why: such a pod is never created, and overhead counts it nowhere.
func (c *cli) warnRefusals(set *overhead.Catalog) {
	for i := range set.Len() {
		d := set.Daemon(i)
		for _, e := range d.Refused {
			r := *e
			if j := strings.Index(r.Field, "].spec."); j >= 0 && strings.HasPrefix(r.Field, "daemonSets[") {
				r.Field = r.Field[j+2:]
			}
			fmt.Fprintf(c.stderr, "warning: overhead: DaemonSet %s/%s: the API server refuses its pods: %s\n", d.Namespace, d.Name, oneLine(r.Error()))
		}
	}
}
