package convert

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/daemonplan/daemonplan/field"
	"github.com/daemonplan/daemonplan/kube/internal/yamlcost"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/rollout"
)

// KruiseGroup is the API group of OpenKruise's Advanced DaemonSet.
const KruiseGroup = "apps.kruise.io"

// The OpenKruise annotations and values read by KruiseDaemonSet.
const (
	// kruiseProgressiveCreate is v1alpha1's switch for partitioned scaling
	// (v1beta1 has spec.scaleStrategy.partitionedScaling).
	kruiseProgressiveCreate = "daemonset.kruise.io/progressive-create-pod"
	// kruisePreDownload prefixes the image pre-download annotations.
	kruisePreDownload = "apps.kruise.io/image-predownload-"
)

// Kruise is an OpenKruise Advanced DaemonSet as daemonplan plans it.
type Kruise struct {
	// DaemonSet is the Advanced DaemonSet as an apps/v1 DaemonSet: its
	// metadata, selector, template (byte for byte, so that revisions
	// match), minReadySeconds, revisionHistoryLimit, status, and its update
	// strategy's type, maxUnavailable and maxSurge. Convert it with
	// DaemonSet and hash it with HashFunc, as OpenKruise hashes it like
	// upstream does.
	DaemonSet *appsv1.DaemonSet
	// Progressive holds the OpenKruise fields daemonplan honours:
	// rollingUpdate.partition (Partition), rollingUpdate.selector (Scope),
	// rollingUpdate.paused (Pause) and partitioned scaling
	// (PartitionedScaling: scaleStrategy.partitionedScaling, or v1alpha1's
	// progressive-create-pod annotation).
	Progressive rollout.Progressive
	// BurstReplicas is spec.burstReplicas, a percentage resolved against
	// status.desiredNumberScheduled rounded down as OpenKruise does; 0 when
	// unset or 0 (placement.DefaultBurstReplicas then applies, OpenKruise's
	// default too).
	BurstReplicas int
	// Warnings name what daemonplan does not honour, each with its field
	// path: in-place update (planned as recreate), lifecycle hooks, image
	// pre-download, and any spec field it does not know. They are never
	// dropped silently.
	Warnings field.ErrorList
}

// The spec fields KruiseDaemonSet knows, by object path.
var kruiseKnown = map[string][]string{
	"spec": {"selector", "template", "updateStrategy", "minReadySeconds", "revisionHistoryLimit",
		"burstReplicas", "lifecycle", "scaleStrategy"},
	"spec.updateStrategy":               {"type", "rollingUpdate"},
	"spec.updateStrategy.rollingUpdate": {"rollingUpdateType", "maxUnavailable", "maxSurge", "selector", "partition", "paused"},
	"spec.scaleStrategy":                {"partitionedScaling"},
}

