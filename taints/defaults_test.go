package taints

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/api"
)

func TestDaemonDefaults(t *testing.T) {
	base := []api.Toleration{
		{Key: api.TaintNodeNotReady, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute},
		{Key: api.TaintNodeUnreachable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute},
		{Key: api.TaintNodeDiskPressure, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
		{Key: api.TaintNodeMemoryPressure, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
		{Key: api.TaintNodePIDPressure, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
		{Key: api.TaintNodeUnschedulable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
	}
	tests := []struct {
		name        string
		reason      string
		hostNetwork bool
		want        []api.Toleration
	}{
		{name: "pod network", reason: "AddOrUpdateDaemonPodTolerations: the six unconditional defaults", want: base},
		{name: "host network", reason: "AddOrUpdateDaemonPodTolerations: network-unavailable only with hostNetwork",
			hostNetwork: true,
			want:        append(append([]api.Toleration(nil), base...), api.Toleration{Key: api.TaintNodeNetworkUnavailable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule})},
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
	withDefs := func(tols ...api.Toleration) []api.Toleration {
		return append(tols, DaemonDefaults(false)...)
	}
	user := api.Toleration{Key: "example.com/dedicated", Operator: api.TolerationOpEqual, Value: "infra", Effect: api.TaintEffectNoSchedule}
	tests := []struct {
		name        string
		reason      string
		in          []api.Toleration
		hostNetwork bool
		want        []api.Toleration
	}{
		{
			name:   "nil input",
			reason: "every default is appended in order",
			want:   defs,
		},
		{
			name:   "unrelated tolerations kept first",
			reason: "non-matching tolerations keep their order; defaults are appended",
			in:     []api.Toleration{user},
			want:   withDefs(user),
		},
		{
			name:   "user not-ready with tolerationSeconds is replaced in place",
			reason: "AddOrUpdateTolerationInPodSpec: identity ignores tolerationSeconds, the default replaces it and drops the seconds",
			in: []api.Toleration{
				user,
				{Key: api.TaintNodeNotReady, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
			},
			want: []api.Toleration{user, defs[0], defs[1], defs[2], defs[3], defs[4], defs[5]},
		},
		{
			name:   "Equal with empty value is a different toleration",
			reason: "AddOrUpdateTolerationInPodSpec: a toleration differing in operator is kept and the default appended",
			in:     []api.Toleration{{Key: api.TaintNodeNotReady, Operator: api.TolerationOpEqual, Effect: api.TaintEffectNoExecute}},
			want:   withDefs(api.Toleration{Key: api.TaintNodeNotReady, Operator: api.TolerationOpEqual, Effect: api.TaintEffectNoExecute}),
		},
		{
			name:   "empty operator is not Exists",
			reason: "operators are compared as written",
			in:     []api.Toleration{{Key: api.TaintNodeUnschedulable, Effect: api.TaintEffectNoSchedule}},
			want:   withDefs(api.Toleration{Key: api.TaintNodeUnschedulable, Effect: api.TaintEffectNoSchedule}),
		},
		{
			name:   "different effect is a different toleration",
			reason: "effect is part of the identity",
			in:     []api.Toleration{{Key: api.TaintNodeNotReady, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule}},
			want:   withDefs(api.Toleration{Key: api.TaintNodeNotReady, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule}),
		},
		{
			name:   "empty effect is a different toleration",
			reason: "identity compares effects as written, even though an empty effect would match more",
			in:     []api.Toleration{{Key: api.TaintNodeNotReady, Operator: api.TolerationOpExists}},
			want:   withDefs(api.Toleration{Key: api.TaintNodeNotReady, Operator: api.TolerationOpExists}),
		},
		{
			name:   "every matching duplicate is replaced",
			reason: "AddOrUpdateTolerationInPodSpec replaces each match, it does not dedupe",
			in: []api.Toleration{
				{Key: api.TaintNodeUnschedulable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule, TolerationSeconds: ptr(int64(1))},
				user,
				{Key: api.TaintNodeUnschedulable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule, TolerationSeconds: ptr(int64(2))},
			},
			want: []api.Toleration{defs[5], user, defs[5], defs[0], defs[1], defs[2], defs[3], defs[4]},
		},
		{
			name:        "network-unavailable with hostNetwork",
			reason:      "AddOrUpdateDaemonPodTolerations: network-unavailable",
			hostNetwork: true,
			in:          []api.Toleration{user},
			want:        append([]api.Toleration{user}, DaemonDefaults(true)...),
		},
		{
			name:   "network-unavailable without hostNetwork is left alone",
			reason: "default #7 is not applied, so a user toleration for it keeps its seconds",
			in:     []api.Toleration{{Key: api.TaintNodeNetworkUnavailable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule, TolerationSeconds: ptr(int64(7))}},
			want:   withDefs(api.Toleration{Key: api.TaintNodeNetworkUnavailable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule, TolerationSeconds: ptr(int64(7))}),
		},
		{
			name:   "tolerate-everything is not a default",
			reason: "an empty-key Exists toleration has a different identity and stays beside the defaults",
			in:     []api.Toleration{{Operator: api.TolerationOpExists}},
			want:   withDefs(api.Toleration{Operator: api.TolerationOpExists}),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := api.CloneTolerations(tc.in)
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
