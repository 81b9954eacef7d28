package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/daemonplan/daemonplan/kube/load"
)

// fakeCluster is a cluster behind the fake clientset, for live mode.
type fakeCluster struct {
	client *fake.Clientset
	// flags are the connection flags the command dialled with.
	flags *genericclioptions.ConfigFlags
	// dials counts connections.
	dials int
}

func newFakeCluster(t *testing.T, minor string, objs ...runtime.Object) *fakeCluster {
	t.Helper()
	client := fake.NewClientset(objs...)
	client.Discovery().(*fakediscovery.FakeDiscovery).FakedServerVersion = &version.Info{Major: "1", Minor: minor, GitVersion: "v1." + minor + ".0"}
	return &fakeCluster{client: client}
}

// objectsOf reads a file's objects, as typed objects for the fake clientset.
func objectsOf(t *testing.T, file string) []runtime.Object {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	objs, err := load.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []runtime.Object
	for _, o := range objs.DaemonSets {
		out = append(out, o)
	}
	for _, o := range objs.Nodes {
		out = append(out, o)
	}
	for _, o := range objs.Pods {
		out = append(out, o)
	}
	for _, o := range objs.Revisions {
		out = append(out, o)
	}
	for _, o := range objs.LimitRanges {
		out = append(out, o)
	}
	for _, o := range objs.PriorityClasses {
		out = append(out, o)
	}
	for _, o := range objs.RuntimeClasses {
		out = append(out, o)
	}
	for _, o := range objs.PodDisruptionBudgets {
		out = append(out, o)
	}
	return out
}

// runLive runs the command against fc.
func runLive(fc *fakeCluster, stdin string, args ...string) result {
	var out, errOut bytes.Buffer
	c := &cli{name: "daemonplan", stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut,
		now: func() time.Time { return time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC) },
		dial: func(f *genericclioptions.ConfigFlags) (*conn, error) {
			fc.flags = f
			fc.dials++
			// The namespace as kubectl resolves it without a kubeconfig.
			if *f.Namespace != "" {
				return &conn{client: fc.client, namespace: *f.Namespace}, nil
			}
			return &conn{client: fc.client, namespace: "default"}, nil
		}}
	code := c.run(args)
	return result{code, out.String(), errOut.String()}
}

func TestParseDaemonSetArg(t *testing.T) {
	for _, tc := range []struct {
		arg, reason, want, wantErr string
	}{
		{"agent", "a bare name, as kubectl get ds agent", "agent", ""},
		{"ds/agent", "the short name", "agent", ""},
		{"daemonset/agent", "the kind", "agent", ""},
		{"daemonsets/agent", "the resource", "agent", ""},
		{"daemonsets.apps/agent", "resource.group", "agent", ""},
		{"daemonset.v1.apps/agent", "resource.version.group", "agent", ""},
		{"DaemonSet/agent", "kubectl compares types case-insensitively", "agent", ""},
		{"deploy/agent", "another kind is refused, naming the forms", "", `"deploy/agent" is not a DaemonSet: want NAME, ds/NAME`},
		{"daemonsets.apps.kruise.io/agent", "an Advanced DaemonSet is not read live", "", "is not a DaemonSet"},
		{"ds/", "no name", "", "want NAME"},
		{"ds/a/b", "a name with a slash", "", "want NAME"},
		{"", "empty", "", "want NAME"},
	} {
		got, err := parseDaemonSetArg(tc.arg)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q (%s): %v, want error %q", tc.arg, tc.reason, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q (%s): %q, %v; want %q", tc.arg, tc.reason, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ arg, want, wantErr string }{
		{"node-1", "node-1", ""}, {"node/node-1", "node-1", ""}, {"nodes/node-1", "node-1", ""}, {"no/node-1", "node-1", ""},
		{"pod/x", "", "is not a node"}, {"node/", "", "is not a node"},
	} {
		got, err := parseNodeArg(tc.arg)
		if (tc.wantErr != "") != (err != nil) || got != tc.want || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("parseNodeArg(%q) = %q, %v; want %q, %q", tc.arg, got, err, tc.want, tc.wantErr)
		}
	}
}

