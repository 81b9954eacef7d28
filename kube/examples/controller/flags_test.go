package main

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestParseFlags checks the command line: kube-controller-manager's
// defaults, the scope flags, and every refused combination with the flag
// it names.
func TestParseFlags(t *testing.T) {
	defaults := options{namespace: "default", qps: 20, burst: 30, contentType: protobuf, workers: 2, resync: time.Minute,
		leader: defaultLeaderOptions(), metricsAddr: "0", healthAddr: "0"}
	with := func(f func(*options)) options {
		o := defaults
		f(&o)
		return o
	}
	for _, tc := range []struct {
		name, reason string
		args         []string
		want         options
		wantErr      []string // substrings of the error, each naming a flag
	}{
		{name: "defaults", reason: "kube-controller-manager's QPS 20, burst 30, 2 workers, protobuf; lease 15s/10s/2s; no election, no endpoints",
			want: defaults},
		{name: "all namespaces", reason: "--all-namespaces is the empty namespace, every namespace to informers and the lister",
			args: []string{"--all-namespaces"}, want: with(func(o *options) { o.namespace, o.allNamespaces = "", true })},
		{name: "one DaemonSet", reason: "a name within a namespace, as before",
			args: []string{"--namespace", "kube-system", "--name", "agent"}, want: with(func(o *options) { o.namespace, o.name = "kube-system", "agent" })},
		{name: "leader election", reason: "kube-controller-manager's flag names",
			args: []string{"--leader-elect", "--leader-elect-lease-duration=30s", "--leader-elect-renew-deadline=20s", "--leader-elect-retry-period=4s",
				"--leader-elect-resource-name=dp", "--leader-elect-resource-namespace=ops"},
			want: with(func(o *options) {
				o.leader = leaderOptions{Elect: true, LeaseDuration: 30 * time.Second, RenewDeadline: 20 * time.Second, RetryPeriod: 4 * time.Second,
					ResourceLock: "leases", ResourceName: "dp", ResourceNamespace: "ops"}
			})},
		{name: "endpoints", reason: "controller-runtime's flag names",
			args: []string{"--metrics-bind-address=:8080", "--health-probe-bind-address=:8081", "--kube-api-content-type=application/json"},
			want: with(func(o *options) { o.metricsAddr, o.healthAddr, o.contentType = ":8080", ":8081", jsonType })},
		{name: "profiling", reason: "kube-controller-manager's flag name; the profiles are served beside the metrics",
			args: []string{"--metrics-bind-address=:8080", "--profiling"}, want: with(func(o *options) { o.metricsAddr, o.profiling = ":8080", true })},
		{name: "profiling without metrics", reason: "the profiles would be served nowhere",
			args: []string{"--profiling"}, wantErr: []string{"--profiling"}},
		{name: "all namespaces and a namespace", reason: "which one was meant is not clear",
			args: []string{"--all-namespaces", "--namespace", "x"}, wantErr: []string{"--all-namespaces"}},
		{name: "all namespaces and a name", reason: "a name is within one namespace",
			args: []string{"--all-namespaces", "--name", "x"}, wantErr: []string{"--name"}},
		{name: "empty namespace", reason: "--all-namespaces says every namespace; an empty --namespace is a mistake",
			args: []string{"--namespace="}, wantErr: []string{"--namespace"}},
		{name: "bad numbers", reason: "every problem at once, each with its flag",
			args:    []string{"--kube-api-qps=0", "--kube-api-burst=-1", "--concurrent-daemonset-syncs=0", "--resync=-1s", "--kube-api-content-type=text/plain"},
			wantErr: []string{"--kube-api-qps", "--kube-api-burst", "--concurrent-daemonset-syncs", "--resync", "--kube-api-content-type"}},
		{name: "lease bounds", reason: "client-go's bounds: lease > renew deadline > 1.2 retry periods",
			args:    []string{"--leader-elect", "--leader-elect-lease-duration=10s", "--leader-elect-renew-deadline=10s", "--leader-elect-retry-period=9s"},
			wantErr: []string{"--leader-elect-lease-duration", "--leader-elect-renew-deadline"}},
		{name: "lock kind", reason: "only Leases: kube-controller-manager's default; client-go refuses the Endpoints and ConfigMap locks",
			args: []string{"--leader-elect", "--leader-elect-resource-lock=endpoints"}, wantErr: []string{"--leader-elect-resource-lock"}},
		{name: "lease bounds without election", reason: "the durations are not used, so not checked",
			args: []string{"--leader-elect-lease-duration=1s"}, want: with(func(o *options) { o.leader.LeaseDuration = time.Second })},
		{name: "arguments", reason: "the controller takes flags only",
			args: []string{"extra"}, wantErr: []string{"unexpected arguments"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseFlags(tc.args, io.Discard)
			if len(tc.wantErr) > 0 {
				if err == nil {
					t.Fatalf("parseFlags(%q) = nil error, want one naming %q (%s)", tc.args, tc.wantErr, tc.reason)
				}
				for _, w := range tc.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("parseFlags(%q) error %q does not name %s (%s)", tc.args, err, w, tc.reason)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("parseFlags(%q): %v (%s)", tc.args, err, tc.reason)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(options{})); diff != "" {
				t.Errorf("parseFlags(%q) mismatch (-want +got) (%s):\n%s", tc.args, tc.reason, diff)
			}
		})
	}
}
