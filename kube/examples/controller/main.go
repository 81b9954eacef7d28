package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/google/uuid"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/leaderelection"
)

// The API client's settings, as kube-controller-manager's defaults
// (--kube-api-qps, --kube-api-burst, --kube-api-content-type) and its
// --concurrent-daemonset-syncs.
const (
	defaultQPS     = 20
	defaultBurst   = 30
	defaultWorkers = 2
	protobuf       = "application/vnd.kubernetes.protobuf"
	jsonType       = "application/json"
)

// options are the command's flags.
type options struct {
	kubeconfig    string
	namespace     string // "" for every namespace
	name          string
	qps           float32
	burst         int
	contentType   string
	workers       int
	resync        time.Duration
	leader        leaderOptions
	metricsAddr   string // "" or "0": no metrics endpoint
	healthAddr    string // "" or "0": no health endpoint
	profiling     bool   // /debug/pprof on the metrics endpoint
	allNamespaces bool
}

// parseFlags parses the command line args (without the program name).
// Errors name the flag; the usage goes to out.
func parseFlags(args []string, out io.Writer) (options, error) {
	o := options{leader: defaultLeaderOptions()}
	fs := flag.NewFlagSet("controller", flag.ContinueOnError)
	fs.SetOutput(out)
	var qps float64
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, ~/.kube/config, or in-cluster)")
	fs.StringVar(&o.namespace, "namespace", "default", "namespace of the DaemonSets")
	fs.BoolVar(&o.allNamespaces, "all-namespaces", false, "control the DaemonSets of every namespace (instead of --namespace)")
	fs.StringVar(&o.name, "name", "", "name of the one DaemonSet to control (default: every DaemonSet of the namespace)")
	fs.Float64Var(&qps, "kube-api-qps", defaultQPS, "queries per second to the API server")
	fs.IntVar(&o.burst, "kube-api-burst", defaultBurst, "burst of queries to the API server")
	fs.StringVar(&o.contentType, "kube-api-content-type", protobuf, "content type of requests sent to the API server ("+protobuf+" or "+jsonType+")")
	fs.IntVar(&o.workers, "concurrent-daemonset-syncs", defaultWorkers, "DaemonSets synced at once")
	fs.DurationVar(&o.resync, "resync", time.Minute, "sync every DaemonSet at least this often (0: only on changes)")
	l := &o.leader
	fs.BoolVar(&l.Elect, "leader-elect", false, "run only while holding a Lease, so that of several replicas one controls at a time")
	fs.DurationVar(&l.LeaseDuration, "leader-elect-lease-duration", l.LeaseDuration, "how long standby replicas wait after the last renewal before taking the lease over")
	fs.DurationVar(&l.RenewDeadline, "leader-elect-renew-deadline", l.RenewDeadline, "how long the leader retries renewing before it gives up the lead (and exits)")
	fs.DurationVar(&l.RetryPeriod, "leader-elect-retry-period", l.RetryPeriod, "how often to try to acquire or renew the lease")
	fs.StringVar(&l.ResourceLock, "leader-elect-resource-lock", l.ResourceLock, "the kind of lock object (only leases)")
	fs.StringVar(&l.ResourceName, "leader-elect-resource-name", l.ResourceName, "name of the Lease")
	fs.StringVar(&l.ResourceNamespace, "leader-elect-resource-namespace", l.ResourceNamespace, "namespace of the Lease")
	fs.StringVar(&o.metricsAddr, "metrics-bind-address", "0", "address to serve Prometheus metrics on at /metrics, as :8080 (0: none)")
	fs.StringVar(&o.healthAddr, "health-probe-bind-address", "0", "address to serve /healthz on, as :8081; may be the metrics address (0: none)")
	fs.BoolVar(&o.profiling, "profiling", false, "serve Go's profiles at /debug/pprof/ on the metrics address")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	o.qps = float32(qps)
	var errs []error
	if fs.NArg() > 0 {
		errs = append(errs, fmt.Errorf("unexpected arguments %q: the controller takes flags only", fs.Args()))
	}
	nsSet := false
	fs.Visit(func(f *flag.Flag) { nsSet = nsSet || f.Name == "namespace" })
	switch {
	case o.allNamespaces && nsSet:
		errs = append(errs, errors.New("--all-namespaces: cannot be used with --namespace"))
	case o.allNamespaces && o.name != "":
		errs = append(errs, errors.New("--name: a DaemonSet is named within one --namespace, not with --all-namespaces"))
	case o.allNamespaces:
		o.namespace = ""
	case o.namespace == "":
		errs = append(errs, errors.New("--namespace: empty; use --all-namespaces for every namespace"))
	}
	if o.contentType != protobuf && o.contentType != jsonType {
		errs = append(errs, fmt.Errorf("--kube-api-content-type: %q: must be %s or %s", o.contentType, protobuf, jsonType))
	}
	if o.qps <= 0 {
		errs = append(errs, fmt.Errorf("--kube-api-qps: %v: must be positive", qps))
	}
	if o.burst <= 0 {
		errs = append(errs, fmt.Errorf("--kube-api-burst: %d: must be positive", o.burst))
	}
	if o.workers <= 0 {
		errs = append(errs, fmt.Errorf("--concurrent-daemonset-syncs: %d: must be positive", o.workers))
	}
	if o.profiling && !on(o.metricsAddr) {
		errs = append(errs, errors.New("--profiling: the profiles are served on the metrics address: set --metrics-bind-address"))
	}
	if o.resync < 0 {
		errs = append(errs, fmt.Errorf("--resync: %v: must not be negative", o.resync))
	}
	errs = append(errs, o.leader.validate())
	return o, errors.Join(errs...)
}

