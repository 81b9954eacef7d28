package conformance

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func ptr[T any](v T) *T { return &v }

var notReady = Toleration{Key: "node.kubernetes.io/not-ready", Operator: "Exists", Effect: "NoExecute"}

// basePlan is a small deterministic plan exercising every list.
func basePlan() Plan {
	return Plan{
		DaemonSet: Ref{Namespace: "kube-system", Name: "agent"},
		Nodes: []Node{
			{Name: "n1", ShouldRun: true, ShouldContinueRunning: true, Reason: "Eligible"},
			{Name: "n2", ShouldRun: false, ShouldContinueRunning: true},
			{Name: "n3"},
		},
		Create: []Create{
			{Node: "n1", Labels: map[string]string{"app": "agent", "controller-revision-hash": "abc"}, Tolerations: []Toleration{notReady}},
		},
		Delete:  []Delete{{Pod: "agent-x", Node: "n3", Reason: "NotEligible"}},
		Adopt:   []string{"agent-a"},
		Release: []string{"agent-r"},
		Relabel: []Relabel{{Pod: "agent-l", Hash: "abc"}},
		Revisions: Revisions{
			Create: []Revision{{Name: "agent-abc", Revision: 2, Hash: "abc"}},
			Update: []Revision{},
			Delete: []string{"agent-old"},
			Adopt:  []string{},
		},
		Status:        Status{DesiredNumberScheduled: 1, ObservedGeneration: 1, CollisionCount: ptr(int32(0))},
		RolloutStatus: RolloutStatus{Message: "waiting\n"},
		Errors:        []string{},
		Warnings:      []Warning{},
	}
}

