package main

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"

	"github.com/daemonplan/daemonplan/kube/internal/fakeclient"
	"github.com/daemonplan/daemonplan/kube/load"
)

// readyCluster is the test cluster (one DaemonSet default/agent, four
// nodes it runs on) in a fake clientset whose "kubelet" makes every
// created pod Ready at once.
func readyCluster(t *testing.T) *fakeclient.Clientset {
	t.Helper()
	c, err := load.Read(strings.NewReader(cluster))
	if err != nil {
		t.Fatal(err)
	}
	fc := fakeclient.New(c, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	fc.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		pod := a.(k8stesting.CreateAction).GetObject().(*corev1.Pod)
		pod.Status.Phase = corev1.PodRunning
		pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(time.Now())}}
		return false, nil, nil
	})
	return fc
}

// waitPods polls until the namespace default has n pods whose first
// container runs image, failing the test after budget.
func waitPods(t *testing.T, fc *fakeclient.Clientset, n int, image string) {
	t.Helper()
	deadline := time.Now().Add(budget)
	for {
		pods, err := fc.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		for _, p := range pods.Items {
			if p.DeletionTimestamp == nil && p.Spec.Containers[0].Image == image {
				got++
			}
		}
		if got == n && len(pods.Items) == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %d pods of %s within %v: %d of %d", n, image, budget, got, len(pods.Items))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// freeAddr returns a local address no one listens on now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// sample returns the value of the sample name{labels} in a Prometheus
// text exposition (labels as printed: sorted, quoted), and whether there
// is one.
func sample(text, name, labels string) (float64, bool) {
	prefix := name + "{" + labels + "} "
	if labels == "" {
		prefix = name + " "
	}
	for line := range strings.SplitSeq(text, "\n") {
		if v, ok := strings.CutPrefix(line, prefix); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return f, err == nil
		}
	}
	return 0, false
}

// TestMetricsEndpoint runs the controller as the command does (through
// runController), on a fake clientset, with the metrics and health
// endpoints on one address; once the DaemonSet has its pods it scrapes
// /metrics and checks the names an operator's dashboards read, and that
// /healthz is healthy with its checks.
func TestMetricsEndpoint(t *testing.T) {
	fc := readyCluster(t)
	addr := freeAddr(t)
	o := options{leader: defaultLeaderOptions(), metricsAddr: addr, healthAddr: addr, profiling: true}
	c := &Controller{Client: fc, Namespace: "default", Now: time.Now, Recorder: record.NewFakeRecorder(1000)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- runController(ctx, c, fc, o) }()
	waitPods(t, fc, 4, "agent:v1")

	code, text := get(t, "http://"+addr+"/metrics")
	if code != http.StatusOK {
		t.Fatalf("GET /metrics: %d\n%s", code, text)
	}
	for _, m := range []struct {
		name, labels string
		positive     bool // at least one observation; else present
	}{
		{"workqueue_adds_total", `name="daemonset"`, true},
		{"workqueue_depth", `name="daemonset"`, false},
		{"workqueue_queue_duration_seconds_count", `name="daemonset"`, true},
		{"workqueue_work_duration_seconds_count", `name="daemonset"`, true},
		{"workqueue_retries_total", `name="daemonset"`, false},
		{"workqueue_longest_running_processor_seconds", `name="daemonset"`, false},
		{"workqueue_unfinished_work_seconds", `name="daemonset"`, false},
		{"controller_runtime_reconcile_time_seconds_count", `controller="daemonset"`, true},
		{"controller_runtime_reconcile_total", `controller="daemonset",result="success"`, true},
	} {
		v, ok := sample(text, m.name, m.labels)
		switch {
		case !ok:
			t.Errorf("/metrics has no %s{%s}", m.name, m.labels)
		case m.positive && v <= 0:
			t.Errorf("/metrics: %s{%s} = %v, want > 0", m.name, m.labels, v)
		}
	}
	code, body := get(t, "http://"+addr+"/healthz?verbose")
	if code != http.StatusOK || !strings.Contains(body, "[+]informer-sync ok") || !strings.Contains(body, "[+]ping ok") {
		t.Errorf("GET /healthz?verbose = %d %q, want 200 with informer-sync and ping ok", code, body)
	}
	if code, body := get(t, "http://"+addr+"/healthz/informer-sync"); code != http.StatusOK || body != "ok" {
		t.Errorf("GET /healthz/informer-sync = %d %q, want 200 ok", code, body)
	}
	if code, body := get(t, "http://"+addr+"/debug/pprof/heap?debug=1"); code != http.StatusOK || !strings.Contains(body, "heap profile") {
		t.Errorf("GET /debug/pprof/heap with --profiling = %d %.80q, want 200 and a heap profile", code, body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Error(err)
	}
	// Stopped, the controller's informer check is healthy again (a
	// standby holds no informers) and the endpoints are closed.
	if err := c.informersSynced(nil); err != nil {
		t.Errorf("informer-sync of a stopped controller: %v", err)
	}
	if _, err := http.Get("http://" + addr + "/healthz"); err == nil {
		t.Error("the endpoints still answer after the controller stopped")
	}
}

// TestHealthChecks: /healthz fails with the failed check's name and
// reason, /healthz/NAME checks NAME alone, and the informer check fails
// exactly while the controller waits for its informers.
func TestHealthChecks(t *testing.T) {
	c := &Controller{}
	failing := healthCheck{"leader-election", func(*http.Request) error { return errors.New("lease not renewed") }}
	h := healthHandler(healthCheck{"informer-sync", c.informersSynced}, failing)
	for _, tc := range []struct {
		name, reason string
		phase        int32
		path         string
		wantCode     int
		wantBody     []string
	}{
		{"one failed", "the failed check and its reason", phaseRunning, "/healthz", 500, []string{"[+]informer-sync ok", "[-]leader-election failed: lease not renewed"}},
		{"one check", "a probe may ask for one check", phaseRunning, "/healthz/informer-sync", 200, []string{"ok"}},
		{"syncing", "waiting for the informers' first lists", phaseSyncing, "/healthz/informer-sync", 500, []string{"[-]informer-sync failed"}},
		{"standby", "not running holds no informers, and is healthy", phaseStopped, "/healthz/informer-sync", 200, []string{"ok"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c.phase.Store(tc.phase)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tc.path, nil))
			if rec.Code != tc.wantCode {
				t.Errorf("GET %s = %d, want %d (%s)\n%s", tc.path, rec.Code, tc.wantCode, tc.reason, rec.Body)
			}
			for _, w := range tc.wantBody {
				if !strings.Contains(rec.Body.String(), w) {
					t.Errorf("GET %s: body %q lacks %q (%s)", tc.path, rec.Body, w, tc.reason)
				}
			}
		})
	}
}

