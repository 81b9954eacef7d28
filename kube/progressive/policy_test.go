package progressive_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/field"
	"github.com/daemonplan/daemonplan/kube/progressive"
)

// finding is a validation error without its message.
type finding struct {
	Type  field.ErrorType
	Field string
	Bad   any
}

func findings(errs field.ErrorList) []finding {
	var out []finding
	for _, e := range errs {
		out = append(out, finding{e.Type, e.Field, e.BadValue})
	}
	return out
}

// TestDecodePolicy checks every rule of Policy.Validate by its field path
// and type, from the JSON an operator writes.
func TestDecodePolicy(t *testing.T) {
	tests := []struct {
		name, reason, doc string
		want              []finding
	}{
		{"empty", "the zero policy rolls every node out under maxUnavailable 1", `{}`, nil},
		{"full", "every field at a valid value", `{"canary":{"nodes":"10%","selector":{"matchLabels":{"pool":"canary"}}},
			"zones":{"key":"zone","order":["b","a"],"pauseBetween":true},"maxUnavailable":"20%","maxSurge":0,"strictBudgets":true,
			"minReadySeconds":5,"pauseBefore":["zone:a","rest"],"gates":{"readyDeadline":"2m","maxRestarts":0,"onFailure":"Abort"}}`, nil},
		{"surge", "under OnDelete no node runs two pods", `{"maxSurge":1}`,
			[]finding{{field.TypeForbidden, "policy.maxSurge", nil}}},
		{"zero budget", "a budget of 0 never deletes", `{"maxUnavailable":0}`,
			[]finding{{field.TypeInvalid, "policy.maxUnavailable", int64(0)}}},
		{"bad percent", "not a percentage", `{"maxUnavailable":"ten"}`,
			[]finding{{field.TypeInvalid, "policy.maxUnavailable", "ten"}}},
		{"canary without size", "a canary needs a count or a selector", `{"canary":{}}`,
			[]finding{{field.TypeRequired, "policy.canary.nodes", nil}}},
		{"canary over 100%", "a percentage above 100", `{"canary":{"nodes":"150%"}}`,
			[]finding{{field.TypeInvalid, "policy.canary.nodes", "150%"}}},
		{"zones", "an empty and a duplicate zone, a bad key", `{"zones":{"key":"-bad","order":["a","","a"]}}`,
			[]finding{{field.TypeInvalid, "policy.zones.key", "-bad"}, {field.TypeInvalid, "policy.zones.order[1]", ""}, {field.TypeDuplicate, "policy.zones.order[2]", "a"}}},
		{"gates", "negative gates, an unknown action", `{"minReadySeconds":-1,"gates":{"readyDeadline":"-1s","maxRestarts":-2,"onFailure":"Retry"}}`,
			[]finding{{field.TypeInvalid, "policy.minReadySeconds", int64(-1)}, {field.TypeInvalid, "policy.gates.readyDeadline", "-1s"},
				{field.TypeInvalid, "policy.gates.maxRestarts", int64(-2)}, {field.TypeNotSupported, "policy.gates.onFailure", "Retry"}}},
		{"pause points", "a zone not in the order, a zone without zones, a duplicate", `{"zones":{"order":["a"]},"pauseBefore":["zone:b","rest","rest","later"]}`,
			[]finding{{field.TypeInvalid, "policy.pauseBefore[0]", "zone:b"}, {field.TypeDuplicate, "policy.pauseBefore[2]", "rest"}, {field.TypeInvalid, "policy.pauseBefore[3]", "later"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := progressive.DecodePolicy([]byte(tc.doc))
			var errs field.ErrorList
			if err != nil && !errors.As(err, &errs) {
				t.Fatalf("DecodePolicy: %v, want a field.ErrorList (%s)", err, tc.reason)
			}
			if diff := cmp.Diff(tc.want, findings(errs)); diff != "" {
				t.Errorf("DecodePolicy() findings mismatch (-want +got), %s:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestDecodePolicyUnknownField: a misspelt field is an error, not a
// default.
func TestDecodePolicyUnknownField(t *testing.T) {
	if _, err := progressive.DecodePolicy([]byte(`{"maxUnavailble":3}`)); err == nil {
		t.Error("DecodePolicy accepted an unknown field")
	}
}

// TestDefaultedKeepsInput: Defaulted fills a copy.
func TestDefaultedKeepsInput(t *testing.T) {
	p := progressive.Policy{Canary: &progressive.CanaryPolicy{Selector: &metav1.LabelSelector{}}, Zones: &progressive.ZonesPolicy{}}
	d := p.Defaulted()
	if p.Canary.Nodes != nil || p.Zones.Key != "" || p.Gates != nil || p.MaxUnavailable != nil {
		t.Errorf("Defaulted changed its input: %+v", p)
	}
	if d.Canary.Nodes.String() != "100%" || d.Zones.Key != "topology.kubernetes.io/zone" || d.MaxUnavailable.IntValue() != 1 || d.Gates.OnFailure != progressive.ActionPause {
		t.Errorf("Defaulted = %+v", d)
	}
}

// TestParseStatus: the status part of the annotation is validated too.
func TestParseStatus(t *testing.T) {
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "default", Annotations: map[string]string{
		progressive.Annotation: `{"policy":{},"status":{"phase":"Zone","paused":{"by":"Someone"},"inFlight":[{"pod":"p"}]}}`}}}
	_, err := progressive.Parse(ds)
	var errs field.ErrorList
	if !errors.As(err, &errs) {
		t.Fatalf("Parse: %v", err)
	}
	want := []finding{{field.TypeRequired, "status.zone", nil}, {field.TypeNotSupported, "status.paused.by", "Someone"}, {field.TypeRequired, "status.inFlight[0].uid", nil}}
	if diff := cmp.Diff(want, findings(errs)); diff != "" {
		t.Errorf("Parse() findings mismatch (-want +got):\n%s", diff)
	}
	if _, err := progressive.Parse(&appsv1.DaemonSet{}); !errors.Is(err, progressive.ErrNoRollout) {
		t.Errorf("Parse without the annotation: %v", err)
	}
}

func ExampleDecodePolicy() {
	_, err := progressive.DecodePolicy([]byte(`{"canary":{"nodes":2},"maxSurge":1,"zones":{"order":["a","a"]}}`))
	fmt.Println(err)
	// Output:
	// [policy.maxSurge: Forbidden: must be 0: under updateStrategy OnDelete the DaemonSet controller creates a pod only on a node without one, so an old and a new pod never run side by side, policy.zones.order[1]: Duplicate value: "a"]
}
