package live

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/kubernetes"

	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/kube/upstream"
)

// DefaultPageSize is the page size of a list when Options.PageSize is 0:
// kubectl's own chunk size.
const DefaultPageSize = 500

// Options tune the reading.
type Options struct {
	// PageSize is the number of items asked for per list request
	// (DefaultPageSize when 0).
	PageSize int64
}

func (o Options) pageSize() int64 {
	if o.PageSize <= 0 {
		return DefaultPageSize
	}
	return o.PageSize
}

// Read reads the DaemonSet name of namespace and what its sync reads: every
// node, and the pods and ControllerRevisions of its namespace that its
// selector matches.
//
// An empty name picks the only DaemonSet of the namespace; when the
// namespace has none or several, the Objects returned hold them all and
// nothing else, for load.Objects.Snapshot to report (ErrNoDaemonSet,
// ErrManyDaemonSets). An empty namespace looks in every namespace.
func Read(ctx context.Context, c kubernetes.Interface, namespace, name string, o Options) (*load.Objects, error) {
	var dss []appsv1.DaemonSet
	if namespace != "" && name != "" {
		ds, err := c.AppsV1().DaemonSets(namespace).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return &load.Objects{}, nil
		}
		if err != nil {
			return nil, fmt.Errorf("get daemonset %s/%s: %w", namespace, name, err)
		}
		dss = []appsv1.DaemonSet{*ds}
	} else {
		var err error
		dss, err = daemonSets(ctx, c, namespace, o)
		if err != nil {
			return nil, err
		}
		if name != "" {
			dss = slices.DeleteFunc(dss, func(ds appsv1.DaemonSet) bool { return ds.Name != name })
		}
	}
	objs := &load.Objects{}
	for i := range dss {
		objs.DaemonSets = append(objs.DaemonSets, &dss[i])
		objs.At.DaemonSets = append(objs.At.DaemonSets, at("daemonset", &dss[i].ObjectMeta))
	}
	if len(dss) != 1 {
		return objs, nil
	}
	ds := objs.DaemonSets[0]
	sel, err := metav1.LabelSelectorAsSelector(ds.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("daemonset %s/%s: spec.selector: %w", ds.Namespace, ds.Name, err)
	}
	if err := readNodes(ctx, c, objs, o); err != nil {
		return nil, err
	}
	// An empty selector (the API server refuses one) matches nothing the
	// controller would own or adopt: list nothing rather than the whole
	// namespace.
	if !sel.Empty() && !isNothing(sel) {
		lo := metav1.ListOptions{LabelSelector: sel.String()}
		err := list(ctx, o, lo, func(lo metav1.ListOptions) (*corev1.PodList, error) {
			return c.CoreV1().Pods(ds.Namespace).List(ctx, lo)
		}, func(l *corev1.PodList) metav1.ListInterface { return l }, func(l *corev1.PodList) {
			for i := range l.Items {
				objs.Pods = append(objs.Pods, &l.Items[i])
				objs.At.Pods = append(objs.At.Pods, at("pod", &l.Items[i].ObjectMeta))
			}
		}, "pods in namespace "+ds.Namespace)
		if err != nil {
			return nil, err
		}
		err = list(ctx, o, lo, func(lo metav1.ListOptions) (*appsv1.ControllerRevisionList, error) {
			return c.AppsV1().ControllerRevisions(ds.Namespace).List(ctx, lo)
		}, func(l *appsv1.ControllerRevisionList) metav1.ListInterface { return l }, func(l *appsv1.ControllerRevisionList) {
			for i := range l.Items {
				objs.Revisions = append(objs.Revisions, &l.Items[i])
				objs.At.Revisions = append(objs.At.Revisions, at("controllerrevision", &l.Items[i].ObjectMeta))
			}
		}, "controllerrevisions in namespace "+ds.Namespace)
		if err != nil {
			return nil, err
		}
	}
	return objs, nil
}

// ReadAll reads what a question about every DaemonSet asks (daemonplan
// overhead): the DaemonSets of namespace (every namespace when empty),
// and, unless nodes is false, every node and every pod of every namespace
// that has not finished (status.phase neither Succeeded nor Failed), since
// any pod bound to a node takes of its room.
func ReadAll(ctx context.Context, c kubernetes.Interface, namespace string, nodes bool, o Options) (*load.Objects, error) {
	dss, err := daemonSets(ctx, c, namespace, o)
	if err != nil {
		return nil, err
	}
	objs := &load.Objects{}
	for i := range dss {
		objs.DaemonSets = append(objs.DaemonSets, &dss[i])
		objs.At.DaemonSets = append(objs.At.DaemonSets, at("daemonset", &dss[i].ObjectMeta))
	}
	if !nodes {
		return objs, nil
	}
	if err := readNodes(ctx, c, objs, o); err != nil {
		return nil, err
	}
	if err := ReadPods(ctx, c, objs, o); err != nil {
		return nil, err
	}
	return objs, nil
}

