package revision

import (
	"encoding/binary"
	"encoding/json"
	"hash/fnv"
	"strconv"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/resource"
)

// HashFunc names new revisions: [Construct] creates the current revision as
// "<ds.Name>-<HashFunc(ds, ds.Status.CollisionCount)>". A HashFunc must be
// deterministic and must not change ds. collisionCount is nil when the
// DaemonSet has never seen a name collision.
//
// The hash only names revisions: whether a revision holds the current
// template is decided by comparing Data with [TemplateData] (docs/history.md,
// H3).
type HashFunc func(ds *api.DaemonSet, collisionCount *int32) string

// safeAlphabet is the alphabet of upstream's rand.SafeEncodeString: no
// vowels and no look-alike characters.
const safeAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// SafeEncode renders n as upstream names revisions and pods: the decimal
// digits of n, each digit d replaced by safeAlphabet[rune(d) % 27]. The
// result has 1 to 10 characters from "456789bcdf" (0→4 … 5→9, 6→b, 7→c,
// 8→d, 9→f).
func SafeEncode(n uint32) string {
	digits := strconv.FormatUint(uint64(n), 10)
	out := make([]byte, len(digits))
	for i := 0; i < len(digits); i++ {
		out[i] = safeAlphabet[int(digits[i])%len(safeAlphabet)]
	}
	return string(out)
}

// DefaultHash is the [HashFunc] used when [Options.Hash] is nil. It computes
// FNV-1a (32 bit) over TemplateData(ds); when collisionCount is non-nil it
// also hashes 8 more bytes, the count as a little-endian uint32 followed by
// four zero bytes, as upstream's ComputeHash does (docs/history.md, H5). The sum is
// rendered with [SafeEncode].
//
// Upstream hashes a Go-struct dump of the API template rather than the
// stored bytes, so DefaultHash names revisions differently from a real
// cluster; the kube module supplies that exact hash.
//
// ds must not be nil: DefaultHash panics on a nil DaemonSet.
func DefaultHash(ds *api.DaemonSet, collisionCount *int32) string {
	if ds == nil {
		panic("revision.DefaultHash: nil DaemonSet")
	}
	h := fnv.New32a()
	h.Write(TemplateData(ds))
	if collisionCount != nil {
		var b [8]byte
		binary.LittleEndian.PutUint32(b[:4], uint32(*collisionCount))
		h.Write(b[:])
	}
	return SafeEncode(h.Sum32())
}

// TemplateData returns the content a revision of ds stores (its Data).
//
// When ds.TemplateData is non-nil a copy of it is returned unchanged. Else
// the content is derived from ds.Template with a canonical encoding that
// mimics the shape of upstream's getPatch (docs/history.md, H2) for the fields a
// PodTemplate holds:
//
//	{"spec":{"template":{"$patch":"replace","metadata":{...},"spec":{...}}}}
//
// The encoding rules:
//
//  1. JSON with object keys sorted at every level and no insignificant
//     whitespace (encoding/json of maps, HTML characters escaped).
//  2. metadata holds "labels" and "annotations", each only when non-empty
//     (nil and empty maps encode alike).
//  3. spec holds "nodeName", "nodeSelector", "hostNetwork" (only when true),
//     "restartPolicy", "activeDeadlineSeconds" (when non-nil, even 0),
//     "tolerations" (in order; each with "key", "operator", "value",
//     "effect" when non-empty and "tolerationSeconds" when non-nil) and
//     "affinity" → "nodeAffinity" →
//     "requiredDuringSchedulingIgnoredDuringExecution" →
//     "nodeSelectorTerms" when RequiredNodeAffinity is non-nil (the term
//     list is always written, so that a nil selector and a selector with
//     no terms differ; each term holds "matchExpressions" and
//     "matchFields" when non-empty, each requirement "key", "operator" and
//     "values"). Empty strings, maps and lists are left out.
//  4. spec also holds "containers" and "initContainers" when non-empty,
//     each container with "name", "image", "restartPolicy", "ports" (each
//     with "name", "containerPort", "hostPort", "protocol", "hostIP") and
//     "resources" ("requests" and "limits", each a map of names to
//     quantities as Quantity.String prints them); "overhead" (such a map)
//     and "resources" (pod-level, as for a container). Empty and zero
//     fields are left out, so a template without containers encodes as it
//     did before containers were modelled.
//  5. Lists keep their order: reordering tolerations or containers makes a
//     new revision, as it does upstream.
//
// ds must not be nil: TemplateData panics on a nil DaemonSet.
func TemplateData(ds *api.DaemonSet) []byte {
	if ds == nil {
		panic("revision.TemplateData: nil DaemonSet")
	}
	if ds.TemplateData != nil {
		return append([]byte{}, ds.TemplateData...)
	}
	return canonicalTemplate(&ds.Template)
}

