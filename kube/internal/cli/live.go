package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"

	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/live"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/kube/upstream"
)

// Live mode: without -f, every command reads the cluster of the kubeconfig
// (kubectl's own flags, from k8s.io/cli-runtime) through package live,
// which returns the load.Objects files give; from there the two paths are
// one. With -f the files are read and no cluster is contacted, by any
// command (diff and simulate: see filesHoldCluster).

// conn is a connection to the cluster of the kubeconfig.
type conn struct {
	client kubernetes.Interface
	// namespace is -n, else the context's, else "default".
	namespace string
}

// dialer makes the connection; tests replace it with a fake clientset.
type dialer func(*genericclioptions.ConfigFlags) (*conn, error)

// dialKubeconfig connects as kubectl does with the same flags, asking for
// protobuf (smaller and faster to decode than JSON for 100,000 nodes) and
// with a client-side rate limit that lets paged lists run back to back.
func dialKubeconfig(f *genericclioptions.ConfigFlags) (*conn, error) {
	if err := configured(f); err != nil {
		return nil, err
	}
	ns, _, err := f.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return nil, err
	}
	cfg, err := f.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	cfg.QPS, cfg.Burst = 50, 100
	cfg.UserAgent = "daemonplan/" + Version()
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &conn{client: client, namespace: ns}, nil
}

// errNoCluster reports that no cluster is configured: no kubeconfig with a
// context, no --server, not in a pod.
var errNoCluster = errors.New("no cluster configured")

// configured reports errNoCluster where kubectl would try localhost:8080,
// which is never what a user without a kubeconfig means.
func configured(f *genericclioptions.ConfigFlags) error {
	if *f.APIServer != "" || os.Getenv("KUBERNETES_SERVICE_HOST") != "" {
		return nil
	}
	raw, err := f.ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		return err
	}
	if len(raw.Contexts) == 0 && len(raw.Clusters) == 0 {
		return errNoCluster
	}
	return nil
}

// defaultRequestTimeout is --request-timeout when the user gives none:
// kubectl waits forever by default, but a read-only planner a pipeline runs
// must fail rather than hang on a server that accepts the connection and
// never answers. A minute is the API server's own default limit on a
// request (kube-apiserver --request-timeout): a server that answers at all
// answers a get or a list page within it.
const defaultRequestTimeout = time.Minute

// newKubeFlags are kubectl's connection flags, with --request-timeout
// defaulted to defaultRequestTimeout. The discovery cache directory is
// left out: daemonplan uses no discovery but /version.
func newKubeFlags() *genericclioptions.ConfigFlags {
	f := genericclioptions.NewConfigFlags(true)
	f.CacheDir = nil
	timeout := defaultRequestTimeout.String()
	f.Timeout = &timeout
	return f
}

// liveFailure reports err, from a request to the cluster, as the failure of
// cmd; a request the server did not answer in time says which flag bounds
// it.
func (c *cli) liveFailure(cmd string, err error) error {
	var ne net.Error
	if (errors.As(err, &ne) && ne.Timeout()) || errors.Is(err, context.DeadlineExceeded) {
		timeout := defaultRequestTimeout.String()
		if c.kube != nil && c.kube.Timeout != nil {
			timeout = *c.kube.Timeout
		}
		return c.fail("%s: %v (no answer within --request-timeout %s: a longer one waits longer, 0 forever)", cmd, err, timeout)
	}
	return c.fail("%s: %v", cmd, err)
}

// connect connects once per run, on first use.
func (c *cli) connect(cmd string) (*conn, error) {
	if c.conn != nil {
		return c.conn, nil
	}
	dial := c.dial
	if dial == nil {
		dial = dialKubeconfig
	}
	cn, err := dial(c.kube)
	if errors.Is(err, errNoCluster) {
		return nil, usagef("%s: -f FILE is required (- reads standard input) when no cluster is configured (--kubeconfig, KUBECONFIG, ~/.kube/config)", cmd)
	}
	if err != nil {
		return nil, c.fail("%s: no -f FILE given, and the cluster of the kubeconfig cannot be reached: %v", cmd, err)
	}
	c.conn = cn
	return cn, nil
}

