package nodepool

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/overhead"
	"github.com/daemonplan/daemonplan/selector"
)

// APIVersion is the only NodePool version read.
const APIVersion = "karpenter.sh/v1"

// LabelNodePool is the label Karpenter puts on every node of a NodePool,
// its value the NodePool's name.
const LabelNodePool = "karpenter.sh/nodepool"

// NodePool is one Karpenter NodePool as daemon placement sees it.
type NodePool struct {
	Name string
	// Template is every node the NodePool may launch: the template's
	// labels plus karpenter.sh/nodepool, its requirements (minValues, which
	// only asks for a spread of instance types, plays no part), its taints
	// and startup taints.
	Template overhead.NodeTemplate
}

// The file format, as karpenter.sh/v1 writes it. What daemon placement
// reads is typed and decoded strictly; the rest is kept raw, unread.
type nodePoolObject struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Metadata   objectMeta      `json:"metadata"`
	Spec       nodePoolSpec    `json:"spec"`
	Status     json.RawMessage `json:"status,omitempty"`
}

type objectMeta struct {
	Name string `json:"name"`
	// The rest of metadata is not read.
	Namespace                  json.RawMessage `json:"namespace,omitempty"`
	UID                        json.RawMessage `json:"uid,omitempty"`
	ResourceVersion            json.RawMessage `json:"resourceVersion,omitempty"`
	Generation                 json.RawMessage `json:"generation,omitempty"`
	CreationTimestamp          json.RawMessage `json:"creationTimestamp,omitempty"`
	DeletionTimestamp          json.RawMessage `json:"deletionTimestamp,omitempty"`
	DeletionGracePeriodSeconds json.RawMessage `json:"deletionGracePeriodSeconds,omitempty"`
	Labels                     json.RawMessage `json:"labels,omitempty"`
	Annotations                json.RawMessage `json:"annotations,omitempty"`
	OwnerReferences            json.RawMessage `json:"ownerReferences,omitempty"`
	Finalizers                 json.RawMessage `json:"finalizers,omitempty"`
	ManagedFields              json.RawMessage `json:"managedFields,omitempty"`
	SelfLink                   json.RawMessage `json:"selfLink,omitempty"`
	GenerateName               json.RawMessage `json:"generateName,omitempty"`
}

type nodePoolSpec struct {
	Template   nodeClaimTemplate `json:"template"`
	Disruption json.RawMessage   `json:"disruption,omitempty"`
	Limits     json.RawMessage   `json:"limits,omitempty"`
	Weight     json.RawMessage   `json:"weight,omitempty"`
	Replicas   json.RawMessage   `json:"replicas,omitempty"`
}

type nodeClaimTemplate struct {
	Metadata struct {
		Labels      map[string]string `json:"labels,omitempty"`
		Annotations json.RawMessage   `json:"annotations,omitempty"`
	} `json:"metadata"`
	Spec struct {
		Requirements           []requirement   `json:"requirements"`
		Taints                 []corev1.Taint  `json:"taints,omitempty"`
		StartupTaints          []corev1.Taint  `json:"startupTaints,omitempty"`
		NodeClassRef           json.RawMessage `json:"nodeClassRef,omitempty"`
		ExpireAfter            json.RawMessage `json:"expireAfter,omitempty"`
		TerminationGracePeriod json.RawMessage `json:"terminationGracePeriod,omitempty"`
	} `json:"spec"`
}

// requirement is a Karpenter requirement: a node selector requirement
// with minValues.
type requirement struct {
	Key       string   `json:"key"`
	Operator  string   `json:"operator"`
	Values    []string `json:"values,omitempty"`
	MinValues *int     `json:"minValues,omitempty"`
}

func (r requirement) selector() selector.Requirement {
	return selector.Requirement{Key: r.Key, Operator: api.SelectorOperator(r.Operator), Values: r.Values}
}

type list struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   json.RawMessage   `json:"metadata,omitempty"`
	Items      []json.RawMessage `json:"items"`
}

