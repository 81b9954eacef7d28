package testbed

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Options configure a control plane.
type Options struct {
	// PodReadyDelay is how long kwok takes to make a bound pod Running and
	// Ready. A terminating pod is deleted when its grace period ends.
	PodReadyDelay time.Duration
	// ExtraPodStages are more kwok pod stages, in YAML.
	ExtraPodStages []string
	// GarbageCollector runs kube-controller-manager's garbage collector
	// too (for a DaemonSet deleted with its pods).
	GarbageCollector bool
	// Dir, if set, keeps the data, certificates and logs there; otherwise
	// a temporary directory holds them and Stop removes it.
	Dir string
	// RBAC authorizes requests with RBAC instead of allowing every one:
	// the testbed's own clients are in system:masters and keep every
	// right; the Users have only what RBAC objects grant them.
	RBAC bool
	// Users authenticate with a bearer token each (kube-apiserver's
	// --token-auth-file); Bed.KubeconfigFor writes a kubeconfig for one.
	Users []User
	// Scheduler runs the real kube-scheduler (default profile) instead of
	// the binder: pods are bound only where they fit, and a pod that does
	// not fit stays Pending or preempts pods of lower priority. Nodes
	// then need status.allocatable (CreateNode).
	Scheduler bool
}

// User is a user who authenticates with a static bearer token.
type User struct {
	Name, Token string
	Groups      []string
}

// Bed is a running control plane.
type Bed struct {
	// Config reaches kube-apiserver as a member of system:masters. Copy it
	// before changing it.
	Config *rest.Config
	// Kubeconfig is a file that holds Config, for programs.
	Kubeconfig string
	// Client is a client on Config.
	Client kubernetes.Interface
	// Dir holds the control plane's files: etcd's data, certificates, logs.
	Dir string
	// Started is how long Start took.
	Started time.Duration

	etcd      *embed.Etcd
	apiServer *apiServer
	scheduler *kubeScheduler
	cancel    context.CancelFunc
	removeDir bool
	auditLog  string
	etcdURL   string
	// rbac and users are Options.RBAC and Options.Users, for a restart.
	rbac  bool
	users []User
	// etcdClient reads etcd in this process (EtcdAt).
	etcdClientOnce sync.Once
	etcdClient     *clientv3.Client
}

// RestartAPIServer stops kube-apiserver as a crash would (its
// connections closed at once) and starts it again on the same
// port, with the same certificates, token and etcd (which keeps running,
// and the data with it). Clients on Config reconnect; their watches end
// and are started again. It returns how long the server was down.
func (b *Bed) RestartAPIServer() (time.Duration, error) {
	start := time.Now()
	if err := b.apiServer.kill(); err != nil {
		return 0, fmt.Errorf("kube-apiserver: stop: %w", err)
	}
	a, err := startAPIServer(b.Dir, b.etcdURL, b.auditLog, b.apiServer.port, b.rbac, b.users)
	if err != nil {
		b.apiServer = nil
		return 0, fmt.Errorf("kube-apiserver: restart: %w", err)
	}
	b.apiServer = a
	return time.Since(start), nil
}

// Start starts etcd, kube-apiserver, kwok and the binder (or
// kube-scheduler, Options.Scheduler), all on
// 127.0.0.1, and returns when the server is ready.
func Start(opts Options) (_ *Bed, err error) {
	start := time.Now()
	b := &Bed{Dir: opts.Dir}
	if b.Dir == "" {
		if b.Dir, err = os.MkdirTemp("", "testbed-"); err != nil {
			return nil, err
		}
		b.removeDir = true
	} else if err := os.MkdirAll(b.Dir, 0o700); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			b.Stop()
		}
	}()
	var etcdURL string
	if b.etcd, etcdURL, err = startEtcd(b.Dir, filepath.Join(b.Dir, "etcd.log")); err != nil {
		return nil, err
	}
	b.auditLog = filepath.Join(b.Dir, "audit.log")
	b.etcdURL = etcdURL
	b.rbac, b.users = opts.RBAC, opts.Users
	if b.apiServer, err = startAPIServer(b.Dir, etcdURL, b.auditLog, 0, b.rbac, b.users); err != nil {
		return nil, fmt.Errorf("kube-apiserver: %w", err)
	}
	b.Config = rest.CopyConfig(b.apiServer.stable)
	b.Config.QPS, b.Config.Burst = -1, 0
	b.Config.UserAgent = "testbed"
	if b.Client, err = kubernetes.NewForConfig(b.Config); err != nil {
		return nil, err
	}
	b.Kubeconfig = filepath.Join(b.Dir, "kubeconfig")
	if err := writeKubeconfig(b.Kubeconfig, b.Config); err != nil {
		return nil, err
	}
	var ctx context.Context
	ctx, b.cancel = context.WithCancel(context.Background())
	if err := startKwok(ctx, b.Config, b.Kubeconfig, filepath.Join(b.Dir, "kwok.log"), opts.PodReadyDelay, opts.ExtraPodStages); err != nil {
		return nil, fmt.Errorf("kwok: %w", err)
	}
	if opts.Scheduler {
		if b.scheduler, err = startScheduler(b.Kubeconfig); err != nil {
			return nil, fmt.Errorf("kube-scheduler: %w", err)
		}
	} else {
		bc := rest.CopyConfig(b.Config)
		bc.UserAgent = "testbed-binder"
		binderClient, err := kubernetes.NewForConfig(bc)
		if err != nil {
			return nil, err
		}
		if err := startBinder(ctx, binderClient); err != nil {
			return nil, fmt.Errorf("binder: %w", err)
		}
	}
	if opts.GarbageCollector {
		if err := startGarbageCollector(ctx, b.Config); err != nil {
			return nil, fmt.Errorf("garbage collector: %w", err)
		}
	}
	b.Started = time.Since(start)
	return b, nil
}

// Stop stops everything Start started and removes the temporary directory.
func (b *Bed) Stop() error {
	var errs []error
	if b.cancel != nil {
		b.cancel()
	}
	if b.scheduler != nil {
		errs = append(errs, b.scheduler.stop())
	}
	if b.apiServer != nil {
		errs = append(errs, b.apiServer.stop())
	}
	if b.etcdClient != nil {
		b.etcdClient.Close()
	}
	if b.etcd != nil {
		b.etcd.Close()
		select {
		case <-b.etcd.Server.StopNotify():
		case <-time.After(time.Minute):
			errs = append(errs, errors.New("etcd: still running a minute after close"))
		}
	}
	if b.removeDir {
		errs = append(errs, os.RemoveAll(b.Dir))
	}
	return errors.Join(errs...)
}

// KubeconfigFor writes a kubeconfig in which user (one of Options.Users)
// reaches the server with its token, and returns its path.
func (b *Bed) KubeconfigFor(user User) (string, error) {
	c := rest.CopyConfig(b.Config)
	c.BearerToken = user.Token
	path := filepath.Join(b.Dir, "kubeconfig-"+user.Name)
	return path, writeKubeconfig(path, c)
}

func writeKubeconfig(path string, c *rest.Config) error {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["testbed"] = &clientcmdapi.Cluster{
		Server:                   c.Host,
		CertificateAuthorityData: c.CAData,
		TLSServerName:            c.ServerName,
	}
	kc.AuthInfos["testbed"] = &clientcmdapi.AuthInfo{Token: c.BearerToken}
	kc.Contexts["testbed"] = &clientcmdapi.Context{Cluster: "testbed", AuthInfo: "testbed"}
	kc.CurrentContext = "testbed"
	return clientcmd.WriteToFile(*kc, path)
}