// KruiseDaemonSet reads an OpenKruise Advanced DaemonSet
// (apps.kruise.io/v1beta1 or v1alpha1), given as an unstructured object,
// without importing OpenKruise. u is not changed. The error reports an
// object of another kind or version, a field of the wrong type, or
// extension values daemonplan rejects (with their OpenKruise field paths),
// and a nil u.
func KruiseDaemonSet(u *unstructured.Unstructured) (*Kruise, error) {
	if u == nil {
		return nil, errors.New("convert: nil OpenKruise DaemonSet")
	}
	gv := u.GetAPIVersion()
	if u.GetKind() != "DaemonSet" || (gv != KruiseGroup+"/v1beta1" && gv != KruiseGroup+"/v1alpha1") {
		return nil, fmt.Errorf("convert: %s %s is not an OpenKruise DaemonSet (want %s/v1beta1 or v1alpha1)", gv, u.GetKind(), KruiseGroup)
	}
	obj, _ := copyJSON(u.Object).(map[string]any)
	k := &Kruise{}
	ru := field.NewPath("spec", "updateStrategy", "rollingUpdate")
	for path, known := range kruiseKnown {
		m, _, _ := unstructured.NestedMap(obj, strings.Split(path, ".")...)
		for _, key := range slices.Sorted(maps.Keys(m)) {
			if !slices.Contains(known, key) {
				k.Warnings = append(k.Warnings, field.NotSupported(field.NewPath(path, key), key, known...))
			}
		}
	}
	slices.SortFunc(k.Warnings, func(a, b *field.Error) int { return strings.Compare(a.Field, b.Field) })

	var errs field.ErrorList
	// Partition: v1beta1 takes an int or a percentage (an
	// *intstr.IntOrString in OpenKruise's types), v1alpha1 an int (*int32).
	partition := []string{"spec", "updateStrategy", "rollingUpdate", "partition"}
	if v, ok, err := nestedIntOrString(obj, gv == KruiseGroup+"/v1beta1", partition...); err != nil {
		errs = append(errs, field.Invalid(ru.Child("partition"), kruiseValue(obj, partition...), err.Error()))
	} else if ok {
		k.Progressive.Partition = IntOrPercent(v)
	}
	if raw, ok, _ := unstructured.NestedFieldNoCopy(obj, "spec", "updateStrategy", "rollingUpdate", "selector"); ok && raw != nil {
		var ls metav1.LabelSelector
		if err := remarshal(raw, &ls); err != nil {
			errs = append(errs, field.Invalid(ru.Child("selector"), "", err.Error()))
		} else {
			k.Progressive.Scope = LabelSelector(&ls)
		}
	}
	if paused, ok, err := unstructured.NestedBool(obj, "spec", "updateStrategy", "rollingUpdate", "paused"); err != nil {
		errs = append(errs, field.Invalid(ru.Child("paused"), "", err.Error()))
	} else if ok {
		k.Progressive.Pause = paused
	}
	if ps, ok, err := unstructured.NestedBool(obj, "spec", "scaleStrategy", "partitionedScaling"); err != nil {
		errs = append(errs, field.Invalid(field.NewPath("spec", "scaleStrategy", "partitionedScaling"), "", err.Error()))
	} else if ok {
		k.Progressive.PartitionedScaling = ps
	}
	if u.GetAnnotations()[kruiseProgressiveCreate] == "true" {
		k.Progressive.PartitionedScaling = true
	}
	if t, _, _ := unstructured.NestedString(obj, "spec", "updateStrategy", "rollingUpdate", "rollingUpdateType"); t != "" && t != "Standard" {
		k.Warnings = append(k.Warnings, field.Forbidden(ru.Child("rollingUpdateType"),
			fmt.Sprintf("%s is planned as Standard: pods are deleted and created, not updated in place", t)))
	}
	if lc, ok, _ := unstructured.NestedFieldNoCopy(obj, "spec", "lifecycle"); ok && lc != nil {
		k.Warnings = append(k.Warnings, field.Forbidden(field.NewPath("spec", "lifecycle"),
			"lifecycle hooks are not honoured: pods are deleted and created without waiting for them"))
	}
	for _, key := range slices.Sorted(maps.Keys(u.GetAnnotations())) {
		if strings.HasPrefix(key, kruisePreDownload) {
			k.Warnings = append(k.Warnings, field.Forbidden(field.NewPath("metadata", "annotations").Key(key),
				"image pre-download is not planned"))
		}
	}

	// burstReplicas is an *intstr.IntOrString in both versions.
	burst, hasBurst, err := nestedIntOrString(obj, true, "spec", "burstReplicas")
	if err != nil {
		errs = append(errs, field.Invalid(field.NewPath("spec", "burstReplicas"), kruiseValue(obj, "spec", "burstReplicas"), err.Error()))
	}

	// What is left is an apps/v1 DaemonSet.
	if m, ok, _ := unstructured.NestedMap(obj, "spec", "updateStrategy", "rollingUpdate"); ok {
		for _, key := range []string{"rollingUpdateType", "selector", "partition", "paused"} {
			delete(m, key)
		}
		_ = unstructured.SetNestedMap(obj, m, "spec", "updateStrategy", "rollingUpdate")
	}
	for _, key := range []string{"burstReplicas", "lifecycle", "scaleStrategy"} {
		unstructured.RemoveNestedField(obj, "spec", key)
	}
	obj["apiVersion"], obj["kind"] = "apps/v1", "DaemonSet"
	ds := &appsv1.DaemonSet{}
	if err := remarshal(obj, ds); err != nil {
		return nil, fmt.Errorf("convert: OpenKruise DaemonSet %s/%s: %w", u.GetNamespace(), u.GetName(), err)
	}
	k.DaemonSet = ds
	if hasBurst && burst != nil {
		n, err := intstr.GetScaledValueFromIntOrPercent(burst, int(ds.Status.DesiredNumberScheduled), false)
		if err != nil {
			errs = append(errs, field.Invalid(field.NewPath("spec", "burstReplicas"), burst.String(), err.Error()))
		}
		k.BurstReplicas = max(n, 0)
	}
	for _, e := range k.Progressive.Validate() {
		e.Field = kruisePath(e.Field)
		errs = append(errs, e)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return k, nil
}

// kruisePath renders a rollout.Progressive field path as the OpenKruise
// field it comes from.
func kruisePath(p string) string {
	for from, to := range map[string]string{
		"partition": "spec.updateStrategy.rollingUpdate.partition",
		"scope":     "spec.updateStrategy.rollingUpdate.selector",
	} {
		if rest, ok := strings.CutPrefix(p, from); ok {
			return to + rest
		}
	}
	return p
}

// nestedIntOrString reads an int32 or, when orString is true, a string at
// path, as OpenKruise's types (an *int32 or an *intstr.IntOrString) decode
// it: an integer beyond the int32 range, or a number with a fraction, is an
// error rather than wrapped modulo 2^32 (4294967296 would be 0) or
// truncated (1.5 would be 1); so is a string where the field is an int.
func nestedIntOrString(obj map[string]any, orString bool, path ...string) (*intstr.IntOrString, bool, error) {
	v, ok, _ := unstructured.NestedFieldNoCopy(obj, path...)
	if !ok || v == nil {
		return nil, false, nil
	}
	want := "an int32"
	if orString {
		want = "an int32 or a string"
	}
	switch v := v.(type) {
	case int64:
		if v < math.MinInt32 || v > math.MaxInt32 {
			return nil, false, fmt.Errorf("want %s, got %d, out of the int32 range", want, v)
		}
		x := intstr.FromInt32(int32(v))
		return &x, true, nil
	case float64:
		return nil, false, fmt.Errorf("want %s, got %v, not an integer", want, v)
	case string:
		if !orString {
			return nil, false, fmt.Errorf("want %s, got the string %q (this version's field is an int)", want, v)
		}
		x := intstr.FromString(v)
		return &x, true, nil
	}
	return nil, false, fmt.Errorf("want %s, got %T", want, v)
}

// kruiseValue is a value of obj at path as an error reports it.
func kruiseValue(obj map[string]any, path ...string) any {
	v, _, _ := unstructured.NestedFieldNoCopy(obj, path...)
	return v
}

// remarshal converts a JSON-like value into out through JSON, as the API
// server decodes it.
func remarshal(v any, out any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return utiljson.Unmarshal(b, out)
}

// maxKruiseListDepth bounds Lists nested in Lists.
const maxKruiseListDepth = 8

// KruiseObjects reads the OpenKruise DaemonSets of what `kubectl get … -o
// yaml` or `-o json` prints: single objects, Lists (DaemonSetList too) and
// YAML streams, as kube/load reads them. Every other object is skipped; an
// undecodable document is an error, and so is a nil r and a YAML document
// whose aliases add more than load.MaxAliasExpansion bytes once expanded
// (load.ErrAliasExpansion).
func KruiseObjects(r io.Reader) ([]*unstructured.Unstructured, error) {
	if r == nil {
		return nil, errors.New("convert: no input")
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("convert: reading input: %w", err)
	}
	// As kube/load reads its input: a JSON stream when the input starts
	// with '{' or '[', a YAML stream otherwise.
	next := yamlDocuments(data)
	if trimmed := bytes.TrimLeft(data, " \t\r\n"); len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
		next = jsonDocuments(trimmed)
	}
	var out []*unstructured.Unstructured
	for doc := 1; ; doc++ {
		raw, err := next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("convert: document %d: %w", doc, err)
		}
		if v, err := strictJSON(raw); err != nil {
			return nil, fmt.Errorf("convert: document %d: %w", doc, err)
		} else if v != nil {
			out = collectKruise(out, v, "", "", 0)
		}
	}
}

