package upstream

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/dump"
	"k8s.io/apimachinery/pkg/util/rand"
)

// Hash returns the revision hash of a pod template as the controller
// computes it (upstream: ComputeHash in pkg/controller/controller_utils.go;
// docs/history.md, H5):
//
//  1. FNV-1a 32 over the go-spew dump of the template value
//     (k8s.io/apimachinery/pkg/util/dump.ForHash), which prints every field
//     of the compiled k8s.io/api types, nil ones included;
//  2. if collisionCount is non-nil, followed by its value as 4 little-endian
//     bytes and 4 zero bytes;
//  3. the sum as a decimal string, each digit mapped through the
//     apimachinery safe-encoding alphabet.
//
// Pass ds.Spec.Template, the DaemonSet's own template (not the pod template
// with default tolerations), and ds.Status.CollisionCount. A nil template
// panics: it is a programmer error.
func Hash(template *corev1.PodTemplateSpec, collisionCount *int32) string {
	if template == nil {
		panic("upstream.Hash: nil template")
	}
	h := fnv.New32a()
	// The controller hashes the template value, not a pointer to it: a
	// pointer would add "(*v1.PodTemplateSpec)" to the dump.
	_, _ = h.Write([]byte(dump.ForHash(*template)))
	if collisionCount != nil {
		var b [8]byte
		binary.LittleEndian.PutUint32(b[:4], uint32(*collisionCount))
		_, _ = h.Write(b[:])
	}
	return rand.SafeEncodeString(strconv.FormatUint(uint64(h.Sum32()), 10))
}

// RevisionData returns the data.raw of a ControllerRevision for ds, as the
// controller writes it and compares it (upstream: getPatch and Match in
// pkg/controller/daemon/update.go; docs/history.md, H2 and H3):
//
//  1. the whole DaemonSet is encoded with encoding/json and decoded again
//     into generic maps (numbers become float64);
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
	if err := json.Unmarshal(whole, &generic); err != nil {
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