// ReadPods adds to objs every pod of every namespace that has not finished
// (phase neither Succeeded nor Failed): what the scheduler counts on each
// node, bound there or nominated for it. It needs the list right on pods
// in every namespace.
func ReadPods(ctx context.Context, c kubernetes.Interface, objs *load.Objects, o Options) error {
	running := fields.AndSelectors(
		fields.OneTermNotEqualSelector("status.phase", string(corev1.PodSucceeded)),
		fields.OneTermNotEqualSelector("status.phase", string(corev1.PodFailed)))
	return list(ctx, o, metav1.ListOptions{FieldSelector: running.String()}, func(lo metav1.ListOptions) (*corev1.PodList, error) {
		return c.CoreV1().Pods(metav1.NamespaceAll).List(ctx, lo)
	}, func(l *corev1.PodList) metav1.ListInterface { return l }, func(l *corev1.PodList) {
		for i := range l.Items {
			objs.Pods = append(objs.Pods, &l.Items[i])
			objs.At.Pods = append(objs.At.Pods, at("pod", &l.Items[i].ObjectMeta))
		}
	}, "pods")
}

// ReadAdmission adds to objs what admission and the scheduler's
// preemption read: the LimitRanges of namespace (every namespace when
// empty), every PriorityClass and RuntimeClass, and, with budgets, the
// PodDisruptionBudgets of every namespace (a victim may be in any). It
// needs the list right on limitranges, priorityclasses
// (scheduling.k8s.io), runtimeclasses (node.k8s.io) and
// poddisruptionbudgets (policy), which the daemonplan-reader role grants
// (kube/rbac); a refusal is an error naming the list.
func ReadAdmission(ctx context.Context, c kubernetes.Interface, namespace string, budgets bool, objs *load.Objects, o Options) error {
	what := "limitranges in namespace " + namespace
	if namespace == "" {
		what = "limitranges"
	}
	err := list(ctx, o, metav1.ListOptions{}, func(lo metav1.ListOptions) (*corev1.LimitRangeList, error) {
		return c.CoreV1().LimitRanges(namespace).List(ctx, lo)
	}, func(l *corev1.LimitRangeList) metav1.ListInterface { return l }, func(l *corev1.LimitRangeList) {
		for i := range l.Items {
			objs.LimitRanges = append(objs.LimitRanges, &l.Items[i])
			objs.At.LimitRanges = append(objs.At.LimitRanges, at("limitrange", &l.Items[i].ObjectMeta))
		}
	}, what)
	if err != nil {
		return err
	}
	err = list(ctx, o, metav1.ListOptions{}, func(lo metav1.ListOptions) (*schedulingv1.PriorityClassList, error) {
		return c.SchedulingV1().PriorityClasses().List(ctx, lo)
	}, func(l *schedulingv1.PriorityClassList) metav1.ListInterface { return l }, func(l *schedulingv1.PriorityClassList) {
		for i := range l.Items {
			objs.PriorityClasses = append(objs.PriorityClasses, &l.Items[i])
			objs.At.PriorityClasses = append(objs.At.PriorityClasses, at("priorityclass", &l.Items[i].ObjectMeta))
		}
	}, "priorityclasses")
	if err != nil {
		return err
	}
	err = list(ctx, o, metav1.ListOptions{}, func(lo metav1.ListOptions) (*nodev1.RuntimeClassList, error) {
		return c.NodeV1().RuntimeClasses().List(ctx, lo)
	}, func(l *nodev1.RuntimeClassList) metav1.ListInterface { return l }, func(l *nodev1.RuntimeClassList) {
		for i := range l.Items {
			objs.RuntimeClasses = append(objs.RuntimeClasses, &l.Items[i])
			objs.At.RuntimeClasses = append(objs.At.RuntimeClasses, at("runtimeclass", &l.Items[i].ObjectMeta))
		}
	}, "runtimeclasses")
	if err != nil || !budgets {
		return err
	}
	return list(ctx, o, metav1.ListOptions{}, func(lo metav1.ListOptions) (*policyv1.PodDisruptionBudgetList, error) {
		return c.PolicyV1().PodDisruptionBudgets(metav1.NamespaceAll).List(ctx, lo)
	}, func(l *policyv1.PodDisruptionBudgetList) metav1.ListInterface { return l }, func(l *policyv1.PodDisruptionBudgetList) {
		for i := range l.Items {
			objs.PodDisruptionBudgets = append(objs.PodDisruptionBudgets, &l.Items[i])
			objs.At.PodDisruptionBudgets = append(objs.At.PodDisruptionBudgets, at("poddisruptionbudget", &l.Items[i].ObjectMeta))
		}
	}, "poddisruptionbudgets")
}

