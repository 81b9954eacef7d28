package taints

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDaemonDefaults(t *testing.T) {
	base := []Toleration{
		{Key: KeyNotReady, Operator: Exists, Effect: NoExecute},
		{Key: KeyUnreachable, Operator: Exists, Effect: NoExecute},
		{Key: KeyDiskPressure, Operator: Exists, Effect: NoSchedule},
		{Key: KeyMemoryPressure, Operator: Exists, Effect: NoSchedule},
		{Key: KeyPIDPressure, Operator: Exists, Effect: NoSchedule},
		{Key: KeyUnschedulable, Operator: Exists, Effect: NoSchedule},
	}
	tests := []struct {
		name        string
		reason      string
		hostNetwork bool
		want        []Toleration
	}{
		{name: "pod network", reason: "AddOrUpdateDaemonPodTolerations: the six unconditional defaults", want: base},
		{name: "host network", reason: "AddOrUpdateDaemonPodTolerations: network-unavailable only with hostNetwork",
			hostNetwork: true,
			want:        append(append([]Toleration(nil), base...), Toleration{Key: KeyNetworkUnavailable, Operator: Exists, Effect: NoSchedule})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := DaemonDefaults(tc.hostNetwork)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("DaemonDefaults() mismatch (-want +got) (%s):\n%s", tc.reason, diff)
			}
			got[0].Key = "changed"
			if diff := cmp.Diff(tc.want, DaemonDefaults(tc.hostNetwork)); diff != "" {
				t.Errorf("DaemonDefaults() is not a fresh slice (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMergeDaemonDefaults(t *testing.T) {
	defs := DaemonDefaults(false)
	withDefs := func(tols ...Toleration) []Toleration {
		return append(tols, DaemonDefaults(false)...)
	}
	user := Toleration{Key: "example.com/dedicated", Operator: Equal, Value: "infra", Effect: NoSchedule}
	tests := []struct {
		name        string
		reason      string
		in          []Toleration
		hostNetwork bool
		want        []Toleration
	}{
		{
			name:   "nil input",
			reason: "every default is appended in order",
			want:   defs,
		},
		{
			name:   "unrelated tolerations kept first",
			reason: "non-matching tolerations keep their order; defaults are appended",
			in:     []Toleration{user},
			want:   withDefs(user),
		},
		{
			name:   "user not-ready with tolerationSeconds is replaced in place",
			reason: "AddOrUpdateTolerationInPodSpec: identity ignores tolerationSeconds, the default replaces it and drops the seconds",
			in: []Toleration{
				user,
				{Key: KeyNotReady, Operator: Exists, Effect: NoExecute, TolerationSeconds: ptr(int64(300))},
			},
			want: []Toleration{user, defs[0], defs[1], defs[2], defs[3], defs[4], defs[5]},
		},
		{
			name:   "Equal with empty value is a different toleration",
			reason: "AddOrUpdateTolerationInPodSpec: a toleration differing in operator is kept and the default appended",
			in:     []Toleration{{Key: KeyNotReady, Operator: Equal, Effect: NoExecute}},
			want:   withDefs(Toleration{Key: KeyNotReady, Operator: Equal, Effect: NoExecute}),
		},
		{
			name:   "empty operator is not Exists",
			reason: "operators are compared as written",
			in:     []Toleration{{Key: KeyUnschedulable, Effect: NoSchedule}},
			want:   withDefs(Toleration{Key: KeyUnschedulable, Effect: NoSchedule}),
		},
		{
			name:   "different effect is a different toleration",
			reason: "effect is part of the identity",
			in:     []Toleration{{Key: KeyNotReady, Operator: Exists, Effect: NoSchedule}},
			want:   withDefs(Toleration{Key: KeyNotReady, Operator: Exists, Effect: NoSchedule}),
		},
		{
			name:   "empty effect is a different toleration",
			reason: "identity compares effects as written, even though an empty effect would match more",
			in:     []Toleration{{Key: KeyNotReady, Operator: Exists}},
			want:   withDefs(Toleration{Key: KeyNotReady, Operator: Exists}),
		},
		{
			name:   "every matching duplicate is replaced",
			reason: "AddOrUpdateTolerationInPodSpec replaces each match, it does not dedupe",
			in: []Toleration{
				{Key: KeyUnschedulable, Operator: Exists, Effect: NoSchedule, TolerationSeconds: ptr(int64(1))},
				user,
				{Key: KeyUnschedulable, Operator: Exists, Effect: NoSchedule, TolerationSeconds: ptr(int64(2))},
			},
			want: []Toleration{defs[5], user, defs[5], defs[0], defs[1], defs[2], defs[3], defs[4]},
		},
		{
			name:        "network-unavailable with hostNetwork",
			reason:      "AddOrUpdateDaemonPodTolerations: network-unavailable",
			hostNetwork: true,
			in:          []Toleration{user},
			want:        append([]Toleration{user}, DaemonDefaults(true)...),
		},
		{
			name:   "network-unavailable without hostNetwork is left alone",
			reason: "default #7 is not applied, so a user toleration for it keeps its seconds",
			in:     []Toleration{{Key: KeyNetworkUnavailable, Operator: Exists, Effect: NoSchedule, TolerationSeconds: ptr(int64(7))}},
			want:   withDefs(Toleration{Key: KeyNetworkUnavailable, Operator: Exists, Effect: NoSchedule, TolerationSeconds: ptr(int64(7))}),
		},
		{
			name:   "tolerate-everything is not a default",
			reason: "an empty-key Exists toleration has a different identity and stays beside the defaults",
			in:     []Toleration{{Operator: Exists}},
			want:   withDefs(Toleration{Operator: Exists}),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := CloneTolerations(tc.in)
			got := MergeDaemonDefaults(tc.in, tc.hostNetwork)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("MergeDaemonDefaults() mismatch (-want +got) (%s):\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(before, tc.in); diff != "" {
				t.Errorf("MergeDaemonDefaults() changed its input (-before +after):\n%s", diff)
			}
		})
	}
}
