package testbed

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apiserver/pkg/util/compatibility"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/keyutil"
	basecompatibility "k8s.io/component-base/compatibility"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
	"k8s.io/kubernetes/cmd/kube-apiserver/app/options"
)

// apiServers numbers the kube-apiservers of this process: each registers
// its informers under a name of its own.
var apiServers atomic.Int64

// apiServer is a running kube-apiserver.
type apiServer struct {
	config *rest.Config // the server's own loopback client config
	cancel context.CancelFunc
	done   chan error
	name   *cache.InformerName
}

// startAPIServer starts kube-apiserver v1.37.2 in this process, the way
// its command does (options, Complete, Validate, NewConfig,
// CreateServerChain, PrepareRun, Run), serving on 127.0.0.1 at a free port
// with self-signed certificates written under dir, storing in etcdURL.
// Writes are audited to auditLog. Clients authenticate with the server's loopback token (a member of
// system:masters), or as one of users with its token; authorization is AlwaysAllow, or RBAC with rbac.
func startAPIServer(dir, etcdURL, auditLog string, rbac bool, users []User) (_ *apiServer, err error) {
	certDir := filepath.Join(dir, "apiserver")
	if err := os.MkdirAll(certDir, 0o700); err != nil {
		return nil, err
	}
	// The service-account token signer: the server requires one.
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return nil, err
	}
	keyFile := filepath.Join(certDir, "sa.key")
	if err := keyutil.WriteKey(keyFile, keyPEM); err != nil {
		return nil, err
	}

	policyFile := filepath.Join(certDir, "audit-policy.yaml")
	if err := os.WriteFile(policyFile, []byte(auditPolicy), 0o600); err != nil {
		return nil, err
	}

	authorization := "AlwaysAllow"
	if rbac {
		authorization = "RBAC"
	}
	var tokenArgs []string
	if len(users) > 0 {
		var b strings.Builder
		for _, u := range users {
			// token,user,uid,"group1,group2"
			fmt.Fprintf(&b, "%s,%s,%s,%q\n", u.Token, u.Name, u.Name, strings.Join(u.Groups, ","))
		}
		tokenFile := filepath.Join(certDir, "tokens.csv")
		if err := os.WriteFile(tokenFile, []byte(b.String()), 0o600); err != nil {
			return nil, err
		}
		tokenArgs = append(tokenArgs, "--token-auth-file="+tokenFile)
	}

	s := options.NewServerRunOptions()
	// A registry of this server's own, as kube-apiserver's test server
	// does, so that several servers may run, one after the other, in one
	// process.
	featureGate := utilfeature.DefaultMutableFeatureGate.DeepCopy()
	registry := basecompatibility.NewComponentGlobalsRegistry()
	if err := registry.Register(basecompatibility.DefaultKubeComponent, compatibility.DefaultBuildEffectiveVersion(), featureGate); err != nil {
		return nil, err
	}
	s.GenericServerRunOptions.ComponentGlobalsRegistry = registry

	fs := pflag.NewFlagSet("kube-apiserver", pflag.ContinueOnError)
	for _, f := range s.Flags().FlagSets {
		fs.AddFlagSet(f)
	}
	args := []string{
		"--etcd-servers=" + etcdURL,
		"--cert-dir=" + certDir,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--service-cluster-ip-range=10.0.0.0/16",
		"--service-account-issuer=https://testbed.invalid",
		"--service-account-key-file=" + keyFile,
		"--service-account-signing-key-file=" + keyFile,
		"--authorization-mode=" + authorization,
		// No service-account or node-lifecycle controllers run here.
		"--disable-admission-plugins=ServiceAccount,TaintNodesByCondition",
		// The advertised address is loopback: nothing to reconcile.
		"--endpoint-reconciler-type=none",
		// Every write, with its client and answer (Bed.Writes).
		"--audit-policy-file=" + policyFile,
		"--audit-log-path=" + auditLog,
		"--audit-log-mode=blocking",
	}
	if err := fs.Parse(append(args, tokenArgs...)); err != nil {
		return nil, err
	}
	if err := registry.Set(); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s.SecureServing.Listener = ln
	s.SecureServing.BindPort = ln.Addr().(*net.TCPAddr).Port
	s.SecureServing.ExternalAddress = ln.Addr().(*net.TCPAddr).IP

	ctx, cancel := context.WithCancel(context.Background())
	a := &apiServer{cancel: cancel, done: make(chan error, 1)}
	defer func() {
		if err != nil {
			cancel()
			ln.Close()
			if a.name != nil {
				a.name.Release()
			}
		}
	}()
	completed, err := s.Complete(ctx)
	if err != nil {
		return nil, err
	}
	if errs := completed.Validate(); len(errs) != 0 {
		return nil, utilerrors.NewAggregate(errs)
	}
	a.name, err = cache.NewInformerName(fmt.Sprintf("kube-apiserver-testbed-%d", apiServers.Add(1)))
	if err != nil {
		return nil, err
	}
	completed.InformerName = a.name
	config, err := app.NewConfig(completed)
	if err != nil {
		return nil, err
	}
	cc, err := config.Complete()
	if err != nil {
		return nil, err
	}
	server, err := app.CreateServerChain(cc)
	if err != nil {
		return nil, err
	}
	prepared, err := server.PrepareRun()
	if err != nil {
		return nil, err
	}
	go func() { a.done <- prepared.Run(ctx) }()
	a.config = rest.CopyConfig(server.GenericAPIServer.LoopbackClientConfig)
	if err := a.waitReady(); err != nil {
		a.stop()
		return nil, err
	}
	return a, nil
}

// waitReady waits until /readyz answers ok and the default namespace
// exists.
func (a *apiServer) waitReady() error {
	client, err := kubernetes.NewForConfig(a.config)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		select {
		case err := <-a.done:
			return fmt.Errorf("kube-apiserver stopped: %v", err)
		default:
		}
		status := 0
		client.Discovery().RESTClient().Get().AbsPath("/readyz").Do(context.Background()).StatusCode(&status)
		if status == 200 {
			if _, err := client.CoreV1().Namespaces().Get(context.Background(), "default", metav1.GetOptions{}); err == nil {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return errors.New("kube-apiserver: not ready after two minutes")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop stops the server and waits until it has.
func (a *apiServer) stop() error {
	a.cancel()
	var err error
	select {
	case err = <-a.done:
	case <-time.After(time.Minute):
		err = errors.New("kube-apiserver: still running a minute after stop")
	}
	a.name.Release()
	return err
}
