package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/kube/nodepool"
	"github.com/daemonplan/daemonplan/overhead"
	"github.com/daemonplan/daemonplan/placement"
)

// templateDoc is the JSON document of "overhead --nodepool -o json".
type templateDoc struct {
	NodePools []templatePool `json:"nodePools"`
}

type templatePool struct {
	Name          string             `json:"name"`
	DaemonSets    []templateEntry    `json:"daemonSets"`
	Overhead      templateOverhead   `json:"overhead"`
	InstanceTypes []templateInstance `json:"instanceTypes,omitempty"`
}

type templateEntry struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Lands is Every, None or Depends.
	Lands string `json:"lands"`
	// Reason is why None (placement's reasons), Eligible otherwise.
	Reason string `json:"reason"`
	// Why renders Reason with its key or taint, for None.
	Why string `json:"why,omitempty"`
	// Where lists, for Depends, the alternatives: the pod lands where
	// every requirement of one of them holds.
	Where [][]string `json:"where,omitempty"`
	Keys  []string   `json:"keys,omitempty"`
	// StartupTaint is the startup taint the pod waits for, if any.
	StartupTaint string            `json:"startupTaint,omitempty"`
	Requests     map[string]string `json:"requests"`
	HostPorts    []string          `json:"hostPorts,omitempty"`
}

type templateOverhead struct {
	Every  map[string]string `json:"every"`
	AtMost map[string]string `json:"atMost"`
	Pods   int               `json:"pods"`
}

type templateInstance struct {
	Name string `json:"name"`
	// NoNode names the label key on which the type contradicts the
	// NodePool: it launches no node of this type.
	NoNode        string              `json:"noNode,omitempty"`
	DaemonSets    []templateTypeEntry `json:"daemonSets,omitempty"`
	Overhead      *templateOverhead   `json:"overhead,omitempty"`
	Allocatable   map[string]string   `json:"allocatable,omitempty"`
	Left          map[string]string   `json:"left,omitempty"`
	Fits          *bool               `json:"fits,omitempty"`
	Insufficient  []string            `json:"insufficient,omitempty"`
	PortConflicts []templatePortClash `json:"portConflicts,omitempty"`
}

type templateTypeEntry struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Lands     string `json:"lands"`
}

type templatePortClash struct {
	Port   string `json:"port"`
	First  string `json:"first"`
	Second string `json:"second"`
}

// overheadNodePools runs "overhead --nodepool".
func (c *cli) overheadNodePools(o overheadOptions, objs *load.Objects, src string) error {
	data, err := os.ReadFile(o.nodePool)
	if err != nil {
		return c.fail("overhead: --nodepool: %v", err)
	}
	pools, err := nodepool.Read(o.nodePool, data)
	if err != nil {
		return c.fail("overhead: --nodepool %v", err)
	}
	if len(pools) == 0 {
		return c.fail("overhead: --nodepool %s: no NodePool", o.nodePool)
	}
	var types []overhead.InstanceType
	if o.instanceTypes != "" {
		data, err := os.ReadFile(o.instanceTypes)
		if err != nil {
			return c.fail("overhead: --instance-types: %v", err)
		}
		if types, err = nodepool.ReadInstanceTypes(o.instanceTypes, data); err != nil {
			return c.fail("overhead: --instance-types %v", err)
		}
	}
	set, err := overheadSet(objs)
	if err != nil {
		return c.fail("overhead: %s: %v", src, err)
	}
	c.warnUnmodelled(objs)
	c.warnRefusals(set)
	doc := templateDoc{NodePools: []templatePool{}}
	for _, np := range pools {
		plan, err := set.PlanTemplate(&np.Template, types)
		if err != nil {
			// Malformed instance types, or a DaemonSet too costly to
			// decide (overhead.MaxTemplateSteps, docs/never-harm.md N15).
			if o.instanceTypes == "" {
				return c.fail("overhead: NodePool %s: %v", np.Name, err)
			}
			return c.fail("overhead: NodePool %s with --instance-types %s: %v", np.Name, o.instanceTypes, err)
		}
		doc.NodePools = append(doc.NodePools, templatePoolDoc(set, np.Name, plan, types))
	}
	if o.output == "json" {
		return c.writeJSON("overhead", doc)
	}
	return writeTemplateTable(c.stdout, doc)
}

