package main

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	k8smetrics "k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"

	// client-go's own metrics, under the names kube-controller-manager
	// exports them: the work queue's (workqueue_depth, workqueue_adds_total,
	// workqueue_queue_duration_seconds, workqueue_work_duration_seconds,
	// workqueue_retries_total, ...; label name="daemonset"), the REST
	// client's (rest_client_requests_total, ...) and leader election's
	// (leader_election_master_status). Each package installs its provider
	// in client-go when imported; the metrics register on first use.
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
)

// controllerName is the controller label of the sync metrics and the
// name label of the work queue's.
const controllerName = "daemonset"

// The controller's own metrics, in controller-runtime's names, so that
// the dashboards and alerts written for controller-runtime controllers
// read them as they are. The buckets are this controller's: a sync takes
// from a millisecond (nothing to write) to seconds (a slow-start batch of
// creates at the client's QPS).
var (
	syncDuration = k8smetrics.NewHistogramVec(&k8smetrics.HistogramOpts{
		Name:           "controller_runtime_reconcile_time_seconds",
		Help:           "Length of time per sync of a DaemonSet (plan and writes), by controller.",
		Buckets:        k8smetrics.ExponentialBuckets(0.001, 2, 16),
		StabilityLevel: k8smetrics.ALPHA,
	}, []string{"controller"})
	syncs = k8smetrics.NewCounterVec(&k8smetrics.CounterOpts{
		Name:           "controller_runtime_reconcile_total",
		Help:           "Syncs of a DaemonSet by controller and result: success, error (retried with the rate limit) or requeue_after (synced again after a delay).",
		StabilityLevel: k8smetrics.ALPHA,
	}, []string{"controller", "result"})
	syncErrors = k8smetrics.NewCounterVec(&k8smetrics.CounterOpts{
		Name:           "controller_runtime_reconcile_errors_total",
		Help:           "Syncs of a DaemonSet that failed and were retried with the rate limit, by controller.",
		StabilityLevel: k8smetrics.ALPHA,
	}, []string{"controller"})
	// apiRequests counts what the controller costs the API server, by
	// verb and resource (client-go's rest_client_requests_total has the
	// HTTP method but not the resource): the writes by verb
	// (create/update/patch/delete of pods, daemonsets/status,
	// controllerrevisions, events, leases) and the reads.
	apiRequests = k8smetrics.NewCounterVec(&k8smetrics.CounterOpts{
		Name:           "daemonplan_controller_api_requests_total",
		Help:           "Requests to the API server by verb (create, update, patch, delete, get, list, watch), resource (with /subresource) and HTTP status code.",
		StabilityLevel: k8smetrics.ALPHA,
	}, []string{"verb", "resource", "code"})
)

func init() {
	legacyregistry.MustRegister(syncDuration, syncs, syncErrors, apiRequests)
}

// observeSync records one sync that started at start and returned
// requeue and err.
func observeSync(start time.Time, requeue time.Duration, err error) {
	syncDuration.WithLabelValues(controllerName).Observe(time.Since(start).Seconds())
	result := "success"
	switch {
	case err != nil:
		result = "error"
		syncErrors.WithLabelValues(controllerName).Inc()
	case requeue > 0:
		result = "requeue_after"
	}
	syncs.WithLabelValues(controllerName, result).Inc()
}

// metricsHandler serves every registered metric in Prometheus' text format.
func metricsHandler() http.Handler { return legacyregistry.Handler() }

// countRequests wraps the API client's transport (rest.Config's
// WrapTransport) to count every request in apiRequests.
func countRequests(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(req)
		code := "<error>"
		if err == nil {
			code = strconv.Itoa(resp.StatusCode)
		}
		verb, resource := requestKind(req.Method, req.URL.Path, req.URL.Query().Get("watch"))
		apiRequests.WithLabelValues(verb, resource, code).Inc()
		return resp, err
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// requestKind returns the Kubernetes verb and the resource (with its
// subresource, "daemonsets/status") of a request to an API server path:
// /api/v1/... or /apis/GROUP/VERSION/..., then namespaces/NS/ before a
// namespaced resource, then the resource, its name and a subresource. A
// GET is a watch with watch=true or 1, a list without a name, a get with
// one. Any other path is resource "other".
func requestKind(method, path, watch string) (verb, resource string) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		parts = parts[3:]
	default:
		parts = nil
	}
	if len(parts) >= 3 && parts[0] == "namespaces" {
		parts = parts[2:] // namespaces/NS/RESOURCE...; namespaces/NS alone is the namespace itself
	}
	named := len(parts) >= 2
	switch {
	case len(parts) == 0:
		resource = "other"
	case len(parts) >= 3:
		resource = parts[0] + "/" + parts[2]
	default:
		resource = parts[0]
	}
	switch method {
	case http.MethodPost:
		verb = "create"
	case http.MethodPut:
		verb = "update"
	case http.MethodPatch:
		verb = "patch"
	case http.MethodDelete:
		verb = "delete"
		if !named {
			verb = "deletecollection"
		}
	case http.MethodGet:
		switch {
		case watch == "true" || watch == "1":
			verb = "watch"
		case named:
			verb = "get"
		default:
			verb = "list"
		}
	default:
		verb = strings.ToLower(method)
	}
	return verb, resource
}