// TestLiveFlags checks that kubectl's flags reach the connection, and the
// DaemonSet argument and -n the reading, for every command.
func TestLiveFlags(t *testing.T) {
	seed := clusterFile(readCase(t, "seed-01"))
	objs := objectsOf(t, seed)
	for _, tc := range []struct {
		name, reason string
		args         []string
		code         int
		stderr       string
		check        func(*genericclioptions.ConfigFlags) string
	}{
		{"kubectl flags", "--kubeconfig, --context, --cluster, --user, -n and --request-timeout are kubectl's",
			[]string{"plan", "ds/node-agent", "--kubeconfig", "/nowhere/config", "--context", "ctx", "--cluster", "cl", "--user", "u", "-n", "default", "--request-timeout", "5s"},
			exitOK, "", func(f *genericclioptions.ConfigFlags) string {
				got := []string{*f.KubeConfig, *f.Context, *f.ClusterName, *f.AuthInfoName, *f.Namespace, *f.Timeout}
				if want := []string{"/nowhere/config", "ctx", "cl", "u", "default", "5s"}; !slices.Equal(got, want) {
					return strings.Join(got, " ")
				}
				return ""
			}},
		{"flags before the command", "kubectl takes its flags anywhere", []string{"--namespace=default", "plan", "node-agent"}, exitOK, "",
			func(f *genericclioptions.ConfigFlags) string {
				if *f.Namespace != "default" {
					return *f.Namespace
				}
				return ""
			}},
		{"daemonsets.apps", "resource.group/NAME", []string{"plan", "daemonsets.apps/node-agent"}, exitOK, "", nil},
		{"only one", "no argument: the namespace's only DaemonSet", []string{"plan"}, exitOK, "", nil},
		{"all namespaces", "-A finds the DaemonSet in whichever namespace", []string{"plan", "-A", "node-agent"}, exitOK, "", nil},
		{"-A over -n", "-A wins over -n, as for kubectl", []string{"plan", "-A", "-n", "kube-system", "node-agent"}, exitOK, "", nil},
		{"wrong namespace", "-n names where the DaemonSet is looked for", []string{"plan", "ds/node-agent", "-n", "kube-system"}, exitError,
			`no DaemonSet "node-agent" in namespace kube-system of the cluster`, nil},
		{"empty namespace", "nothing to plan, said so", []string{"plan", "-n", "kube-system"}, exitError,
			"no DaemonSet in namespace kube-system of the cluster; name one", nil},
		{"not a DaemonSet", "another kind is a usage error", []string{"plan", "deploy/x"}, exitUsage, `"deploy/x" is not a DaemonSet`, nil},
		{"argument and --ds", "the DaemonSet given twice", []string{"plan", "ds/a", "--ds", "b"}, exitUsage, "the DaemonSet given twice", nil},
		{"explain", "explain takes the DaemonSet, then the node, as kubectl's order", []string{"explain", "ds/node-agent", "node/node-009"}, exitOK, "", nil},
		{"explain node only", "the only DaemonSet", []string{"explain", "node-009"}, exitOK, "", nil},
		{"overhead", "overhead reads the namespace's DaemonSets", []string{"overhead", "-n", "default"}, exitOK, "", nil},
		{"overhead -A", "and every namespace's with -A", []string{"overhead", "-A", "-o", "json"}, exitOK, "", nil},
		{"diff image", "diff --image as kubectl set image", []string{"diff", "ds/node-agent", "--image", "*=agent:v9"}, exitOK, "", nil},
		{"simulate image", "simulate --image", []string{"simulate", "node-agent", "--image", "*=agent:v9"}, exitOK, "", nil},
		{"bad image", "a container the DaemonSet lacks", []string{"diff", "--image", "nope=agent:v9"}, exitError, `unable to find container named "nope"`, nil},
		{"old server", "a server outside 1.34-1.37 is a clear error", []string{"plan", "--kubernetes-version", "1.33"}, exitUsage, "1.33", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fc := newFakeCluster(t, "37", objs...)
			r := runLive(fc, "", tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.stderr) {
				t.Fatalf("%s: exit %d, stderr %q; want %d and %q", tc.reason, r.code, r.stderr, tc.code, tc.stderr)
			}
			if tc.check != nil {
				if fc.flags == nil {
					t.Fatalf("%s: never dialled", tc.reason)
				}
				if got := tc.check(fc.flags); got != "" {
					t.Errorf("%s: flags %s", tc.reason, got)
				}
			}
		})
	}
}