// nonDetExpected is a non-deterministic expectation: upstream deleted one
// of p1, p2, p3 and always p0, and created on n1 or n2.
func nonDetExpected() Expected {
	p := basePlan()
	p.Create = []Create{{Node: "n1", Labels: map[string]string{"a": "b"}}}
	p.Delete = []Delete{{Pod: "p0"}, {Pod: "p1"}}
	return Expected{
		Plan:          p,
		Deterministic: ptr(false),
		Alternatives: []Alternative{
			{Create: []Create{{Node: "n2", Labels: map[string]string{"a": "b"}}}, Delete: []Delete{{Pod: "p0"}, {Pod: "p2"}}},
			{Create: []Create{{Node: "n1", Labels: map[string]string{"a": "b"}}}, Delete: []Delete{{Pod: "p0"}, {Pod: "p3"}}},
		},
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return b
}

func TestCompare(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		want   func() Expected
		got    func() Plan
		// raw, if set, replaces the marshalled got.
		raw func(t *testing.T, got []byte) []byte
		// diffs lists a substring of each reported difference, in order.
		diffs []string
	}{
		{
			name:   "identical",
			reason: "a plan conforms to itself",
			want:   func() Expected { return Expected{Plan: basePlan()} },
			got:    basePlan,
		},
		{
			name:   "free text ignored",
			reason: "reasons, messages, delete nodes and warnings are for people",
			want:   func() Expected { return Expected{Plan: basePlan()} },
			got: func() Plan {
				p := basePlan()
				p.Nodes[0].Reason, p.Nodes[0].Message = "Other", "text"
				p.Delete[0].Node, p.Delete[0].Reason = "elsewhere", "Why"
				p.Warnings = []Warning{{Field: "spec", Type: "Invalid"}}
				return p
			},
		},
		{
			name:   "error text ignored",
			reason: "errors are compared only for being empty or not",
			want: func() Expected {
				p := basePlan()
				p.Errors = []string{"upstream text"}
				return Expected{Plan: p}
			},
			got: func() Plan {
				p := basePlan()
				p.Errors = []string{"our text"}
				return p
			},
		},
		{
			name:   "create order of labels irrelevant, null vs empty alternatives",
			reason: "labels are a map; a missing deterministic field means deterministic",
			want:   func() Expected { return Expected{Plan: basePlan(), Alternatives: nil} },
			got: func() Plan {
				p := basePlan()
				p.Create[0].Labels = map[string]string{"controller-revision-hash": "abc", "app": "agent"}
				return p
			},
		},
		{
			name:   "node shouldRun",
			reason: "shouldRun is compared",
			want:   func() Expected { return Expected{Plan: basePlan()} },
			got: func() Plan {
				p := basePlan()
				p.Nodes[1].ShouldRun = true
				return p
			},
			diffs: []string{"nodes: n2: got shouldRun=true shouldContinueRunning=true, want false true"},
		},
		{
			name:   "node shouldContinueRunning",
			reason: "shouldContinueRunning is compared",
			want:   func() Expected { return Expected{Plan: basePlan()} },
			got: func() Plan {
				p := basePlan()
				p.Nodes[2].ShouldContinueRunning = true
				return p
			},
			diffs: []string{"nodes: n3: got shouldRun=false shouldContinueRunning=true"},
		},
		{
			name:   "node missing and extra",
			reason: "every node of the input is listed",
			want:   func() Expected { return Expected{Plan: basePlan()} },
			got: func() Plan {
				p := basePlan()
				p.Nodes[2].Name = "n4"
				return p
			},
			diffs: []string{"nodes: n3 missing", "nodes: unexpected node n4"},
		},
		{
			name:   "node listed twice",
			reason: "a node appears once",
			want:   func() Expected { return Expected{Plan: basePlan()} },
			got: func() Plan {
				p := basePlan()
				p.Nodes = append(p.Nodes, p.Nodes[2])
				return p
			},
			diffs: []string{"nodes: n3 listed twice"},
		},
		{
			name:   "nodes unsorted",
			reason: "nodes are sorted by name",
			want:   func() Expected { return Expected{Plan: basePlan()} },
			got: func() Plan {
				p := basePlan()
				p.Nodes[0], p.Nodes[1] = p.Nodes[1], p.Nodes[0]
				return p
			},
			diffs: []string{`nodes: not sorted: "n2" before "n1"`},
		},
		{
			name:   "create label differs",
			reason: "created pods' labels are compared",
			want:   func() Expected { return Expected{Plan: basePlan()} },
			got: func() Plan {
				p := basePlan()
				p.Create[0].Labels = map[string]string{"app": "agent", "controller-revision-hash": "xyz"}
				return p
			},
			diffs: []string{`create: missing {"node":"n1"`, `create: unexpected {"node":"n1"`},
		},
		{
			name:   "create toleration order",
			reason: "tolerations are compared in upstream's order",
			want: func() Expected {
				p := basePlan()
				p.Create[0].Tolerations = []Toleration{notReady, {Key: "a", Operator: "Exists"}}
				return Expected{Plan: p}
			},
			got: func() Plan {
				p := basePlan()
				p.Create[0].Tolerations = []Toleration{{Key: "a", Operator: "Exists"}, notReady}
				return p
			},
			diffs: []string{"create: missing", "create: unexpected"},
		},
		{
			name:   "create tolerationSeconds",
			reason: "omitted toleration fields differ from set ones",
			want:   func() Expected { return Expected{Plan: basePlan()} },
			got: func() Plan {
				p := basePlan()
				tol := notReady
				tol.TolerationSeconds = ptr(int64(300))
				p.Create[0].Tolerations = []Toleration{tol}
				return p
			},
			diffs: []string{"create: missing", `create: unexpected {"node":"n1","labels":{"app":"agent","controller-revision-hash":"abc"},"tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}]}`},
		},
		{
			name:   "create extra node",
			reason: "create is compared as a whole list",
			want:   func() Expected { return Expected{Plan: basePlan()} },
			got: func() Plan {
				p := basePlan()
				p.Create = append(p.Create, Create{Node: "n2", Labels: map[string]string{"app": "agent"}})
				return p
			},
			diffs: []string{`create: unexpected {"node":"n2"`},
		},
		{
			name:   "create unsorted",
			reason: "create is sorted by node",
			want: func() Expected {
				p := basePlan()
				p.Create = append(p.Create, Create{Node: "n2"})
				return Expected{Plan: p}
			},
			got: func() Plan {
				p := basePlan()
				p.Create = append([]Create{{Node: "n2"}}, p.Create...)
				return p
			},
			diffs: []string{`create: not sorted: "n2" before "n1"`},
		},
		{
			name:   "delete pod differs",
			reason: "delete is compared by pod",
			want:   func() Expected { return Expected{Plan: basePlan()} },
			got: func() Plan {
				p := basePlan()
				p.Delete[0].Pod = "agent-y"
				return p
			},
			diffs: []string{"delete: missing agent-x", "delete: unexpected agent-y"},
		},
		{
			name:   "delete twice",
			reason: "delete is a multiset",
			want:   func() Expected { return Expected{Plan: basePlan()} },
			got: func() Plan {
				p := basePlan()
				p.Delete = append(p.Delete, p.Delete[0])
				return p
			},
			diffs: []string{"delete: unexpected agent-x"},
		},
		{
			name:   "delete unsorted",
			reason: "delete is sorted by pod",
			want: func() Expected {
				p := basePlan()
				p.Delete = []Delete{{Pod: "a"}, {Pod: "b"}}
				return Expected{Plan: p}
			},
			got: func() Plan {
				p := basePlan()
				p.Delete = []Delete{{Pod: "b"}, {Pod: "a"}}
				return p
			},
			diffs: []string{`delete: not sorted: "b" before "a"`},
		},
		{
			name:   "daemonSet",
			reason: "the DaemonSet reference is compared exactly",
			want:   func() Expected { return Expected{Plan: basePlan()} },
			got: func() Plan {
				p := basePlan()
				p.DaemonSet.Namespace = "default"
				return p
			},
			diffs: []string{"daemonSet mismatch (-want +got)"},
		},
		{
			name:   "adopt",
			reason: "adopt is compared exactly",
			want:   func() Expected { return Expected{Plan: basePlan()} },
			got: func() Plan {
				p := basePlan()
				p.Adopt = []string{}
				return p
			},
			diffs: []string{"adopt mismatch"},
		},
		{
			name:   "adopt unsorted",
			reason: "adopt is sorted",
			want: func() Expected {
				p := basePlan()
				p.Adopt = []string{"a", "b"}
				return Expected{Plan: p}
			},
			got: func() Plan {
				p := basePlan()
				p.Adopt = []string{"b", "a"}
				return p
			},
			diffs: []string{"adopt: not sorted", "adopt mismatch"},
		},
		{
			name:   "release",
			reason: "release is compared exactly",
			want:   func() Expected { return Expected{Plan: basePlan()} },
			got: func() Plan {
				p := basePlan()
				p.Release = []string{"agent-q"}
				return p
			},
			diffs: []string{"release mismatch"},
		},
		{
			name:   "relabel hash",
			reason: "relabel is compared exactly, hash included",
			want:   func() Expected { return Expected{Plan: basePlan()} },
			got: func() Plan {
				p := basePlan()
				p.Relabel[0].Hash = "def"
				return p
			},
			diffs: []string{"relabel mismatch"},
		},
		{
			name:   "revision number",
			reason: "revisions are compared exactly, numbers included",
			want:   func() Expected { return Expected{Plan: basePlan()} },
			got: func() Plan {
				p := basePlan()
				p.Revisions.Create[0].Revision = 3
				return p
			},
			diffs: []string{"revisions mismatch"},
		},
		{
			name:   "revision delete",
			reason: "revision deletes are compared exactly",
			want:   func() Expected { return Expected{Plan: basePlan()} },
			got: func() Plan {
				p := basePlan()
				p.Revisions.Delete = []string{}
				p.Revisions.Adopt = []string{"agent-old"}
				return p
			},
			diffs: []string{"revisions mismatch"},
		},
		{
			name:   "status counter",
			reason: "status counters are compared exactly",
			want:   func() Expected { return Expected{Plan: basePlan()} },
			got: func() Plan {
				p := basePlan()
				p.Status.NumberUnavailable = 1
				return p
			},
			diffs: []string{"status mismatch"},
		},
		{
			name:   "status collisionCount unset",
			reason: "collisionCount 0 differs from no collisionCount",
			want:   func() Expected { return Expected{Plan: basePlan()} },
			got: func() Plan {
				p := basePlan()
				p.Status.CollisionCount = nil
				return p
			},
			diffs: []string{"status mismatch"},
		},
		{
			name:   "rolloutStatus",
			reason: "rollout status is compared exactly",
			want:   func() Expected { return Expected{Plan: basePlan()} },
			got: func() Plan {
				p := basePlan()
				p.RolloutStatus.Done = true
				return p
			},
			diffs: []string{"rolloutStatus mismatch"},
		},
		{
			name:   "error missing",
			reason: "upstream's sync failed, ours did not",
			want: func() Expected {
				p := basePlan()
				p.Errors = []string{"boom"}
				return Expected{Plan: p}
			},
			got:   basePlan,
			diffs: []string{`errors: got none, want an error like "boom"`},
		},
		{
			name:   "error extra",
			reason: "our sync failed, upstream's did not",
			want:   func() Expected { return Expected{Plan: basePlan()} },
			got: func() Plan {
				p := basePlan()
				p.Errors = []string{"boom"}
				return p
			},
			diffs: []string{`errors: got ["boom"], want none`},
		},
		{
			name:   "null list",
			reason: "empty lists are [], never null",
			want:   func() Expected { return Expected{Plan: basePlan()} },
			got: func() Plan {
				p := basePlan()
				p.Revisions.Update = nil
				return p
			},
			diffs: []string{"schema: revisions.update is null, want []"},
		},
		{
			name:   "omitted list",
			reason: "empty lists are never omitted",
			want:   func() Expected { return Expected{Plan: basePlan()} },
			got:    basePlan,
			raw: func(t *testing.T, got []byte) []byte {
				var m map[string]any
				if err := json.Unmarshal(got, &m); err != nil {
					t.Fatal(err)
				}
				delete(m, "errors")
				return mustJSON(t, m)
			},
			diffs: []string{"schema: errors missing"},
		},
		{
			name:   "not JSON",
			reason: "garbage is a difference, not a panic",
			want:   func() Expected { return Expected{Plan: basePlan()} },
			got:    basePlan,
			raw:    func(*testing.T, []byte) []byte { return []byte("{") },
			diffs:  []string{"got: not a plan"},
		},
		{
			name:   "nondeterministic expected outcome",
			reason: "upstream's own outcome conforms",
			want:   nonDetExpected,
			got:    func() Plan { return nonDetExpected().Plan },
		},
		{
			name:   "nondeterministic mixed outcome",
			reason: "entries may be drawn from different outcomes",
			want:   nonDetExpected,
			got: func() Plan {
				p := nonDetExpected().Plan
				p.Create = []Create{{Node: "n2", Labels: map[string]string{"a": "b"}}}
				p.Delete = []Delete{{Pod: "p0"}, {Pod: "p3"}}
				return p
			},
		},
		{
			name:   "nondeterministic length",
			reason: "create and delete keep upstream's length",
			want:   nonDetExpected,
			got: func() Plan {
				p := nonDetExpected().Plan
				p.Delete = []Delete{{Pod: "p0"}, {Pod: "p1"}, {Pod: "p2"}}
				return p
			},
			diffs: []string{"delete: 3 entries, want 2"},
		},
		{
			name:   "nondeterministic never chosen",
			reason: "every entry is one upstream chose in some outcome",
			want:   nonDetExpected,
			got: func() Plan {
				p := nonDetExpected().Plan
				p.Create = []Create{{Node: "n3", Labels: map[string]string{"a": "b"}}}
				return p
			},
			diffs: []string{`create: upstream never chose {"node":"n3"`},
		},
		{
			name:   "nondeterministic create labels",
			reason: "non-deterministic creates are still compared by node, labels and tolerations",
			want:   nonDetExpected,
			got: func() Plan {
				p := nonDetExpected().Plan
				p.Create = []Create{{Node: "n1", Labels: map[string]string{"a": "c"}}}
				return p
			},
			diffs: []string{`create: upstream never chose {"node":"n1","labels":{"a":"c"}`},
		},
		{
			name:   "nondeterministic common entry missing",
			reason: "an entry upstream chose in every outcome must be present",
			want:   nonDetExpected,
			got: func() Plan {
				p := nonDetExpected().Plan
				p.Delete = []Delete{{Pod: "p1"}, {Pod: "p2"}}
				return p
			},
			diffs: []string{"delete: missing p0, which upstream chose in every outcome"},
		},
		{
			name:   "nondeterministic duplicate",
			reason: "an entry cannot fill two slots",
			want:   nonDetExpected,
			got: func() Plan {
				p := nonDetExpected().Plan
				p.Delete = []Delete{{Pod: "p0"}, {Pod: "p0"}}
				return p
			},
			diffs: []string{"delete: listed twice: p0"},
		},
		{
			name:   "nondeterministic exact fields",
			reason: "everything but create and delete stays exact",
			want:   nonDetExpected,
			got: func() Plan {
				p := nonDetExpected().Plan
				p.Status.NumberReady = 9
				return p
			},
			diffs: []string{"status mismatch"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.want()
			got := mustJSON(t, tt.got())
			if tt.raw != nil {
				got = tt.raw(t, got)
			}
			diffs := Compare(mustJSON(t, want), got)
			if len(diffs) != len(tt.diffs) {
				t.Fatalf("%s: Compare() = %d differences, want %d:\n%s", tt.reason, len(diffs), len(tt.diffs), strings.Join(diffs, "\n"))
			}
			for i, d := range diffs {
				if !strings.Contains(d, tt.diffs[i]) {
					t.Errorf("%s: difference %d = %q, want it to contain %q", tt.reason, i, d, tt.diffs[i])
				}
			}
		})
	}
}