// liveNamespace is the namespace a live command reads: none with -A (every
// namespace), else -n, else the context's.
func (cn *conn) liveNamespace(all bool) string {
	if all {
		return ""
	}
	return cn.namespace
}

// addLive registers the flags of live mode a command adds to kubectl's:
// -A.
func addLive(cmd *cobra.Command, all *bool, what string) {
	cmd.Flags().BoolVarP(all, "all-namespaces", "A", false, what)
}

// daemonSetTypes are the resource types kubectl resolves to apps/v1
// DaemonSets, lower-case as kubectl compares them.
var daemonSetTypes = []string{"ds", "daemonset", "daemonsets", "daemonset.apps", "daemonsets.apps", "daemonset.v1.apps", "daemonsets.v1.apps"}

// parseDaemonSetArg reads a DaemonSet argument as kubectl takes one: NAME,
// or TYPE/NAME with TYPE one of daemonSetTypes (case-insensitive).
func parseDaemonSetArg(s string) (string, error) {
	typ, name, ok := strings.Cut(s, "/")
	if !ok {
		name, typ = s, ""
	} else if !slices.Contains(daemonSetTypes, strings.ToLower(typ)) {
		return "", fmt.Errorf("%q is not a DaemonSet: want NAME, ds/NAME, daemonset/NAME or daemonsets.apps/NAME", s)
	}
	if name == "" || strings.Contains(name, "/") {
		return "", fmt.Errorf("%q: want NAME, ds/NAME, daemonset/NAME or daemonsets.apps/NAME", s)
	}
	return name, nil
}

// parseNodeArg reads a node argument: NAME, node/NAME or nodes/NAME.
func parseNodeArg(s string) (string, error) {
	typ, name, ok := strings.Cut(s, "/")
	if !ok {
		return s, nil
	}
	switch strings.ToLower(typ) {
	case "no", "node", "nodes":
		if name != "" && !strings.Contains(name, "/") {
			return name, nil
		}
	}
	return "", fmt.Errorf("%q is not a node: want NAME or node/NAME", s)
}

// dsArg accepts at most one positional argument, the DaemonSet, kept in
// o.resource.
func dsArg(cmd string, o *common) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		switch len(args) {
		case 0:
			return nil
		case 1:
			o.resource = args[0]
			return nil
		}
		return usagef("%s: want at most one DaemonSet argument (ds/NAME), got %d arguments", cmd, len(args))
	}
}

// daemonSetName is the DaemonSet asked for, from --ds [NS/]NAME or the
// argument (ds/NAME with -n): namespace "" matches any (files) or means the
// context's (live); name "" picks the only one.
func (c *cli) daemonSetName(cmd string, o *common) (ns, name string, err error) {
	if o.ds != "" && o.resource != "" {
		return "", "", usagef("%s: the DaemonSet given twice: as %q and --ds %q", cmd, o.resource, o.ds)
	}
	if o.resource != "" {
		name, err := parseDaemonSetArg(o.resource)
		if err != nil {
			return "", "", usagef("%s: %v", cmd, err)
		}
		if c.kube != nil && *c.kube.Namespace != "" && !o.allNamespaces {
			ns = *c.kube.Namespace
		}
		return ns, name, nil
	}
	if o.ds != "" {
		name = o.ds
		if i := strings.IndexByte(o.ds, '/'); i >= 0 {
			ns, name = o.ds[:i], o.ds[i+1:]
		}
		if name == "" || strings.Contains(name, "/") {
			return "", "", usagef("%s: --ds %q: want NAME or NAMESPACE/NAME", cmd, o.ds)
		}
	}
	// -A wins over -n, as for kubectl.
	if ns == "" && c.kube != nil && *c.kube.Namespace != "" && !o.allNamespaces {
		ns = *c.kube.Namespace
	}
	return ns, name, nil
}

