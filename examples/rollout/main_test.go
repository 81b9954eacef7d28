package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestDemoSaysWhy checks that the demo explains what a newcomer would
// otherwise have to work out: why 8 of the 36 nodes get no pod, and why
// the history starts at revision 2.
func TestDemoSaysWhy(t *testing.T) {
	var b bytes.Buffer
	out = &b
	t.Cleanup(func() { out = os.Stdout })
	if err := run(); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		"  28 of 36 nodes should run the pod; 8 should not:\n",
		"    5 NodeSelectorMismatch",
		"    3 UntoleratedNoSchedule",
		"revision 1 is not listed: rolling back to it made its template revision 4",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the demo does not print %q:\n%s", want, got)
		}
	}
}