func canonicalTemplate(t *api.PodTemplate) []byte {
	meta := map[string]any{}
	putMap(meta, "labels", t.Labels)
	putMap(meta, "annotations", t.Annotations)

	spec := map[string]any{}
	putString(spec, "nodeName", t.NodeName)
	putMap(spec, "nodeSelector", t.NodeSelector)
	if t.HostNetwork {
		spec["hostNetwork"] = true
	}
	putString(spec, "restartPolicy", t.RestartPolicy)
	if t.ActiveDeadlineSeconds != nil {
		spec["activeDeadlineSeconds"] = *t.ActiveDeadlineSeconds
	}
	if len(t.Tolerations) > 0 {
		spec["tolerations"] = encodeTolerations(t.Tolerations)
	}
	if len(t.Containers) > 0 {
		spec["containers"] = encodeContainers(t.Containers)
	}
	if len(t.InitContainers) > 0 {
		spec["initContainers"] = encodeContainers(t.InitContainers)
	}
	putList(spec, "overhead", t.Overhead)
	putResources(spec, t.Resources)
	putString(spec, "priorityClassName", t.PriorityClassName)
	if t.Priority != nil {
		spec["priority"] = *t.Priority
	}
	putString(spec, "preemptionPolicy", t.PreemptionPolicy)
	putString(spec, "runtimeClassName", t.RuntimeClassName)
	if t.RequiredNodeAffinity != nil {
		spec["affinity"] = map[string]any{
			"nodeAffinity": map[string]any{
				"requiredDuringSchedulingIgnoredDuringExecution": map[string]any{
					"nodeSelectorTerms": encodeTerms(t.RequiredNodeAffinity.Terms),
				},
			},
		}
	}

	doc := map[string]any{
		"spec": map[string]any{
			"template": map[string]any{
				"$patch":   "replace",
				"metadata": meta,
				"spec":     spec,
			},
		},
	}
	b, err := json.Marshal(doc)
	if err != nil {
		// Only strings, bools, integers, maps and slices of them are encoded.
		panic("revision.TemplateData: " + err.Error())
	}
	return b
}

func putString(m map[string]any, k, v string) {
	if v != "" {
		m[k] = v
	}
}

func putMap(m map[string]any, k string, v map[string]string) {
	if len(v) > 0 {
		m[k] = v
	}
}

// putList writes a resource list as names to printed quantities, when
// non-empty.
func putList(m map[string]any, k string, l resource.List) {
	if len(l) == 0 {
		return
	}
	out := make(map[string]string, len(l))
	for name, q := range l {
		out[name] = q.String()
	}
	m[k] = out
}

// putResources writes "resources" with its requests and limits, when
// either is non-empty.
func putResources(m map[string]any, r api.Resources) {
	res := map[string]any{}
	putList(res, "requests", r.Requests)
	putList(res, "limits", r.Limits)
	if len(res) > 0 {
		m["resources"] = res
	}
}

func encodeContainers(cs []api.Container) []any {
	out := make([]any, len(cs))
	for i := range cs {
		c := &cs[i]
		m := map[string]any{}
		putString(m, "name", c.Name)
		putString(m, "image", c.Image)
		putString(m, "restartPolicy", c.RestartPolicy)
		putResources(m, c.Resources)
		if len(c.Ports) > 0 {
			ports := make([]any, len(c.Ports))
			for j, p := range c.Ports {
				pm := map[string]any{}
				putString(pm, "name", p.Name)
				if p.ContainerPort != 0 {
					pm["containerPort"] = p.ContainerPort
				}
				if p.HostPort != 0 {
					pm["hostPort"] = p.HostPort
				}
				putString(pm, "protocol", p.Protocol)
				putString(pm, "hostIP", p.HostIP)
				ports[j] = pm
			}
			m["ports"] = ports
		}
		out[i] = m
	}
	return out
}

func encodeTolerations(ts []api.Toleration) []any {
	out := make([]any, len(ts))
	for i, t := range ts {
		m := map[string]any{}
		putString(m, "key", t.Key)
		putString(m, "operator", string(t.Operator))
		putString(m, "value", t.Value)
		putString(m, "effect", string(t.Effect))
		if t.TolerationSeconds != nil {
			m["tolerationSeconds"] = *t.TolerationSeconds
		}
		out[i] = m
	}
	return out
}

func encodeTerms(terms []api.NodeSelectorTerm) []any {
	out := make([]any, len(terms))
	for i, t := range terms {
		m := map[string]any{}
		if len(t.MatchExpressions) > 0 {
			m["matchExpressions"] = encodeRequirements(t.MatchExpressions)
		}
		if len(t.MatchFields) > 0 {
			m["matchFields"] = encodeRequirements(t.MatchFields)
		}
		out[i] = m
	}
	return out
}

func encodeRequirements(rs []api.NodeSelectorRequirement) []any {
	out := make([]any, len(rs))
	for i, r := range rs {
		m := map[string]any{}
		putString(m, "key", r.Key)
		putString(m, "operator", string(r.Operator))
		if len(r.Values) > 0 {
			m["values"] = r.Values
		}
		out[i] = m
	}
	return out
}
