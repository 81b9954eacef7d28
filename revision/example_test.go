package revision_test

import (
	"fmt"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/revision"
)

// agent returns a DaemonSet whose template content is data.
func agent(data string) *api.DaemonSet {
	return &api.DaemonSet{
		Namespace:    "kube-system",
		Name:         "agent",
		UID:          "uid-1",
		Selector:     &api.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
		Template:     api.PodTemplate{Labels: map[string]string{"app": "agent"}},
		TemplateData: []byte(data),
	}
}

func stored(name string, number int64, data, cause string) revision.Revision {
	return revision.Revision{
		Namespace:   "kube-system",
		Name:        name,
		Labels:      map[string]string{"app": "agent", api.LabelRevisionHash: name[len("agent-"):]},
		Annotations: map[string]string{api.AnnotationChangeCause: cause},
		Controller:  &api.OwnerRef{Kind: "DaemonSet", Name: "agent", UID: "uid-1"},
		Revision:    number,
		Data:        []byte(data),
	}
}

// A changed template makes a new revision, numbered above the old one and
// named after the hash of its content.
func ExampleConstruct() {
	ds := agent(`{"image":"agent:v2"}`)
	revisions := []revision.Revision{stored("agent-old", 1, `{"image":"agent:v1"}`, "")}

	h, err := revision.Construct(ds, revisions, nil, revision.Options{})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	c := h.Create[0]
	fmt.Println("create:", c.Name, "revision", c.Revision)
	fmt.Println("hash for new pods:", h.Hash)
	fmt.Println("old:", len(h.Old))
	fmt.Println("delete at end of sync:", revision.Cleanup(ds, h.Old, nil))
	// Output:
	// create: agent-7f799c6db5 revision 2
	// hash for new pods: 7f799c6db5
	// old: 1
	// delete at end of sync: []
}

// Undoing a rollout picks the previous revision; the caller stores its data
// as the new template, and the next Construct renumbers that revision.
func ExampleRollback() {
	ds := agent("v3")
	revisions := []revision.Revision{
		stored("agent-a", 1, "v1", ""),
		stored("agent-b", 2, "v2", ""),
		stored("agent-c", 3, "v3", ""),
	}

	res, _ := revision.Rollback(ds, revisions, 0)
	fmt.Println(res.Outcome, res.Name, res.Message)

	ds.TemplateData = res.Template
	h, _ := revision.Construct(ds, revisions, nil, revision.Options{})
	fmt.Println("current:", h.Current.Name, "revision", h.Current.Revision)

	res, _ = revision.Rollback(ds, revisions, 2)
	fmt.Println(res.Outcome, res.Message)
	res, _ = revision.Rollback(ds, revisions, 7)
	fmt.Println(res.Outcome, res.Message)
	// Output:
	// RolledBack agent-b rolled back
	// current: agent-b revision 4
	// Skipped skipped rollback (current template already matches revision 2)
	// NotFound unable to find specified revision 7 in history
}

func ExampleHistoryTable() {
	revisions := []revision.Revision{
		stored("agent-b", 2, "v2", "kubectl set image ds/agent agent=agent:v2"),
		stored("agent-a", 1, "v1", ""),
	}
	table, _ := revision.HistoryTable(agent("v2"), revisions)
	fmt.Print(table)
	// Output:
	// REVISION  CHANGE-CAUSE
	// 1         <none>
	// 2         kubectl set image ds/agent agent=agent:v2
}

// A snapshot lists each ControllerRevision once.
func ExampleValidateRevisions() {
	revs := []revision.Revision{{Namespace: "ns", Name: "agent-1"}, {Namespace: "ns", Name: "agent-1", Revision: 2}}
	fmt.Println(revision.ValidateRevisions(revs))
	// Output:
	// revisions[1].name: Duplicate value: "agent-1": also revisions[0]
}