// TestLiveEqualsFile: the plan read from the (fake) cluster is the plan of
// the same objects in a file, for every output; and -f wins over the
// cluster.
func TestLiveEqualsFile(t *testing.T) {
	c := readCase(t, "seed-01")
	file := clusterFile(c)
	for _, out := range []string{"json", "wide"} {
		fc := newFakeCluster(t, "34", objectsOf(t, file)...)
		lv := runLive(fc, "", "plan", "ds/node-agent", "--now", nowFlag(c), "-o", out)
		fl := runCLI(t, "", "plan", "-f", file, "--now", nowFlag(c), "--kubernetes-version", "1.34", "-o", out)
		if lv.code != 0 || fl.code != 0 {
			t.Fatalf("-o %s: exit %d (%s), %d (%s)", out, lv.code, lv.stderr, fl.code, fl.stderr)
		}
		if lv.stdout != fl.stdout {
			t.Errorf("-o %s: live plan (server 1.34)\n%s\nfile plan (--kubernetes-version 1.34)\n%s", out, lv.stdout, fl.stdout)
		}
		withFile := runLive(fc, "", "plan", "-f", file, "--now", nowFlag(c), "--kubernetes-version", "1.34", "-o", out)
		if withFile.stdout != fl.stdout || fc.dials != 1 {
			t.Errorf("-o %s: -f must read the file and not the cluster (%d dials)", out, fc.dials)
		}
	}
}

// TestLiveChange: diff and simulate live take the new spec from --ds-file
// or --image (-f is the cluster and contacts none: TestFileNeverLive), and
// default it with a server-side dry run, or offline when the dry run is
// refused, saying which.
func TestLiveChange(t *testing.T) {
	c := readCase(t, "seed-01")
	objs := objectsOf(t, clusterFile(c))
	var ds *appsv1.DaemonSet
	for _, o := range objs {
		if d, ok := o.(*appsv1.DaemonSet); ok {
			ds = d.DeepCopy()
		}
	}
	manifest := ds.DeepCopy()
	manifest.ObjectMeta = metav1.ObjectMeta{Name: ds.Name}
	manifest.Status = appsv1.DaemonSetStatus{}
	manifest.Spec.Template.Spec.Containers[0].Image = "agent:v9"
	manifest.TypeMeta = metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"}
	newFile := filepath.Join(t.TempDir(), "new.yaml")
	b, err := json.Marshal(manifest)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(newFile, b, 0o600); err != nil {
		t.Fatal(err)
	}
	// The fake server's "defaulting" sets a budget the output shows.
	const marker = `"maxUnavailable": 7,`
	for _, tc := range []struct {
		name, reason string
		args         []string
		stdin        string
		dryRun       func(k8stesting.Action) (bool, runtime.Object, error)
		stderr       string
		wantMarker   bool
	}{
		{"--ds-file", "the new spec from a file, the cluster read live", []string{"diff", "--ds-file", newFile, "-o", "json"}, "", nil, "defaulted by the API server", true},
		{"--ds-file -", "from standard input too", []string{"simulate", "--ds-file", "-", "-o", "json"}, string(b), nil, "defaulted by the API server", true},
		{"--image", "--image is defaulted the same way", []string{"diff", "--image", "*=agent:v9", "-o", "json"}, "", nil, "defaulted by the API server", true},
		{"forbidden", "without update on daemonsets: offline defaulting, said in a warning",
			[]string{"diff", "--ds-file", newFile, "-o", "json"}, "", func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "daemonsets"}, ds.Name, nil)
			}, "warning: diff: " + newFile + ": the server-side dry run of the new DaemonSet failed (no right to update daemonsets", false},
		{"image and file", "the new spec given twice", []string{"diff", "--ds-file", newFile, "--image", "*=x"}, "", nil, "give the new DaemonSet once", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fc := newFakeCluster(t, "37", objs...)
			var dryRuns int
			fc.client.PrependReactor("update", "daemonsets", func(a k8stesting.Action) (bool, runtime.Object, error) {
				ua := a.(k8stesting.UpdateActionImpl)
				if !slices.Equal(ua.UpdateOptions.DryRun, []string{metav1.DryRunAll}) {
					t.Errorf("%s: an update without dryRun=All", tc.reason)
					return true, nil, apierrors.NewBadRequest("not a dry run")
				}
				dryRuns++
				if tc.dryRun != nil {
					return tc.dryRun(a)
				}
				got := ua.Object.(*appsv1.DaemonSet).DeepCopy()
				seven := intstr.FromInt32(7)
				got.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = &seven
				return true, got, nil
			})
			r := runLive(fc, tc.stdin, tc.args...)
			if !strings.Contains(r.stderr, tc.stderr) {
				t.Fatalf("%s: exit %d, stderr %q lacks %q", tc.reason, r.code, r.stderr, tc.stderr)
			}
			if strings.Contains(r.stdout, marker) != tc.wantMarker {
				t.Errorf("%s: the server's defaults in the output: %v, want %v", tc.reason, !tc.wantMarker, tc.wantMarker)
			}
			if tc.wantMarker && dryRuns != 1 {
				t.Errorf("%s: %d dry runs, want 1", tc.reason, dryRuns)
			}
			// Nothing is ever written: the stored DaemonSet is the one
			// the cluster started with.
			got, err := fc.client.AppsV1().DaemonSets(ds.Namespace).Get(t.Context(), ds.Name, metav1.GetOptions{})
			if err != nil || got.Spec.Template.Spec.Containers[0].Image != ds.Spec.Template.Spec.Containers[0].Image {
				t.Errorf("%s: the cluster's DaemonSet changed: %v", tc.reason, err)
			}
			for _, a := range fc.client.Actions() {
				if v := a.GetVerb(); v != "get" && v != "list" && v != "update" {
					t.Errorf("%s: verb %s", tc.reason, v)
				}
			}
		})
	}
}