// TestRequestKind: the verb and resource of the API paths a controller
// uses.
func TestRequestKind(t *testing.T) {
	for _, tc := range []struct {
		method, path, watch string
		verb, resource      string
	}{
		{"POST", "/api/v1/namespaces/default/pods", "", "create", "pods"},
		{"DELETE", "/api/v1/namespaces/default/pods/agent-x", "", "delete", "pods"},
		{"PATCH", "/api/v1/namespaces/default/pods/agent-x", "", "patch", "pods"},
		{"PUT", "/apis/apps/v1/namespaces/default/daemonsets/agent/status", "", "update", "daemonsets/status"},
		{"GET", "/apis/apps/v1/namespaces/default/daemonsets/agent", "", "get", "daemonsets"},
		{"GET", "/api/v1/nodes", "", "list", "nodes"},
		{"GET", "/api/v1/nodes", "true", "watch", "nodes"},
		{"GET", "/api/v1/pods", "1", "watch", "pods"},
		{"PUT", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/daemonplan-controller", "", "update", "leases"},
		{"POST", "/api/v1/namespaces/default/events", "", "create", "events"},
		{"DELETE", "/api/v1/namespaces/default/pods", "", "deletecollection", "pods"},
		{"GET", "/api/v1/namespaces/default", "", "get", "namespaces"},
		{"GET", "/version", "", "list", "other"},
	} {
		verb, resource := requestKind(tc.method, tc.path, tc.watch)
		if verb != tc.verb || resource != tc.resource {
			t.Errorf("requestKind(%s %s watch=%q) = %s %s, want %s %s", tc.method, tc.path, tc.watch, verb, resource, tc.verb, tc.resource)
		}
	}
}

// TestCountRequests: a client built as the command builds it counts each
// request by verb, resource and code in
// daemonplan_controller_api_requests_total.
func TestCountRequests(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusCreated)
		}
		_, _ = io.WriteString(w, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default"}}`)
	}))
	defer srv.Close()
	cfg := &rest.Config{Host: srv.URL}
	cfg.Wrap(countRequests)
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	scrape := func() string {
		rec := httptest.NewRecorder()
		metricsHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
		return rec.Body.String()
	}
	const name = "daemonplan_controller_api_requests_total"
	creates := `code="201",resource="pods",verb="create"`
	deletes := `code="200",resource="pods",verb="delete"`
	before := scrape()
	ctx := context.Background()
	for range 2 {
		if _, err := client.CoreV1().Pods("default").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := client.CoreV1().Pods("default").Delete(ctx, "p", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	after := scrape()
	for _, tc := range []struct {
		labels string
		want   float64
	}{{creates, 2}, {deletes, 1}} {
		b, _ := sample(before, name, tc.labels)
		a, ok := sample(after, name, tc.labels)
		if !ok || a-b != tc.want {
			t.Errorf("%s{%s} went from %v to %v, want +%v", name, tc.labels, b, a, tc.want)
		}
	}
}