type header struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// Read returns the NodePools of a YAML or JSON stream (src names it in
// errors), sorted by name: one per document, or the items of a List. Any
// other kind, another version, an unknown or repeated field, a malformed
// requirement or taint, or two NodePools of one name is an error naming
// the document, item and field path.
func Read(src string, data []byte) ([]NodePool, error) {
	var out []NodePool
	err := documents(data, func(doc int, raw []byte) error {
		at := fmt.Sprintf("%s: YAML document %d", src, doc)
		var h header
		if err := json.Unmarshal(raw, &h); err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
		if h.Kind == "List" || strings.HasSuffix(h.Kind, "List") {
			var l list
			if err := strictUnmarshal(raw, &l); err != nil {
				return fmt.Errorf("%s: %w", at, err)
			}
			for i, item := range l.Items {
				np, err := decode(item)
				if err != nil {
					return fmt.Errorf("%s: items[%d]: %w", at, i, err)
				}
				out = append(out, np)
			}
			return nil
		}
		np, err := decode(raw)
		if err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
		out = append(out, np)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b NodePool) int { return strings.Compare(a.Name, b.Name) })
	for i := 1; i < len(out); i++ {
		if out[i].Name == out[i-1].Name {
			return nil, fmt.Errorf("%s: NodePool %q given twice", src, out[i].Name)
		}
	}
	return out, nil
}

// decode reads one NodePool object.
func decode(raw []byte) (NodePool, error) {
	var h header
	if err := json.Unmarshal(raw, &h); err != nil {
		return NodePool{}, err
	}
	if h.Kind != "NodePool" {
		return NodePool{}, fmt.Errorf("kind %q: want NodePool", h.Kind)
	}
	if h.APIVersion != APIVersion {
		return NodePool{}, fmt.Errorf("apiVersion %q: want %s (convert older NodePools first)", h.APIVersion, APIVersion)
	}
	var o nodePoolObject
	if err := strictUnmarshal(raw, &o); err != nil {
		return NodePool{}, err
	}
	if o.Metadata.Name == "" {
		return NodePool{}, field.Required(field.NewPath("metadata", "name"), "")
	}
	name := "NodePool " + o.Metadata.Name
	tpl := overhead.NodeTemplate{Labels: map[string]string{}}
	for k, v := range o.Spec.Template.Metadata.Labels {
		tpl.Labels[k] = v
	}
	if v, ok := tpl.Labels[LabelNodePool]; ok && v != o.Metadata.Name {
		return NodePool{}, fmt.Errorf("%s: %w", name, field.Invalid(field.NewPath("spec", "template", "metadata", "labels").Key(LabelNodePool), v, "Karpenter sets it to the NodePool's name"))
	}
	tpl.Labels[LabelNodePool] = o.Metadata.Name
	var errs field.ErrorList
	for i, r := range o.Spec.Template.Spec.Requirements {
		if r.MinValues != nil && *r.MinValues < 1 {
			errs = append(errs, field.Invalid(field.NewPath("spec", "template", "spec", "requirements").Index(i).Child("minValues"), *r.MinValues, "must be at least 1"))
		}
		tpl.Requirements = append(tpl.Requirements, r.selector())
	}
	tpl.Taints = taints(o.Spec.Template.Spec.Taints)
	tpl.StartupTaints = taints(o.Spec.Template.Spec.StartupTaints)
	if _, err := overhead.CompileTemplate(&tpl); err != nil {
		var fl field.ErrorList
		if errors.As(err, &fl) {
			errs = append(errs, fl.Prefix("spec.template.spec")...)
		} else {
			return NodePool{}, fmt.Errorf("%s: %w", name, err)
		}
	}
	if len(errs) > 0 {
		return NodePool{}, fmt.Errorf("%s: %w", name, errs)
	}
	return NodePool{Name: o.Metadata.Name, Template: tpl}, nil
}

