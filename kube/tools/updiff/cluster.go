package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
)

// cluster is one case: cluster.json decoded, and the instant of the sync.
type cluster struct {
	DS        *apps.DaemonSet
	Nodes     []*v1.Node
	Pods      []*v1.Pod
	Revisions []*apps.ControllerRevision
	Now       time.Time
}

// readCluster reads cluster.json and now.txt from dir; unlike
// conformance.ReadCase it needs no expected.json, which a cluster has not
// yet when it is generated.
func readCluster(dir string) (*cluster, error) {
	b, err := os.ReadFile(filepath.Join(dir, "cluster.json"))
	if err != nil {
		return nil, err
	}
	nb, err := os.ReadFile(filepath.Join(dir, "now.txt"))
	if err != nil {
		return nil, err
	}
	now, err := time.Parse(time.RFC3339, strings.TrimSpace(string(nb)))
	if err != nil {
		return nil, fmt.Errorf("%s/now.txt: %w", dir, err)
	}
	return decodeCluster(b, now)
}

// decodeCluster decodes a kubectl List of one DaemonSet and its nodes, pods
// and revisions.
func decodeCluster(list []byte, now time.Time) (*cluster, error) {
	var l struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(list, &l); err != nil {
		return nil, err
	}
	c := &cluster{Now: now}
	dec := scheme.Codecs.UniversalDeserializer()
	for _, raw := range l.Items {
		obj, _, err := dec.Decode(raw, nil, nil)
		if err != nil {
			return nil, err
		}
		switch o := obj.(type) {
		case *apps.DaemonSet:
			if c.DS != nil {
				return nil, errors.New("cluster: two DaemonSets")
			}
			c.DS = o
		case *v1.Node:
			c.Nodes = append(c.Nodes, o)
		case *v1.Pod:
			c.Pods = append(c.Pods, o)
		case *apps.ControllerRevision:
			if o.Data.Raw, err = canonicalJSON(o.Data.Raw); err != nil {
				return nil, fmt.Errorf("cluster: revision %s: %w", o.Name, err)
			}
			o.Data.Object = nil
			c.Revisions = append(c.Revisions, o)
		default:
			return nil, fmt.Errorf("cluster: unexpected %T", obj)
		}
	}
	if c.DS == nil {
		return nil, errors.New("cluster: no DaemonSet")
	}
	return c, nil
}

// canonicalJSON re-encodes a revision's data as encoding/json does (sorted
// keys, compact, HTML-escaped), the bytes the controller sent and an API
// server stores. kubectl prints it indented, and upstream compares the bytes
// with its own encoding of the template (Match), so reading the printed form
// as is would make every revision miss.
func canonicalJSON(raw []byte) ([]byte, error) {
	if len(raw) == 0 {
		return raw, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

// writeCluster writes c as cluster.json and now.txt into dir, without the
// duplicate objects mutations may have made (an API server has one object
// per name).
func writeCluster(c *cluster, dir string) error {
	dedupe(c)
	items := []runtime.Object{withKind(c.DS.DeepCopy(), "apps/v1", "DaemonSet")}
	for _, n := range c.Nodes {
		items = append(items, withKind(n.DeepCopy(), "v1", "Node"))
	}
	for _, p := range c.Pods {
		items = append(items, withKind(p.DeepCopy(), "v1", "Pod"))
	}
	for _, r := range c.Revisions {
		items = append(items, withKind(r.DeepCopy(), "apps/v1", "ControllerRevision"))
	}
	b, err := json.MarshalIndent(map[string]any{"apiVersion": "v1", "kind": "List", "items": items}, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "cluster.json"), b, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "now.txt"), []byte(c.Now.UTC().Format(time.RFC3339)+"\n"), 0o644)
}

func withKind(o runtime.Object, apiVersion, kind string) runtime.Object {
	o.GetObjectKind().SetGroupVersionKind(k8sschema.FromAPIVersionAndKind(apiVersion, kind))
	return o
}

// dedupe keeps the first object of each kind, namespace and name.
func dedupe(c *cluster) {
	seen := map[string]bool{}
	first := func(kind, ns, name string) bool {
		k := kind + "/" + ns + "/" + name
		if seen[k] {
			return false
		}
		seen[k] = true
		return true
	}
	c.Nodes = keep(c.Nodes, func(n *v1.Node) bool { return first("node", "", n.Name) })
	c.Pods = keep(c.Pods, func(p *v1.Pod) bool { return first("pod", p.Namespace, p.Name) })
	c.Revisions = keep(c.Revisions, func(r *apps.ControllerRevision) bool { return first("revision", r.Namespace, r.Name) })
}

// keep returns the elements of xs for which ok holds, reusing xs.
func keep[T any](xs []T, ok func(T) bool) []T {
	out := xs[:0]
	for _, x := range xs {
		if ok(x) {
			out = append(out, x)
		}
	}
	return out
}

func (c *cluster) clone() *cluster {
	o := &cluster{DS: c.DS.DeepCopy(), Now: c.Now}
	for _, n := range c.Nodes {
		o.Nodes = append(o.Nodes, n.DeepCopy())
	}
	for _, p := range c.Pods {
		o.Pods = append(o.Pods, p.DeepCopy())
	}
	for _, r := range c.Revisions {
		o.Revisions = append(o.Revisions, r.DeepCopy())
	}
	return o
}