// jsonDocuments returns the JSON values of a stream one by one, then io.EOF.
func jsonDocuments(data []byte) func() ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	return func() ([]byte, error) {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		return raw, err
	}
}

// yamlDocuments returns the documents of a YAML stream one by one, as
// JSON, then io.EOF. The conversion is strict: a key repeated in one
// mapping is an error, as kube/load refuses it.
func yamlDocuments(data []byte) func() ([]byte, error) {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	return func() ([]byte, error) {
		chunk, err := reader.Read()
		if err != nil {
			return nil, err
		}
		// As kube/load bounds it: the conversion copies an aliased value
		// out at every alias.
		if added, err := yamlcost.AliasBytes(chunk, load.MaxAliasExpansion); err != nil {
			return nil, err
		} else if added > load.MaxAliasExpansion {
			return nil, fmt.Errorf("%w: they add more than %d bytes once expanded (load.MaxAliasExpansion); refused before decoding", load.ErrAliasExpansion, load.MaxAliasExpansion)
		}
		return yaml.YAMLToJSONStrict(chunk)
	}
}

// strictJSON decodes one JSON document as the API server's strict field
// validation reads it: integers as int64, and a field given twice in one
// object is an error (plain decoding keeps the last value silently, a
// partition of 0 for `"partition": 3, "partition": 0`). A null or empty
// document is nil.
func strictJSON(raw []byte) (any, error) {
	if t := bytes.TrimSpace(raw); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return nil, nil
	}
	var v any
	strict, err := sigsjson.UnmarshalStrict(raw, &v, sigsjson.DisallowDuplicateFields)
	if err != nil {
		return nil, err
	}
	if len(strict) > 0 {
		return nil, errors.Join(strict...)
	}
	return v, nil
}