func taints(ts []corev1.Taint) []api.Taint {
	var out []api.Taint
	for _, t := range ts {
		out = append(out, api.Taint{Key: t.Key, Value: t.Value, Effect: api.TaintEffect(t.Effect)})
	}
	return out
}

// documents calls f with each non-empty document of a YAML (or JSON)
// stream as JSON, counting from 1.
func documents(data []byte, f func(doc int, raw []byte) error) error {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for doc := 1; ; doc++ {
		chunk, err := reader.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("YAML document %d: %w", doc, err)
		}
		raw, err := yaml.YAMLToJSONStrict(chunk)
		if err != nil {
			return fmt.Errorf("YAML document %d: %w", doc, err)
		}
		if t := bytes.TrimSpace(raw); len(t) == 0 || string(t) == "null" {
			continue
		}
		if err := f(doc, raw); err != nil {
			return err
		}
	}
}

// strictUnmarshal decodes as the API server's strict field validation
// does: an unknown or repeated field is an error.
func strictUnmarshal(data []byte, v any) error {
	strict, err := sigsjson.UnmarshalStrict(data, v, sigsjson.DisallowDuplicateFields, sigsjson.DisallowUnknownFields)
	if err != nil {
		return err
	}
	if len(strict) > 0 {
		return strict[0]
	}
	return nil
}

// instanceTypeFile is the instance-type list format.
type instanceTypeFile struct {
	InstanceTypes []instanceType `json:"instanceTypes"`
}

type instanceType struct {
	Name         string              `json:"name"`
	Labels       map[string]string   `json:"labels,omitempty"`
	Requirements []requirement       `json:"requirements,omitempty"`
	Capacity     corev1.ResourceList `json:"capacity,omitempty"`
	Allocatable  corev1.ResourceList `json:"allocatable,omitempty"`
}

// ReadInstanceTypes reads an instance-type list (src names it in errors):
// one YAML or JSON document holding instanceTypes, each with a name (unique),
// labels or requirements (In, NotIn, Exists, DoesNotExist, Gt, Lt, as in a
// NodePool), capacity and allocatable. Allocatable defaults to capacity.
// The order is kept.
func ReadInstanceTypes(src string, data []byte) ([]overhead.InstanceType, error) {
	var f instanceTypeFile
	n := 0
	err := documents(data, func(doc int, raw []byte) error {
		n++
		if n > 1 {
			return fmt.Errorf("%s: YAML document %d: want one document", src, doc)
		}
		if err := strictUnmarshal(raw, &f); err != nil {
			return fmt.Errorf("%s: YAML document %d: %w", src, doc, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(f.InstanceTypes) == 0 {
		return nil, fmt.Errorf("%s: instanceTypes: none given", src)
	}
	seen := map[string]bool{}
	out := make([]overhead.InstanceType, len(f.InstanceTypes))
	for i, it := range f.InstanceTypes {
		p := field.NewPath("instanceTypes").Index(i)
		if it.Name == "" {
			return nil, fmt.Errorf("%s: %w", src, field.Required(p.Child("name"), ""))
		}
		if seen[it.Name] {
			return nil, fmt.Errorf("%s: %w", src, field.Duplicate(p.Child("name"), it.Name))
		}
		seen[it.Name] = true
		o := overhead.InstanceType{Name: it.Name, Labels: it.Labels}
		for _, r := range it.Requirements {
			o.Requirements = append(o.Requirements, r.selector())
		}
		if o.Capacity, err = convert.ResourceList(it.Capacity); err != nil {
			return nil, fmt.Errorf("%s: %s%w", src, p.Child("capacity"), err)
		}
		alloc := it.Allocatable
		if alloc == nil {
			alloc = it.Capacity
		}
		if o.Allocatable, err = convert.ResourceList(alloc); err != nil {
			return nil, fmt.Errorf("%s: %s%w", src, p.Child("allocatable"), err)
		}
		out[i] = o
	}
	return out, nil
}