// kubernetesVersion is --kubernetes-version; without it, the server's
// minor live and the latest reproduced one for files.
func (c *cli) kubernetesVersion(cmd string, o *common) (upstream.Version, error) {
	if o.version != "" {
		v, err := upstream.ParseVersion(o.version)
		if err != nil {
			return 0, usagef("%s: --kubernetes-version: %v", cmd, err)
		}
		return v, nil
	}
	if len(o.files) > 0 {
		return upstream.Latest, nil
	}
	cn, err := c.connect(cmd)
	if err != nil {
		return 0, err
	}
	v, err := live.ServerVersion(cn.client.Discovery())
	if err != nil {
		return 0, c.liveFailure(cmd, err)
	}
	return v, nil
}

// source reads the input of a one-DaemonSet command: the files of -f, else
// the cluster. Live, it returns exactly one DaemonSet or fails naming what
// the namespace holds.
func (c *cli) source(cmd string, o *common, ns, name string) (*load.Objects, map[*appsv1.DaemonSet]*convert.Kruise, string, error) {
	if len(o.files) > 0 {
		if r := c.preread; r != nil && slices.Equal(r.files, o.files) {
			c.preread = nil
			if slices.Contains(r.files, "-") {
				// Read once: no later "-" can read it again.
				c.stdinRead = true
			}
			return r.objs, r.kruise, r.src, nil
		}
		return c.read(cmd, o.files)
	}
	cn, err := c.connect(cmd)
	if err != nil {
		return nil, nil, "", err
	}
	if ns == "" {
		ns = cn.liveNamespace(o.allNamespaces)
	}
	where := "namespace " + ns
	if ns == "" {
		where = "any namespace"
	}
	objs, err := live.Read(context.Background(), cn.client, ns, name, live.Options{})
	if err != nil {
		return nil, nil, "", c.liveFailure(cmd, err)
	}
	switch n := len(objs.DaemonSets); {
	case n == 0 && name != "":
		return nil, nil, "", c.fail("%s: no DaemonSet %q in %s of the cluster", cmd, name, where)
	case n == 0:
		return nil, nil, "", c.fail("%s: no DaemonSet in %s of the cluster; name one (ds/NAME with -n NAMESPACE, or -A)", cmd, where)
	case n > 1:
		return nil, nil, "", c.fail("%s: %d DaemonSets in %s of the cluster (%s); name one: %s %s ds/NAME", cmd, n, where, daemonSetNames(objs), c.name, cmd)
	}
	return objs, nil, "the cluster", nil
}

// overheadInput reads the input of overhead: files, else the cluster.
func (c *cli) overheadInput(files []string, all, nodes bool) (*load.Objects, string, error) {
	if len(files) > 0 {
		objs, _, src, err := c.read("overhead", files)
		return objs, src, err
	}
	return c.overheadSource(all, nodes)
}

// overheadSource reads the input of overhead live: the DaemonSets of the
// namespace (every one with -A), and, unless a node file answers for a
// node of its own, every node and every unfinished pod.
func (c *cli) overheadSource(all, nodes bool) (*load.Objects, string, error) {
	cn, err := c.connect("overhead")
	if err != nil {
		return nil, "", err
	}
	ns := cn.liveNamespace(all)
	objs, err := live.ReadAll(context.Background(), cn.client, ns, nodes, live.Options{})
	if err != nil {
		return nil, "", c.liveFailure("overhead", err)
	}
	// What admission makes of the daemon pods, and, with the nodes, the
	// budgets preemption respects (docs/overhead.md, AD1–AD7, SC7).
	if err := live.ReadAdmission(context.Background(), cn.client, ns, nodes, objs, live.Options{}); err != nil {
		return nil, "", c.fail("overhead: %v", err)
	}
	if ns == "" {
		return objs, "the cluster", nil
	}
	return objs, "namespace " + ns + " of the cluster", nil
}