func main() {
	o, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "controller:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "controller:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) error {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = o.kubeconfig
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = o.qps, o.burst
	cfg.ContentType, cfg.AcceptContentTypes = o.contentType, o.contentType+","+jsonType
	cfg.UserAgent = "daemonplan-example-controller"
	// As kube-controller-manager: responses uncompressed, watch streams
	// included. Compression costs both ends CPU on the short path between
	// a controller and its API server, and the informers decode every
	// event.
	cfg.DisableCompression = true
	cfg.Wrap(countRequests)
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	// Leader election has a client of its own, as in
	// kube-controller-manager: a rate limiter the controller's writes
	// keep busy must not delay the lease's renewals.
	leCfg := rest.CopyConfig(cfg)
	leCfg.UserAgent += "/leader-election"
	leClient, err := kubernetes.NewForConfig(leCfg)
	if err != nil {
		return err
	}
	c := &Controller{Client: client, Namespace: o.namespace, Name: o.name, Now: time.Now, Resync: o.resync, Workers: o.workers}
	return runController(ctx, c, leClient, o)
}

// runController runs c with o's leader election and endpoints; the tests
// run it with a fake client.
func runController(ctx context.Context, c *Controller, leClient kubernetes.Interface, o options) error {
	var watchdog *leaderelection.HealthzAdaptor
	if o.leader.Elect {
		watchdog = leaderelection.NewLeaderHealthzAdaptor(healthzTimeout)
	}
	checks := []healthCheck{
		{"ping", func(*http.Request) error { return nil }},
		{"informer-sync", c.informersSynced},
	}
	if watchdog != nil {
		checks = append(checks, healthCheck{"leader-election", watchdog.Check})
	}
	handlers := map[string]*http.ServeMux{}
	mux := func(addr string) *http.ServeMux {
		if handlers[addr] == nil {
			handlers[addr] = http.NewServeMux()
		}
		return handlers[addr]
	}
	if on(o.metricsAddr) {
		mux(o.metricsAddr).Handle("/metrics", metricsHandler())
	}
	if o.profiling {
		m := mux(o.metricsAddr)
		m.HandleFunc("/debug/pprof/", pprof.Index)
		m.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		m.HandleFunc("/debug/pprof/profile", pprof.Profile)
		m.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		m.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	if on(o.healthAddr) {
		h := healthHandler(checks...)
		mux(o.healthAddr).Handle("/healthz", h)
		mux(o.healthAddr).Handle("/healthz/", h)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	serveErr := make(chan error, len(handlers))
	for addr, h := range handlers {
		stop, err := serve(addr, h, serveErr)
		if err != nil {
			return err
		}
		defer stop()
	}
	done := make(chan error, 1)
	go func() {
		if !o.leader.Elect {
			done <- c.Run(ctx)
			return
		}
		id, err := identity()
		if err != nil {
			done <- err
			return
		}
		done <- runElected(ctx, leClient, o.leader, id, watchdog, c.Run)
	}()
	select {
	case err := <-done:
		return err
	case err := <-serveErr:
		cancel()
		<-done
		return err
	}
}

// on reports whether an address flag asks for an endpoint.
func on(addr string) bool { return addr != "" && addr != "0" }

// serve listens on addr (failing at once when it cannot) and serves h
// until stop is called; a failure of the server goes to errs.
func serve(addr string, h http.Handler, errs chan<- error) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			errs <- fmt.Errorf("serving %s: %w", addr, err)
		}
	}()
	return func() { _ = srv.Close() }, nil
}

// identity is this process's name in the Lease, as kube-controller-manager
// makes it: the host name and a random UUID, so that two processes on one
// host (or a restart) never take each other for the holder.
func identity() (string, error) {
	host, err := os.Hostname()
	if err != nil {
		return "", fmt.Errorf("leader election identity: %w", err)
	}
	return strings.Join([]string{host, uuid.NewString()}, "_"), nil
}
