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
	f, err := os.Open(b.auditLog)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev struct {
			Stage     string `json:"stage"`
			Verb      string `json:"verb"`
			UserAgent string `json:"userAgent"`
			ObjectRef *struct {
				Resource    string `json:"resource"`
				Subresource string `json:"subresource"`
			} `json:"objectRef"`
			ResponseStatus *struct {
				Code int `json:"code"`
			} `json:"responseStatus"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return nil, err
		}
		if ev.Stage != "ResponseComplete" || ev.ObjectRef == nil {
			continue
		}
		client, _, _ := strings.Cut(ev.UserAgent, "/")
		what := ev.Verb + " " + ev.ObjectRef.Resource
		if ev.ObjectRef.Subresource != "" {
			what += "/" + ev.ObjectRef.Subresource
		}
		if ev.ResponseStatus != nil {
			what += fmt.Sprintf(" %d", ev.ResponseStatus.Code)
		}
		if out[client] == nil {
			out[client] = map[string]int{}
		}
		out[client][what]++
	}
	return out, sc.Err()
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