func TestCompareBadExpected(t *testing.T) {
	diffs := Compare([]byte("nope"), mustJSON(t, basePlan()))
	if len(diffs) != 1 || !strings.HasPrefix(diffs[0], "expected: not a plan") {
		t.Errorf("Compare(garbage, plan) = %q, want one expected-side difference", diffs)
	}
}

// TestCasesAgainstThemselves checks that every expected.json conforms to
// itself, and that each recorded alternative outcome conforms to it too.
func TestCasesAgainstThemselves(t *testing.T) {
	SkipIfAbsent(t)
	cases, err := Cases(CasesDir())
	if err != nil {
		t.Fatalf("Cases: %v", err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			if diffs := Compare(c.Expected, c.Expected); len(diffs) != 0 {
				t.Errorf("Compare(expected, expected):\n%s", strings.Join(diffs, "\n"))
			}
			for i, alt := range c.Want.Alternatives {
				p := c.Want.Plan
				p.Create, p.Delete = alt.Create, alt.Delete
				if p.Create == nil {
					p.Create = []Create{}
				}
				if p.Delete == nil {
					p.Delete = []Delete{}
				}
				if diffs := Compare(c.Expected, mustJSON(t, p)); len(diffs) != 0 {
					t.Errorf("alternative %d:\n%s", i, strings.Join(diffs, "\n"))
				}
			}
		})
	}
}

func TestCasesLoaded(t *testing.T) {
	SkipIfAbsent(t)
	cases, err := Cases(CasesDir())
	if err != nil {
		t.Fatalf("Cases: %v", err)
	}
	var nonDet int
	for _, c := range cases {
		if !c.Want.IsDeterministic() {
			nonDet++
		}
	}
	got := struct{ Cases, NonDeterministic int }{len(cases), nonDet}
	want := struct{ Cases, NonDeterministic int }{65, 23}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("cases mismatch (-want +got):\n%s", d)
	}
}
