package timeline_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/daemonplan/daemonplan/timeline"
)

// TestLegendUnknownRevision checks that a pod of no known revision (no
// controller-revision-hash label, or a hash the history lacks) is drawn in
// a colour the legend names.
func TestLegendUnknownRevision(t *testing.T) {
	tl := &timeline.Timeline{
		Namespace: "kube-system", Name: "agent", Duration: time.Minute,
		Revisions: []timeline.Revision{{Hash: "aaa", Number: 1, Current: true}},
		Nodes: []timeline.NodeHistory{{Name: "n1", Intervals: []timeline.Interval{{
			From: 0, To: time.Minute,
			Pods: []timeline.Pod{{Name: "legacy", Hash: "", State: timeline.Ready}},
		}}}},
	}
	var b bytes.Buffer
	if err := timeline.WriteHTML(&b, tl, timeline.HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	legend := page[strings.Index(page, `<div class="legend">`):]
	legend = legend[:strings.Index(legend, "</div>")]
	const item = `<span class="sw" style="background:#495057"></span>pod of no known revision (no controller-revision-hash label, or one the history lacks)`
	if !strings.Contains(legend, item) {
		t.Errorf("the legend lacks %q:\n%s", item, legend)
	}
	// Without such a pod the legend does not name it.
	tl.Nodes[0].Intervals[0].Pods[0].Hash = "aaa"
	b.Reset()
	if err := timeline.WriteHTML(&b, tl, timeline.HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "no known revision") {
		t.Error("the legend names pods of no known revision where there are none")
	}
}
