package testbed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// FaultProxy stands between one controller and kube-apiserver, on
// 127.0.0.1 over plain HTTP: the controller reaches the server through it
// (its Kubeconfig), and it injects faults into the controller's client
// transport while they are on:
//
//   - a write (POST, PUT, PATCH, DELETE) fails at the WriteFailRate: a 500,
//     a 429 with Retry-After: 1, a 409 Conflict (not sent to the server),
//     or a timeout: the write is sent and done, and the answer is a 504
//     Timeout, as kube-apiserver answers a request it may still complete;
//   - a watch is closed after a random 1 to 6 s;
//   - an outage (Outage): every request fails with 503 and every open
//     watch is closed for its duration.
//
// Reads are never failed but in an outage. The faults are drawn from a
// seeded generator; with several goroutines the draws interleave, so a
// seed reproduces the rates, not the exact sequence.
type FaultProxy struct {
	// Kubeconfig reaches kube-apiserver through the proxy.
	Kubeconfig string
	// WriteFailRate is the share of writes failed while faults are on.
	WriteFailRate float64

	on, down atomic.Bool
	mu       sync.Mutex
	rng      *rand.Rand
	counts   map[string]int
	requests map[string]int
	watches  map[*closer]struct{}
	srv      *http.Server
}

// Fault kinds, as counted by FaultProxy.Counts.
const (
	Fault500       = "write 500"
	Fault429       = "write 429"
	Fault409       = "write 409"
	FaultTimeout   = "write timeout (done)"
	FaultWatchDrop = "watch closed"
	FaultOutage    = "outage"
	FaultOutageReq = "request in an outage"
)

// StartFaultProxy starts a proxy to the Bed's kube-apiserver, faults off,
// its kubeconfig written under the Bed's directory as name.
func StartFaultProxy(b *Bed, name string, seed uint64, writeFailRate float64) (*FaultProxy, error) {
	cfg := rest.CopyConfig(b.Config)
	cfg.UserAgent = "" // the controller's own passes through
	rt, err := rest.TransportFor(cfg)
	if err != nil {
		return nil, err
	}
	target, err := url.Parse(cfg.Host)
	if err != nil {
		return nil, err
	}
	p := &FaultProxy{
		WriteFailRate: writeFailRate,
		rng:           rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		counts:        map[string]int{}, requests: map[string]int{}, watches: map[*closer]struct{}{},
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.Transport = &faultTransport{p: p, base: rt}
	rp.FlushInterval = -1                    // watches stream
	rp.ErrorLog = log.New(io.Discard, "", 0) // a closed watch is no news
	rp.ErrorHandler = func(w http.ResponseWriter, r *http.Request, err error) {
		w.WriteHeader(http.StatusBadGateway)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p.srv = &http.Server{Handler: rp}
	go p.srv.Serve(ln)
	p.Kubeconfig = filepath.Join(b.Dir, name+".kubeconfig")
	if err := writeKubeconfig(p.Kubeconfig, &rest.Config{Host: "http://" + ln.Addr().String()}); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// SetFaults turns the faults on or off.
func (p *FaultProxy) SetFaults(on bool) { p.on.Store(on) }

// Outage fails every request and closes every watch for d.
func (p *FaultProxy) Outage(d time.Duration) {
	p.count(FaultOutage)
	p.down.Store(true)
	p.closeWatches()
	time.Sleep(d)
	p.down.Store(false)
}

// Counts returns the faults injected so far, by kind.
func (p *FaultProxy) Counts() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]int{}
	for k, n := range p.counts {
		out[k] = n
	}
	return out
}

// Requests returns the requests the controller sent through the proxy
// (answered by the server or failed by the proxy), by "verb resource",
// as Kubernetes names them: verb get, list, watch, create, update, patch,
// delete or deletecollection; resource "resource[/subresource]" (a path
// for a request to no resource, e.g. "get /api").
func (p *FaultProxy) Requests() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]int{}
	for k, n := range p.requests {
		out[k] = n
	}
	return out
}

// Close stops the proxy and closes its connections.
func (p *FaultProxy) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	p.closeWatches()
	if err := p.srv.Shutdown(ctx); err != nil {
		return p.srv.Close()
	}
	return nil
}

// closeWatches closes every open watch (a watch's Close takes p.mu to
// forget it: they are closed outside the lock).
func (p *FaultProxy) closeWatches() {
	p.mu.Lock()
	open := make([]*closer, 0, len(p.watches))
	for c := range p.watches {
		open = append(open, c)
	}
	p.mu.Unlock()
	for _, c := range open {
		c.Close()
	}
}

