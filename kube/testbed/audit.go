package testbed

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
)

// auditPolicy records every request but reads (get, list, watch) at the
// Metadata level: who wrote what, and the answer's code.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  verbs: [get, list, watch]
- level: Metadata
`

// Writes counts the write requests kube-apiserver answered, per client
// (the user agent up to its first "/": "kube-controller-manager" for the
// upstream controller, "daemonplan-example-controller" for the example
// controller, "kwok", "testbed-binder", "testbed" for the test) and per
// "verb resource[/sub] code", e.g. "update daemonsets/status 409".
func (b *Bed) Writes() (map[string]map[string]int, error) {
	out := map[string]map[string]int{}
	err := b.eachWrite(func(w auditWrite) {
		what := w.Verb + " " + w.Resource
		if w.Code != 0 {
			what += fmt.Sprintf(" %d", w.Code)
		}
		if out[w.Client] == nil {
			out[w.Client] = map[string]int{}
		}
		out[w.Client][what]++
	})
	return out, err
}

// WritesTo lists the write requests of client (as in Writes) to the
// object resource/name of namespace, as "verb code", in the order
// kube-apiserver answered them.
func (b *Bed) WritesTo(client, namespace, resource, name string) ([]string, error) {
	var out []string
	err := b.eachWrite(func(w auditWrite) {
		if w.Client == client && w.Namespace == namespace && w.Name == name &&
			(w.Resource == resource || strings.HasPrefix(w.Resource, resource+"/")) {
			out = append(out, fmt.Sprintf("%s %d", w.Verb, w.Code))
		}
	})
	return out, err
}

// auditWrite is one write request the audit log holds: Resource is
// "resource[/subresource]", Code the answer's (0 if none).
type auditWrite struct {
	Client, Verb, Resource, Namespace, Name string
	Code                                    int
}

func (b *Bed) eachWrite(f func(auditWrite)) error {
	file, err := os.Open(b.auditLog)
	if err != nil {
		return err
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev struct {
			Stage     string `json:"stage"`
			Verb      string `json:"verb"`
			UserAgent string `json:"userAgent"`
			ObjectRef *struct {
				Resource    string `json:"resource"`
				Subresource string `json:"subresource"`
				Namespace   string `json:"namespace"`
				Name        string `json:"name"`
			} `json:"objectRef"`
			ResponseStatus *struct {
				Code int `json:"code"`
			} `json:"responseStatus"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return err
		}
		if ev.Stage != "ResponseComplete" || ev.ObjectRef == nil {
			continue
		}
		w := auditWrite{Verb: ev.Verb, Resource: ev.ObjectRef.Resource, Namespace: ev.ObjectRef.Namespace, Name: ev.ObjectRef.Name}
		w.Client, _, _ = strings.Cut(ev.UserAgent, "/")
		if ev.ObjectRef.Subresource != "" {
			w.Resource += "/" + ev.ObjectRef.Subresource
		}
		if ev.ResponseStatus != nil {
			w.Code = ev.ResponseStatus.Code
		}
		f(w)
	}
	return sc.Err()
}

// FormatCounts renders counts as "key=n, ..." in key order.
func FormatCounts(counts map[string]int) string {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, counts[k])
	}
	return strings.Join(parts, ", ")
}