// TestLiveNewPods: live, plan -o wide and diff read what the new pods'
// answers need (admission objects, budgets, every unfinished pod) and
// print what the same objects in a file give; a cluster that refuses the
// list of pods gets a warning and no answer, never one judged against part
// of the node.
func TestLiveNewPods(t *testing.T) {
	tests := []struct {
		name, reason, file string
		live, files        []string
	}{{
		name:   "plan -o wide",
		reason: "every scheduler answer of plan-wide.yaml, live as from the file",
		file:   "testdata/plan-wide.yaml",
		live:   []string{"plan", "ds/agent", "-n", "kube-system", "--now", wideNow, "-o", "wide"},
		files:  []string{"plan", "--ds", "kube-system/agent", "--now", wideNow, "-o", "wide"},
	}, {
		name:   "diff",
		reason: "the surge of diff-fit.yaml, live as from the file",
		file:   "testdata/diff-fit.yaml",
		live:   []string{"diff", "ds/agent", "-n", "kube-system", "--now", wideNow, "--ds-file", "testdata/diff-fit-agent.yaml"},
		files:  []string{"diff", "--now", wideNow, "--ds-file", "testdata/diff-fit-agent.yaml"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fc := newFakeCluster(t, "37", objectsOf(t, tt.file)...)
			lv := runLive(fc, "", tt.live...)
			fl := runCLI(t, "", append(tt.files, "-f", tt.file)...)
			if lv.code != exitOK || fl.code != exitOK {
				t.Fatalf("exit %d (%s), %d (%s)", lv.code, lv.stderr, fl.code, fl.stderr)
			}
			if lv.stdout != fl.stdout {
				t.Errorf("%s: live\n%s\nfile\n%s", tt.reason, lv.stdout, fl.stdout)
			}
			fc.client.PrependReactor("list", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
				if a.GetNamespace() == "" {
					return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", nil)
				}
				return false, nil, nil
			})
			refused := runLive(fc, "", tt.live...)
			if refused.code != exitOK || !strings.Contains(refused.stderr, "warning: "+tt.live[0]+": the new pods are not judged") {
				t.Fatalf("pods refused: exit %d, stderr %q: want a warning", refused.code, refused.stderr)
			}
			if strings.Contains(refused.stdout, "SCHEDULER") || strings.Contains(refused.stdout, "NEW POD") {
				t.Errorf("pods refused: the new pods are judged anyway:\n%s", refused.stdout)
			}
		})
	}
}