func daemonSets(ctx context.Context, c kubernetes.Interface, namespace string, o Options) ([]appsv1.DaemonSet, error) {
	var out []appsv1.DaemonSet
	what := "daemonsets in namespace " + namespace
	if namespace == "" {
		what = "daemonsets"
	}
	err := list(ctx, o, metav1.ListOptions{}, func(lo metav1.ListOptions) (*appsv1.DaemonSetList, error) {
		return c.AppsV1().DaemonSets(namespace).List(ctx, lo)
	}, func(l *appsv1.DaemonSetList) metav1.ListInterface { return l }, func(l *appsv1.DaemonSetList) {
		out = append(out, l.Items...)
	}, what)
	return out, err
}

func readNodes(ctx context.Context, c kubernetes.Interface, objs *load.Objects, o Options) error {
	return list(ctx, o, metav1.ListOptions{}, func(lo metav1.ListOptions) (*corev1.NodeList, error) {
		return c.CoreV1().Nodes().List(ctx, lo)
	}, func(l *corev1.NodeList) metav1.ListInterface { return l }, func(l *corev1.NodeList) {
		for i := range l.Items {
			objs.Nodes = append(objs.Nodes, &l.Items[i])
			objs.At.Nodes = append(objs.At.Nodes, at("node", &l.Items[i].ObjectMeta))
		}
	}, "nodes")
}

// maxPages bounds the pages of one list, against a server that never stops
// continuing: ten million objects at the default page size.
const maxPages = 20000

// list lists page by page: each request asks for o's page size and
// continues from the last, until the server gives no continue token. add
// takes each page's items.
func list[L any](ctx context.Context, o Options, lo metav1.ListOptions, get func(metav1.ListOptions) (L, error),
	meta func(L) metav1.ListInterface, add func(L), what string) error {
	lo.Limit = o.pageSize()
	for page := 0; ; page++ {
		if page == maxPages {
			return fmt.Errorf("list %s: more than %d pages", what, maxPages)
		}
		l, err := get(lo)
		if err != nil {
			if apierrors.IsResourceExpired(err) {
				return fmt.Errorf("list %s: the listing took longer than the server keeps a snapshot; run again: %w", what, err)
			}
			return fmt.Errorf("list %s: %w", what, err)
		}
		m := meta(l)
		add(l)
		next := m.GetContinue()
		if next == "" {
			return nil
		}
		if next == lo.Continue {
			return fmt.Errorf("list %s: the server returned the same continue token twice", what)
		}
		lo.Continue = next
	}
}

// at is the position of a listed object in messages: "pod NAMESPACE/NAME".
func at(kind string, m *metav1.ObjectMeta) load.Position {
	name := m.Name
	if m.Namespace != "" {
		name = m.Namespace + "/" + name
	}
	return load.Position{Source: kind + " " + name}
}

func isNothing(s labels.Selector) bool {
	_, selectable := s.Requirements()
	return !selectable
}

// ErrUnsupportedServer reports a server whose Kubernetes minor daemonplan
// does not reproduce; test with errors.Is.
var ErrUnsupportedServer = errors.New("the server's Kubernetes version is not one daemonplan reproduces")

// ServerVersion reads the server's Kubernetes minor from its /version
// (major and minor; a provider's "27+" counts as 27). A version outside
// upstream.Versions is ErrUnsupportedServer, naming the versions there are.
func ServerVersion(d interface {
	ServerVersion() (*version.Info, error)
}) (upstream.Version, error) {
	info, err := d.ServerVersion()
	if err != nil {
		return 0, fmt.Errorf("read the server's version: %w", err)
	}
	major, minor := digits(info.Major), digits(info.Minor)
	if major == "" || minor == "" {
		return 0, fmt.Errorf("the server's /version gives major %q and minor %q (%s): pass --kubernetes-version", info.Major, info.Minor, info.GitVersion)
	}
	v, err := upstream.ParseVersion(major + "." + minor)
	if err != nil {
		var names []string
		for _, v := range upstream.Versions() {
			names = append(names, v.String())
		}
		return 0, fmt.Errorf("%w: the server runs %s.%s (%s); supported: %s; pass --kubernetes-version to plan as one of them",
			ErrUnsupportedServer, major, minor, info.GitVersion, strings.Join(names, ", "))
	}
	return v, nil
}

// digits is the leading decimal digits of s, without leading zeros
// ("27+" gives "27").
func digits(s string) string {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	n, err := strconv.Atoi(s[:i])
	if err != nil {
		return ""
	}
	return strconv.Itoa(n)
}

// DryRunUpdate sends ds as an update of the stored DaemonSet with dryRun=All,
// as `kubectl apply --dry-run=server` does: the server defaults it, runs
// its admission and validation, and answers with the object it would
// store, writing nothing. It needs the update verb on daemonsets (a dry run
// is authorized as the real request). ds is not modified.
func DryRunUpdate(ctx context.Context, c kubernetes.Interface, ds *appsv1.DaemonSet) (*appsv1.DaemonSet, error) {
	return c.AppsV1().DaemonSets(ds.Namespace).Update(ctx, ds.DeepCopy(), metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
}