func templatePoolDoc(set *overhead.Catalog, name string, plan overhead.TemplatePlan, types []overhead.InstanceType) templatePool {
	p := templatePool{Name: name, Overhead: overheadDocOf(plan.Overhead)}
	for _, e := range plan.DaemonSets {
		te := templateEntry{
			Namespace: e.Namespace, Name: e.Name, Lands: e.Answer.String(), Reason: e.Reason.String(),
			Keys: e.Keys, Requests: quantities(e.Requests),
		}
		if e.Answer == overhead.None {
			te.Why = whyNone(e.TemplateAnswer)
		}
		if len(e.Refused) > 0 {
			// The API server refuses the pod: it lands on no node, and
			// the totals leave it out (docs/overhead.md, AD6).
			te.Lands, te.Reason, te.Where = overhead.None.String(), "RefusedByAdmission", nil
			te.Why = "the API server refuses its pods (" + strings.TrimPrefix(e.Refused[0].Field[strings.Index(e.Refused[0].Field, "]")+1:], ".") + ")"
		}
		for _, w := range e.Where {
			var alt []string
			for _, r := range w {
				alt = append(alt, overhead.RequirementString(r))
			}
			te.Where = append(te.Where, alt)
		}
		if e.StartupTaint != nil && len(e.Refused) == 0 {
			te.StartupTaint = e.StartupTaint.String()
		}
		for _, hp := range e.HostPorts {
			te.HostPorts = append(te.HostPorts, portString(hp))
		}
		p.DaemonSets = append(p.DaemonSets, te)
	}
	for i, it := range plan.InstanceTypes {
		ti := templateInstance{Name: it.Name, NoNode: it.NoNode}
		if it.NoNode == "" {
			ov := overheadDocOf(it.Overhead)
			fits := it.Fits
			ti.Overhead, ti.Fits, ti.Insufficient = &ov, &fits, it.Insufficient
			ti.Allocatable, ti.Left = quantities(types[i].Allocatable), quantities(it.Left)
			for j, a := range it.Answers {
				d := set.Daemon(j)
				lands := a.Answer.String()
				if len(d.Refused) > 0 {
					lands = overhead.None.String()
				}
				ti.DaemonSets = append(ti.DaemonSets, templateTypeEntry{Namespace: d.Namespace, Name: d.Name, Lands: lands})
			}
			for _, pc := range it.PortConflicts {
				a, b := set.Daemon(pc.First), set.Daemon(pc.Second)
				ti.PortConflicts = append(ti.PortConflicts, templatePortClash{Port: portString(pc.Port), First: a.Namespace + "/" + a.Name, Second: b.Namespace + "/" + b.Name})
			}
		}
		p.InstanceTypes = append(p.InstanceTypes, ti)
	}
	return p
}

func overheadDocOf(o overhead.Totals) templateOverhead {
	return templateOverhead{Every: quantities(o.Every), AtMost: quantities(o.AtMost), Pods: o.Pods}
}

// whyNone renders why a pod lands on no node of a template.
func whyNone(a overhead.TemplateAnswer) string {
	switch a.Reason {
	case placement.NodeNameMismatch:
		return "template spec.nodeName names another node"
	case placement.NodeSelectorMismatch:
		return "no node matches nodeSelector key " + a.Key
	case placement.NodeAffinityMismatch:
		return "no node matches a required node affinity term"
	case placement.UntoleratedNoExecute, placement.UntoleratedNoSchedule:
		return "untolerated taint " + a.Taint.String()
	}
	return "the NodePool launches no node"
}

func writeTemplateTable(w io.Writer, doc templateDoc) error {
	t := newTable(w, 2)
	t.row("NODEPOOL", "DAEMONSET", "LANDS", "WHERE / WHY", "STARTUP", "REQUESTS")
	for _, p := range doc.NodePools {
		for _, e := range p.DaemonSets {
			where := e.Why
			if e.Lands == overhead.Depends.String() {
				var alts []string
				for _, alt := range e.Where {
					alts = append(alts, strings.Join(alt, ", "))
				}
				where = strings.Join(alts, " | ")
			}
			startup := "-"
			if e.StartupTaint != "" {
				startup = "after " + e.StartupTaint
			}
			t.row(p.Name, e.Namespace+"/"+e.Name, e.Lands, dash(where), startup, listString(e.Requests))
		}
		t.row(p.Name, "EVERY NODE", "", "", "", listString(p.Overhead.Every))
		t.row(p.Name, fmt.Sprintf("AT MOST (%d pods)", p.Overhead.Pods), "", "", "", listString(p.Overhead.AtMost))
	}
	if hasTypes(doc) {
		t.blank()
		t.row("NODEPOOL", "INSTANCE TYPE", "DAEMON PODS", "DAEMON REQUESTS", "LEFT OF ALLOCATABLE", "FITS")
		for _, p := range doc.NodePools {
			for _, it := range p.InstanceTypes {
				if it.NoNode != "" {
					t.row(p.Name, it.Name, "-", "no node: conflicts on "+it.NoNode, "-", "-")
					continue
				}
				fits := fmt.Sprint(*it.Fits)
				var why []string
				why = append(why, it.Insufficient...)
				for _, pc := range it.PortConflicts {
					why = append(why, "port "+pc.Port+" of "+pc.First+" and "+pc.Second)
				}
				if len(why) > 0 {
					fits += " (" + strings.Join(why, ",") + ")"
				}
				pods := fmt.Sprint(it.Overhead.Pods)
				if listString(it.Overhead.Every) != listString(it.Overhead.AtMost) {
					pods += " at most"
				}
				t.row(p.Name, it.Name, pods, listString(it.Overhead.AtMost), listString(it.Left), fits)
			}
		}
	}
	return t.flush()
}

func hasTypes(doc templateDoc) bool {
	for _, p := range doc.NodePools {
		if len(p.InstanceTypes) > 0 {
			return true
		}
	}
	return false
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
