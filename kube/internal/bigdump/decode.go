package bigdump

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
)

// DecodeTyped decodes a List with client-go's codecs, as a client of the
// API server would: the List, then each item into its typed object. It is
// the yardstick daemonplan's loader is measured against.
func DecodeTyped(data []byte) ([]runtime.Object, error) {
	d := scheme.Codecs.UniversalDeserializer()
	obj, _, err := d.Decode(data, nil, nil)
	if err != nil {
		return nil, err
	}
	list, ok := obj.(*corev1.List)
	if !ok {
		return nil, fmt.Errorf("bigdump: decoded a %T, want a List", obj)
	}
	out := make([]runtime.Object, 0, len(list.Items))
	for i, item := range list.Items {
		o, _, err := d.Decode(item.Raw, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("bigdump: items[%d]: %w", i, err)
		}
		out = append(out, o)
	}
	return out, nil
}