func collectKruise(out []*unstructured.Unstructured, v any, apiVersion, kind string, depth int) []*unstructured.Unstructured {
	if depth > maxKruiseListDepth {
		return out
	}
	switch v := v.(type) {
	case []any:
		for _, item := range v {
			out = collectKruise(out, item, apiVersion, kind, depth+1)
		}
	case map[string]any:
		gv, _ := v["apiVersion"].(string)
		k, _ := v["kind"].(string)
		if gv == "" {
			gv = apiVersion
		}
		if k == "" {
			k = kind
		}
		if items, ok := v["items"].([]any); ok && strings.HasSuffix(k, "List") {
			return collectKruise(out, items, gv, strings.TrimSuffix(k, "List"), depth+1)
		}
		if k == "DaemonSet" && strings.HasPrefix(gv, KruiseGroup+"/") {
			obj := copyJSON(v).(map[string]any)
			obj["apiVersion"], obj["kind"] = gv, k
			out = append(out, &unstructured.Unstructured{Object: obj})
		}
	}
	return out
}

// copyJSON deep-copies a JSON-like value, turning the numbers decoders
// produce (float64, int, json.Number) into the int64 and float64 that
// unstructured objects hold; values of other types are dropped, so that a
// hand-built object can never make the conversion panic.
func copyJSON(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			if c := copyJSON(x); c != nil {
				out[k] = c
			}
		}
		return out
	case []any:
		out := make([]any, 0, len(v))
		for _, x := range v {
			out = append(out, copyJSON(x))
		}
		return out
	case float64:
		if v == float64(int64(v)) {
			return int64(v)
		}
		return v
	case int:
		return int64(v)
	case int32:
		return int64(v)
	case int64, string, bool:
		return v
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	}
	return nil
}