// newPodsSource reads from the cluster what the new pods' answers read
// besides the DaemonSet's own objects: the admission objects of namespace,
// every PriorityClass, RuntimeClass and PodDisruptionBudget, and every
// unfinished pod (docs/overhead.md, AD1–AD7, SC1–SC9). A list the cluster
// refuses (no right to list pods in every namespace, say) is a warning, and
// nil: the new pods are then not judged, rather than judged against part
// of the node.
func (c *cli) newPodsSource(cmd, namespace string) *load.Objects {
	cn, err := c.connect(cmd)
	if err != nil {
		return nil
	}
	objs := &load.Objects{}
	ctx := context.Background()
	err = live.ReadAdmission(ctx, cn.client, namespace, true, objs, live.Options{})
	if err == nil {
		err = live.ReadPods(ctx, cn.client, objs, live.Options{})
	}
	if err != nil {
		fmt.Fprintln(c.stderr, oneLine(fmt.Sprintf("warning: %s: the new pods are not judged (admission, fit, preemption): %v", cmd, err)))
		return nil
	}
	return objs
}

// filesHoldCluster checks, for diff and simulate, that the files of -f
// are a cluster, as for every command: -f never contacts one. A single file
// holding one DaemonSet and no node, pod or ControllerRevision, with no new
// spec given, is what 'kubectl diff -f' takes as the new spec against the
// live cluster; it is refused, naming what the file lacks and how to ask
// that. What it read is kept for source, so that a large snapshot is
// decoded once; standard input read to decide is kept for the reading that
// follows.
func (c *cli) filesHoldCluster(cmd string, o *common, dsFile string) error {
	if dsFile != "" || len(o.files) != 1 {
		return nil
	}
	if o.files[0] == "-" && !c.stdinRead {
		data, err := io.ReadAll(c.stdin)
		if err != nil {
			return c.fail("%s: standard input: %v", cmd, err)
		}
		c.stdin = bytes.NewReader(data)
		defer func() { c.stdin, c.stdinRead = bytes.NewReader(data), false }()
	}
	c.readOptions(o)
	objs, kruise, src, err := c.read(cmd, o.files)
	if err != nil {
		return err
	}
	if len(objs.DaemonSets) == 1 && len(objs.Nodes)+len(objs.Pods)+len(objs.Revisions) == 0 {
		newSpec := "--ds-file " + o.files[0]
		return usagef("%s: -f %s holds one DaemonSet and no node, pod or ControllerRevision: -f is the cluster "+
			"(kubectl get ds/NAME,nodes,pods,controllerrevisions -o yaml), read without contacting one; "+
			"to compare this DaemonSet with the live cluster, give it as %s without -f", cmd, src, newSpec)
	}
	c.preread = &preread{files: slices.Clone(o.files), objs: objs, kruise: kruise, src: src}
	return nil
}

// preread is what filesHoldCluster read of the files of -f.
type preread struct {
	files  []string
	objs   *load.Objects
	kruise map[*appsv1.DaemonSet]*convert.Kruise
	src    string
}

// imageEdit is one --image CONTAINER=IMAGE; container "*" is every one.
type imageEdit struct{ container, image string }

func (e imageEdit) String() string { return e.container + "=" + e.image }

func parseImageEdit(s string) (imageEdit, error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" || v == "" {
		return imageEdit{}, fmt.Errorf("%q: want CONTAINER=IMAGE, or *=IMAGE for every container", s)
	}
	return imageEdit{k, v}, nil
}

// change is how diff and simulate are given the new DaemonSet besides
// --ds-file: images set as kubectl set image sets them.
type change struct {
	images []imageEdit
}

func addChange(cmd *cobra.Command, ch *change) {
	cmd.Long += `

Against the live cluster (no -f: -f is the cluster, from files, and contacts
none), the new DaemonSet is --ds-file NEW.yaml or --image CONTAINER=IMAGE
('kubectl set image': containers and init containers by name, *=IMAGE every
one). It is then defaulted by the API server with a server-side
dry run (the update sent with dryRun=All, as 'kubectl apply --dry-run=server'
sends it; nothing is stored), which needs the update verb on daemonsets;
without it a warning says so and it is defaulted offline (docs/live-cluster.md).`
	cmd.Flags().Var(editFlag[imageEdit]{&ch.images, parseImageEdit, "CONTAINER=IMAGE"}, "image",
		"set a container's image, as 'kubectl set image ds/NAME CONTAINER=IMAGE' does\n(init containers too; *=IMAGE sets every one); repeatable")
}

