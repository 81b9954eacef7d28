package whatif_test

import (
	"fmt"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/whatif"
)

// A new image in a settled cluster: the API server bumps the generation
// and the template generation, and keeps the status, so that the pods of
// the old template count as outdated.
func ExampleEdit() {
	before := settled(panicT{}, 3, maxUnavailable(1))
	ds := before.DaemonSet.DeepCopy()
	ds.TemplateData = []byte(`{"image":"agent:v2"}`)

	edited, err := whatif.Edit(before, daemonplan.Input{DaemonSet: ds})
	if err != nil {
		panic(err)
	}
	fmt.Println("generation", before.DaemonSet.Generation, "->", edited.DaemonSet.Generation)
	fmt.Println("template generation", *api.TemplateGeneration(before.DaemonSet), "->", *api.TemplateGeneration(edited.DaemonSet))
	fmt.Println("pods", len(edited.Pods), "updated", edited.DaemonSet.Status.UpdatedNumberScheduled)
	// Output:
	// generation 1 -> 2
	// template generation 1 -> 2
	// pods 3 updated 3
}
