package testbed

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strconv"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.etcd.io/etcd/server/v3/etcdserver/api/v3client"
)

// freePort returns a TCP port free on 127.0.0.1 a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func loopbackURL(port int) url.URL {
	return url.URL{Scheme: "http", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(port))}
}

// startEtcd starts a single-member etcd with its data under dir, its
// client and peer URLs on 127.0.0.1 (no metrics listener), and its log in
// logFile. It returns the client URL.
func startEtcd(dir, logFile string) (*embed.Etcd, string, error) {
	cfg := embed.NewConfig()
	cfg.Name = "testbed"
	cfg.Dir = filepath.Join(dir, "etcd")
	clientPort, err := freePort()
	if err != nil {
		return nil, "", err
	}
	peerPort, err := freePort()
	if err != nil {
		return nil, "", err
	}
	cu, pu := loopbackURL(clientPort), loopbackURL(peerPort)
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{cu}, []url.URL{cu}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{pu}, []url.URL{pu}
	cfg.ListenMetricsUrls = nil
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.LogLevel = "error"
	cfg.LogOutputs = []string{logFile}
	// A test bed's data lives for one test: no need to survive a crash.
	cfg.UnsafeNoFsync = true
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, "", fmt.Errorf("etcd: %w", err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		return nil, "", fmt.Errorf("etcd: %w", err)
	case <-time.After(time.Minute):
		e.Close()
		return nil, "", fmt.Errorf("etcd: not ready after a minute")
	}
	return e, cu.String(), nil
}

// EtcdAt returns the values of the keys under prefix as they were at etcd
// revision rev (a kube-apiserver resourceVersion), by key, from etcd's
// history. A check that lost some states to a broken watch (kube-apiserver
// restarted: the watch resumes with a relist) reads them here, every
// revision in between. kube-apiserver compacts the history every 5
// minutes: a revision older than that is an error. The values are as
// kube-apiserver stored them (protobuf), without their resourceVersion.
func (b *Bed) EtcdAt(prefix string, rev int64) (map[string][]byte, error) {
	b.etcdClientOnce.Do(func() { b.etcdClient = v3client.New(b.etcd.Server) })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := b.etcdClient.Get(ctx, prefix, clientv3.WithPrefix(), clientv3.WithRev(rev))
	if err != nil {
		return nil, fmt.Errorf("etcd: %s at revision %d: %w", prefix, rev, err)
	}
	out := make(map[string][]byte, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		out[string(kv.Key)] = kv.Value
	}
	return out, nil
}
