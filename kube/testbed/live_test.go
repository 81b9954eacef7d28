package testbed

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/daemonplan/daemonplan/kube/internal/cli"
)

// readRoles reads the ClusterRoles of kube/rbac/daemonplan-reader.yaml, by
// name.
func readRoles(t *testing.T) map[string]*rbacv1.ClusterRole {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "rbac", "daemonplan-reader.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]*rbacv1.ClusterRole{}
	dec := utilyaml.NewYAMLOrJSONDecoder(f, 4096)
	for {
		var r rbacv1.ClusterRole
		if err := dec.Decode(&r); err != nil {
			break
		}
		out[r.Name] = &r
	}
	if out["daemonplan-reader"] == nil || out["daemonplan-dry-run"] == nil {
		t.Fatalf("kube/rbac/daemonplan-reader.yaml: roles %v", out)
	}
	return out
}

// TestLive runs every command against a real control plane as users bound
// to exactly the documented ClusterRole (one with the dry-run role too),
// and checks that the plan read live is the plan of a 'kubectl get -o json'
// dump of the same state, and that each right the role grants (a verb on a
// resource) is needed by some command.
func TestLive(t *testing.T) {
	roles := readRoles(t)
	reader := roles["daemonplan-reader"]
	users := []User{{Name: "reader", Token: "reader-token"}, {Name: "dry-runner", Token: "dry-runner-token"}}
	// One user per right of the role (a verb on a resource), bound to
	// the role without that right.
	var rights []rbacv1.PolicyRule
	for _, r := range reader.Rules {
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				for _, v := range r.Verbs {
					rights = append(rights, rbacv1.PolicyRule{APIGroups: []string{g}, Resources: []string{res}, Verbs: []string{v}})
				}
			}
		}
	}
	without := func(i int) string { return fmt.Sprintf("without-%d", i) }
	for i := range rights {
		users = append(users, User{Name: without(i), Token: without(i) + "-token"})
	}
	b := startBed(t, "live", Options{PodReadyDelay: time.Second, RBAC: true, Users: users})
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	bind := func(user string, role *rbacv1.ClusterRole) {
		_, err := b.Client.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{})
		if err != nil && !strings.Contains(err.Error(), "already exists") {
			t.Fatal(err)
		}
		_, err = b.Client.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: user + "-" + role.Name},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
			Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
		}, metav1.CreateOptions{})
		must(err)
	}
	bind("reader", reader)
	bind("dry-runner", reader)
	bind("dry-runner", roles["daemonplan-dry-run"])
	for i := range rights {
		less := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "daemonplan-reader-" + without(i)},
			Rules: slices.Delete(slices.Clone(rights), i, i+1)}
		bind(without(i), less)
	}

	const ns = "agents"
	_, err := b.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	must(err)
	nodes := nodeNames(0, 3)
	for _, n := range nodes {
		_, err := b.Client.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n,
			Labels: map[string]string{"type": "kwok", "kubernetes.io/hostname": n}}}, metav1.CreateOptions{})
		must(err)
	}
	ds := daemonSet("agent", "agent:v1")
	ds.Namespace = ns
	_, err = b.Client.AppsV1().DaemonSets(ns).Create(ctx, ds, metav1.CreateOptions{})
	must(err)
	ctrl, err := StartUpstream(b.Config)
	must(err)
	deadline := time.Now().Add(time.Minute)
	for {
		got, err := b.Client.AppsV1().DaemonSets(ns).Get(ctx, "agent", metav1.GetOptions{})
		must(err)
		if s := got.Status; s.ObservedGeneration == got.Generation && s.NumberReady == 3 && s.NumberAvailable == 3 && s.UpdatedNumberScheduled == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the DaemonSet did not roll out in a minute: %+v", got.Status)
		}
		time.Sleep(200 * time.Millisecond)
	}
	// The state is frozen from here: nothing writes but the commands'
	// dry runs, which store nothing.
	must(ctrl.Stop())
	before, err := b.Client.AppsV1().DaemonSets(ns).Get(ctx, "agent", metav1.GetOptions{})
	must(err)

	dump := dumpList(t, b, ns)
	now := time.Now().UTC().Add(time.Minute).Format(time.RFC3339)
	kubeconfig := map[string]string{}
	for _, u := range users {
		kubeconfig[u.Name], err = b.KubeconfigFor(u)
		must(err)
	}
	type result struct {
		code           int
		stdout, stderr string
	}
	run := func(user string, args ...string) result {
		var out, errOut bytes.Buffer
		if user != "" {
			args = append(args, "--kubeconfig", kubeconfig[user])
		}
		if args[0] != "overhead" {
			args = append(args, "--now", now)
		}
		code := cli.Run("kubectl daemonplan", args, strings.NewReader(""), &out, &errOut)
		return result{code, out.String(), errOut.String()}
	}

	// The plan read live is the plan of the dump, in every output.
	for _, out := range []string{"json", "wide"} {
		lv := run("reader", "plan", "ds/agent", "-n", ns, "-o", out)
		fl := run("", "plan", "-f", dump, "-o", out)
		if lv.code != 0 || fl.code != 0 {
			t.Fatalf("-o %s: live exit %d (%s), file exit %d (%s)", out, lv.code, lv.stderr, fl.code, fl.stderr)
		}
		if lv.stdout != fl.stdout {
			t.Errorf("-o %s: the live plan differs from the dump's:\nlive:\n%s\nfile:\n%s", out, lv.stdout, fl.stdout)
		}
		if lv.stderr != fl.stderr {
			t.Errorf("-o %s: stderr live %q, file %q", out, lv.stderr, fl.stderr)
		}
	}

	// Every command, as the reader; and what each rule of the role is for.
	commands := []struct {
		name   string
		args   []string
		stderr string // for the reader
	}{
		{"plan", []string{"plan", "ds/agent", "-n", ns}, ""},
		{"plan without a name", []string{"plan", "-n", ns}, ""},
		{"plan -A", []string{"plan", "daemonsets.apps/agent", "-A"}, ""},
		{"explain", []string{"explain", "ds/agent", "node-0", "-n", ns}, ""},
		{"diff", []string{"diff", "ds/agent", "-n", ns, "--image", "agent=agent:v2"}, "no right to update daemonsets"},
		{"simulate", []string{"simulate", "agent", "-n", ns, "--image", "*=agent:v2"}, "it is defaulted offline instead"},
		{"overhead", []string{"overhead", "-n", ns}, ""},
		{"overhead -A", []string{"overhead", "-A"}, ""},
	}
	needed := make([]bool, len(rights))
	for _, c := range commands {
		r := run("reader", c.args...)
		if r.code != 0 || !strings.Contains(r.stderr, c.stderr) {
			t.Errorf("%s as reader: exit %d, stderr %q; want 0 and %q", c.name, r.code, r.stderr, c.stderr)
		}
		for i := range rights {
			if r := run(without(i), c.args...); r.code != 0 {
				needed[i] = true
				if !strings.Contains(r.stderr, "forbidden") {
					t.Errorf("%s without %v: exit %d, stderr %q lacks \"forbidden\"", c.name, rights[i], r.code, r.stderr)
				}
			}
		}
	}
	for i, n := range needed {
		if !n {
			t.Errorf("daemonplan-reader grants %s %s/%s, which no command needs: the role is not the smallest",
				rights[i].Verbs[0], rights[i].APIGroups[0], rights[i].Resources[0])
		}
	}

	// With the dry-run role, the new spec is the API server's.
	for _, args := range [][]string{
		{"diff", "ds/agent", "-n", ns, "--image", "agent=agent:v2", "-o", "json"},
		{"simulate", "ds/agent", "-n", ns, "--image", "agent=agent:v2", "-o", "json"},
	} {
		r := run("dry-runner", args...)
		if r.code != 0 || !strings.Contains(r.stderr, "defaulted by the API server") || strings.Contains(r.stderr, "warning") {
			t.Errorf("%s as dry-runner: exit %d, stderr %q", args[0], r.code, r.stderr)
		}
		// The same change defaulted offline gives the same answer here:
		// the image is all that changes.
		if off := run("reader", args...); off.stdout != r.stdout {
			t.Errorf("%s: the server-defaulted and offline answers differ:\n%s\n%s", args[0], r.stdout, off.stdout)
		}
	}
	after, err := b.Client.AppsV1().DaemonSets(ns).Get(ctx, "agent", metav1.GetOptions{})
	must(err)
	if after.ResourceVersion != before.ResourceVersion {
		t.Errorf("the DaemonSet changed (resourceVersion %s, then %s): a dry run stored something", before.ResourceVersion, after.ResourceVersion)
	}
}

// dumpList writes what 'kubectl get ds,nodes,pods,controllerrevisions -n
// NS -o json' prints, one v1 List, and returns the file's path.
func dumpList(t *testing.T, b *Bed, ns string) string {
	t.Helper()
	ctx := context.Background()
	var items []runtime.Object
	dss, err := b.Client.AppsV1().DaemonSets(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range dss.Items {
		dss.Items[i].TypeMeta = metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"}
		items = append(items, &dss.Items[i])
	}
	nodes, err := b.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range nodes.Items {
		nodes.Items[i].TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}
		items = append(items, &nodes.Items[i])
	}
	pods, err := b.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range pods.Items {
		pods.Items[i].TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
		items = append(items, &pods.Items[i])
	}
	revs, err := b.Client.AppsV1().ControllerRevisions(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range revs.Items {
		revs.Items[i].TypeMeta = metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ControllerRevision"}
		items = append(items, &revs.Items[i])
	}
	data, err := json.MarshalIndent(map[string]any{"apiVersion": "v1", "kind": "List", "metadata": map[string]any{}, "items": items}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(b.Dir, "dump.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