// changeEdits names the change in the diff document's edits.
func changeEdits(dsFile string, images []imageEdit) []string {
	if dsFile != "" {
		return []string{"--ds-file " + dsFile}
	}
	var out []string
	for _, e := range images {
		out = append(out, "--image "+e.String())
	}
	return out
}

// setImages sets the images of ds, a copy the caller owns, as kubectl set
// image does: containers and init containers by name, "*" all of them; a
// name no container has is an error.
func setImages(ds *appsv1.DaemonSet, edits []imageEdit) error {
	spec := &ds.Spec.Template.Spec
	for _, e := range edits {
		found := false
		for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
			for i := range cs {
				if e.container == "*" || cs[i].Name == e.container {
					cs[i].Image, found = e.image, true
				}
			}
		}
		if !found {
			return fmt.Errorf("--image %s: unable to find container named %q", e, e.container)
		}
	}
	return nil
}

// newSpec is the new DaemonSet of diff and simulate: from --ds-file, or the
// cluster's with --image applied; then, live, defaulted by the API server
// (serverDefault).
func (c *cli) newSpec(cmd string, in *input, dsFile string, images []imageEdit) (*appsv1.DaemonSet, load.Position, *convert.Kruise, error) {
	cl := in.cluster
	if dsFile != "" && len(images) > 0 {
		return nil, load.Position{}, nil, usagef("%s: give the new DaemonSet once: a file or --image, not both", cmd)
	}
	if dsFile != "" {
		return c.newDaemonSet(cmd, in, dsFile)
	}
	ds := cl.DaemonSet.DeepCopy()
	if err := setImages(ds, images); err != nil {
		return nil, load.Position{}, nil, c.fail("%s: DaemonSet %s/%s: %v", cmd, ds.Namespace, ds.Name, err)
	}
	if stored, ok := c.serverDefault(cmd, "--image", ds); ok {
		ds = stored
	}
	return ds, cl.At.DaemonSet, nil, nil
}

// serverDefault defaults the new DaemonSet ds as the cluster stores it,
// with a server-side dry run of its update (what kubectl apply
// --dry-run=server sends): the cluster's own defaulting, admission and
// validation, nothing stored. It applies live only (false with files). It
// keeps ds's metadata the API server manages (generation, template
// generation, uid) and status, for the simulation to raise them; a dry run
// refused (no update right on daemonsets, an admission denial) is a warning
// and ok false: the caller defaults offline.
func (c *cli) serverDefault(cmd, what string, ds *appsv1.DaemonSet) (*appsv1.DaemonSet, bool) {
	if c.conn == nil {
		return nil, false
	}
	req := ds.DeepCopy()
	// Unconditional: the spec is what is being asked about, not a race.
	req.ResourceVersion = ""
	got, err := live.DryRunUpdate(context.Background(), c.conn.client, req)
	if err != nil {
		why := err.Error()
		if apierrors.IsForbidden(err) {
			why = "no right to update daemonsets, which a dry run needs as the update itself does: " + why
		}
		fmt.Fprintln(c.stderr, oneLine(fmt.Sprintf("warning: %s: %s: the server-side dry run of the new DaemonSet failed (%s); it is defaulted offline instead",
			cmd, what, why)))
		return nil, false
	}
	out := ds.DeepCopy()
	out.Spec = got.Spec
	out.Labels = got.Labels
	out.Annotations = got.Annotations
	keepTemplateGeneration(out, ds)
	fmt.Fprintln(c.stderr, oneLine(fmt.Sprintf("%s: %s: %s: the new DaemonSet is defaulted by the API server (a server-side dry run; nothing stored)", c.name, cmd, what)))
	return out, true
}
