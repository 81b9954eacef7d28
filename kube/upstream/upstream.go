package upstream

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"reflect"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/rand"
)

// Hash returns the revision hash of a pod template as the controller of
// Kubernetes version v computes it
// (upstream: ComputeHash in pkg/controller/controller_utils.go;
// docs/history.md, H5):
//
//  1. FNV-1a 32 over the go-spew dump of the template value, as upstream's
//     dump.ForHash prints it: every field of that version's PodTemplateSpec,
//     nil ones included, with its type;
//  2. if collisionCount is non-nil, followed by its value as 4
//     little-endian bytes and 4 zero bytes;
//  3. the sum as a decimal string, each digit mapped through the
//     apimachinery safe-encoding alphabet.
//
// The dump follows v's own struct layout, not the k8s.io/api this program
// is built with: a field that v does not have (added in a later release)
// never changes the hash, and a field that v has but this build lacks is
// printed as its zero value. The hash is that of the template as the
// controller receives it from an API server, whatever way it was built:
//
//   - empty lists and maps count as absent (protobuf does not keep them);
//   - a quantity counts in the form an API server stores ("1024Mi" as "1Gi",
//     "0.5" as "500m"), whatever its string was and whether or not it was
//     printed before;
//   - two fields that share a pointer count as two copies.
//
// One thing stays as given: a timestamp in the template's metadata
// (creationTimestamp is normally null there). Upstream prints its time zone
// data, so its hash depends on the controller's time zone.
//
// Pass ds.Spec.Template, the DaemonSet's own template (not the pod template
// with default tolerations), and ds.Status.CollisionCount. template is not
// changed. Errors: a nil template, an unsupported v (the zero Version
// included), or a build whose k8s.io/api gives a field another kind than v
// has.
func (v Version) Hash(template *corev1.PodTemplateSpec, collisionCount *int32) (string, error) {
	if template == nil {
		return "", errors.New("upstream.Version.Hash: nil template")
	}
	dump, err := v.dump(reflect.ValueOf(template).Elem())
	if err != nil {
		return "", fmt.Errorf("upstream.Version.Hash: %w", err)
	}
	h := fnv.New32a()
	_, _ = h.Write(dump)
	if collisionCount != nil {
		var b [8]byte
		binary.LittleEndian.PutUint32(b[:4], uint32(*collisionCount))
		_, _ = h.Write(b[:])
	}
	return rand.SafeEncodeString(strconv.FormatUint(uint64(h.Sum32()), 10)), nil
}

// dump returns the dump that v's controller hashes for template, a
// PodTemplateSpec value (or any struct with its field names).
func (v Version) dump(template reflect.Value) ([]byte, error) {
	l, err := layoutOf(v)
	if err != nil {
		return nil, err
	}
	p := printer{out: make([]byte, 0, 4096), emptyBytesAbsent: v >= V1_36}
	if err := p.typed(l.root, template); err != nil {
		return nil, err
	}
	return p.out, nil
}

// RevisionData returns the data.raw of a ControllerRevision for ds, as the
// controller writes it and compares it (upstream: getPatch and Match in
// pkg/controller/daemon/update.go; docs/history.md, H2 and H3):
//
//  1. the whole DaemonSet is encoded with encoding/json and decoded again
//     into generic maps with apimachinery's json package (whole numbers
//     become int64, so that every int64 field comes back exact; others
//     float64);
//  2. spec.template is taken from it and "$patch": "replace" is added;
//  3. {"spec": {"template": …}} is encoded again, compact, with keys sorted
//     at every level and HTML characters escaped.
//
// A DaemonSet matches a revision iff these bytes equal the revision's
// data.raw. ds is not changed.
func RevisionData(ds *appsv1.DaemonSet) ([]byte, error) {
	if ds == nil {
		return nil, fmt.Errorf("upstream.RevisionData: nil DaemonSet")
	}
	whole, err := json.Marshal(ds)
	if err != nil {
		return nil, fmt.Errorf("upstream.RevisionData: encoding DaemonSet %s/%s: %w", ds.Namespace, ds.Name, err)
	}
	var generic map[string]any
	if err := utiljson.Unmarshal(whole, &generic); err != nil {
		return nil, fmt.Errorf("upstream.RevisionData: decoding DaemonSet %s/%s: %w", ds.Namespace, ds.Name, err)
	}
	spec, _ := generic["spec"].(map[string]any)
	template, _ := spec["template"].(map[string]any)
	if template == nil {
		// Unreachable for a typed DaemonSet: spec.template is a struct and
		// always encodes as an object.
		return nil, fmt.Errorf("upstream.RevisionData: DaemonSet %s/%s has no spec.template", ds.Namespace, ds.Name)
	}
	template["$patch"] = "replace"
	patch := map[string]any{"spec": map[string]any{"template": template}}
	return json.Marshal(patch)
}

// StoredData returns a ControllerRevision's data.raw as the API server
// stores it: compact JSON. kubectl prints revisions indented, and decoding
// its output keeps that indentation in data.raw; RevisionData must be
// compared with the compact form. Raw bytes that are not JSON are returned
// unchanged. raw is not changed.
func StoredData(raw []byte) []byte {
	var buf bytes.Buffer
	buf.Grow(len(raw))
	if err := json.Compact(&buf, raw); err != nil {
		return raw
	}
	return buf.Bytes()
}
