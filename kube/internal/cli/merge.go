package cli

import (
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// lastApplied is the annotation kubectl apply records its manifest in.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// mergeManifest merges manifest into live as kubectl apply (client side)
// does: a three-way strategic merge of the last applied manifest (the
// annotation; none: nothing to remove), the new manifest and the live
// object.
func mergeManifest(live, manifest *appsv1.DaemonSet) (*appsv1.DaemonSet, error) {
	current, err := json.Marshal(live)
	if err != nil {
		return nil, err
	}
	modified, err := manifestJSON(manifest)
	if err != nil {
		return nil, err
	}
	var original []byte
	if s := live.Annotations[lastApplied]; s != "" {
		original = []byte(s)
	}
	meta, err := strategicpatch.NewPatchMetaFromStruct(appsv1.DaemonSet{})
	if err != nil {
		return nil, err
	}
	patch, err := strategicpatch.CreateThreeWayMergePatch(original, modified, current, meta, true)
	if err != nil {
		return nil, fmt.Errorf("merging the manifest as kubectl apply: %w", err)
	}
	merged, err := strategicpatch.StrategicMergePatch(current, patch, appsv1.DaemonSet{})
	if err != nil {
		return nil, fmt.Errorf("merging the manifest as kubectl apply: %w", err)
	}
	var out appsv1.DaemonSet
	if err := json.Unmarshal(merged, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// manifestJSON renders a decoded manifest for a merge: without its status,
// and without the nulls the Go types write for fields the manifest leaves
// out (a null in a patch removes the field).
func manifestJSON(ds *appsv1.DaemonSet) ([]byte, error) {
	b, err := json.Marshal(ds)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	delete(m, "status")
	dropNulls(m)
	return json.Marshal(m)
}

func dropNulls(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if x == nil {
				delete(v, k)
				continue
			}
			dropNulls(x)
		}
	case []any:
		for _, x := range v {
			dropNulls(x)
		}
	}
}