func (p *FaultProxy) count(kind string) {
	p.mu.Lock()
	p.counts[kind]++
	p.mu.Unlock()
}

// draw returns a number in [0, 1).
func (p *FaultProxy) draw() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rng.Float64()
}

type faultTransport struct {
	p    *FaultProxy
	base http.RoundTripper
}

func (t *faultTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	p := t.p
	verb, resource := requestKind(req)
	p.mu.Lock()
	p.requests[verb+" "+resource]++
	p.mu.Unlock()
	if p.down.Load() {
		p.count(FaultOutageReq)
		return status(req, http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable, "injected: the server is down"), nil
	}
	watch := req.URL.Query().Get("watch") == "true" || req.URL.Query().Get("watch") == "1"
	write := req.Method == http.MethodPost || req.Method == http.MethodPut || req.Method == http.MethodPatch || req.Method == http.MethodDelete
	var fault float64 = 1
	if p.on.Load() && write {
		fault = p.draw()
	}
	if r := p.WriteFailRate; fault < r {
		switch kind := int(fault / r * 4); kind {
		case 0:
			p.count(Fault500)
			return status(req, http.StatusInternalServerError, metav1.StatusReasonInternalError, "injected: internal error"), nil
		case 1:
			p.count(Fault429)
			resp := status(req, http.StatusTooManyRequests, metav1.StatusReasonTooManyRequests, "injected: too many requests")
			resp.Header.Set("Retry-After", "1")
			return resp, nil
		case 2:
			p.count(Fault409)
			return status(req, http.StatusConflict, metav1.StatusReasonConflict, "injected: the object has been modified"), nil
		default:
			p.count(FaultTimeout)
			resp, err := t.base.RoundTrip(req)
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			return status(req, http.StatusGatewayTimeout, metav1.StatusReasonTimeout, "injected: the server was unable to return a response in the time allotted, but may still be processing the request"), nil
		}
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil || !watch || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	c := &closer{ReadCloser: resp.Body}
	p.mu.Lock()
	p.watches[c] = struct{}{}
	p.mu.Unlock()
	c.done = func() {
		p.mu.Lock()
		delete(p.watches, c)
		p.mu.Unlock()
	}
	if p.on.Load() {
		after := time.Duration(1000+p.draw()*5000) * time.Millisecond
		time.AfterFunc(after, func() {
			if p.on.Load() && c.Close() == nil {
				p.count(FaultWatchDrop)
			}
		})
	}
	resp.Body = c
	return resp, nil
}

// requestKind names a request as kube-apiserver's audit log does: its
// verb, from the method, whether it names an object and the watch
// parameter; its resource, with the subresource after a "/".
func requestKind(req *http.Request) (verb, resource string) {
	path := strings.Trim(req.URL.Path, "/")
	seg := strings.Split(path, "/")
	switch {
	case len(seg) >= 3 && seg[0] == "api":
		seg = seg[2:]
	case len(seg) >= 4 && seg[0] == "apis":
		seg = seg[3:]
	default:
		return strings.ToLower(req.Method), "/" + path
	}
	if len(seg) >= 3 && seg[0] == "namespaces" {
		seg = seg[2:] // a namespaced resource; "namespaces/NAME" stays
	}
	named := len(seg) >= 2
	resource = seg[0]
	if len(seg) >= 3 {
		resource += "/" + seg[2]
	}
	q := req.URL.Query().Get("watch")
	switch req.Method {
	case http.MethodGet:
		switch {
		case q == "true" || q == "1":
			verb = "watch"
		case named:
			verb = "get"
		default:
			verb = "list"
		}
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
	default:
		verb = strings.ToLower(req.Method)
	}
	return verb, resource
}

// closer is a watch's body that the proxy may close.
type closer struct {
	io.ReadCloser
	once sync.Once
	done func()
}

var errClosed = errors.New("closed already")

func (c *closer) Close() error {
	err := errClosed
	c.once.Do(func() {
		err = c.ReadCloser.Close()
		if c.done != nil {
			c.done()
		}
	})
	return err
}

// status is an answer of kube-apiserver's form: a Status in JSON.
func status(req *http.Request, code int, reason metav1.StatusReason, msg string) *http.Response {
	body, _ := json.Marshal(metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Code: int32(code), Reason: reason, Message: msg,
	})
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	return &http.Response{
		StatusCode: code, Status: fmt.Sprintf("%d %s", code, http.StatusText(code)),
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body)), Request: req,
	}
}
