package testbed

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	v1helper "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"
)

// binder binds each pod without a node to the node its required node
// affinity names in a metadata.name matchFields term, as a DaemonSet's
// pods carry it, once that node exists, matches the pod's affinity and
// node selector, and has no NoSchedule or NoExecute taint the pod does not
// tolerate (kube-scheduler's NodeAffinity, NodeName and TaintToleration
// filters; a DaemonSet pod tolerates the unschedulable taint). It stands
// in for kube-scheduler: daemon pods are placed by their controller, and
// a binder leaves no scheduling queue's backoff in the timings.
type binder struct {
	client kubernetes.Interface
	pods   cache.SharedIndexInformer
	nodes  cache.SharedIndexInformer
	queue  workqueue.TypedRateLimitingInterface[string]
}

func startBinder(ctx context.Context, client kubernetes.Interface) error {
	unbound := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.FieldSelector = fields.OneTermEqualSelector("spec.nodeName", "").String()
	}))
	all := informers.NewSharedInformerFactory(client, 0)
	b := &binder{
		client: client,
		pods:   unbound.Core().V1().Pods().Informer(),
		nodes:  all.Core().V1().Nodes().Informer(),
		queue:  workqueue.NewTypedRateLimitingQueue(workqueue.NewTypedItemExponentialFailureRateLimiter[string](10*time.Millisecond, time.Second)),
	}
	enqueue := func(obj any) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			b.queue.Add(key)
		}
	}
	if _, err := b.pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
	}); err != nil {
		return err
	}
	// A node added or changed may let a waiting pod bind.
	requeueAll := func(any) {
		for _, key := range b.pods.GetStore().ListKeys() {
			b.queue.Add(key)
		}
	}
	if _, err := b.nodes.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    requeueAll,
		UpdateFunc: func(_, obj any) { requeueAll(obj) },
	}); err != nil {
		return err
	}
	unbound.Start(ctx.Done())
	all.Start(ctx.Done())
	go func() {
		<-ctx.Done()
		b.queue.ShutDown()
	}()
	cache.WaitForCacheSync(ctx.Done(), b.pods.HasSynced, b.nodes.HasSynced)
	go func() {
		for b.next(ctx) {
		}
	}()
	return nil
}

func (b *binder) next(ctx context.Context) bool {
	key, quit := b.queue.Get()
	if quit {
		return false
	}
	defer b.queue.Done(key)
	if err := b.bind(ctx, key); err != nil {
		b.queue.AddRateLimited(key)
	} else {
		b.queue.Forget(key)
	}
	return true
}

func (b *binder) bind(ctx context.Context, key string) error {
	obj, ok, err := b.pods.GetStore().GetByKey(key)
	if err != nil || !ok {
		return err
	}
	pod := obj.(*corev1.Pod)
	if pod.Spec.NodeName != "" || pod.DeletionTimestamp != nil {
		return nil
	}
	name := affinityNode(pod)
	if name == "" {
		return nil
	}
	obj, ok, err = b.nodes.GetStore().GetByKey(name)
	if err != nil || !ok {
		return err // waits for the node
	}
	node := obj.(*corev1.Node)
	if fits, _ := nodeaffinity.GetRequiredNodeAffinity(pod).Match(node); !fits {
		return nil
	}
	if _, untolerated := v1helper.FindMatchingUntoleratedTaint(klog.Background(), node.Spec.Taints, pod.Spec.Tolerations, func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
	}, false); untolerated {
		return nil
	}
	if node.Spec.Unschedulable && !v1helper.TolerationsTolerateTaint(klog.Background(), pod.Spec.Tolerations, &corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}, false) {
		return nil
	}
	err = b.client.CoreV1().Pods(pod.Namespace).Bind(ctx, &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
		Target:     corev1.ObjectReference{Kind: "Node", Name: node.Name},
	}, metav1.CreateOptions{})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil // gone, or bound meanwhile
	}
	return err
}

// affinityNode returns the node a metadata.name matchFields term of the
// pod's required node affinity names, or "".
func affinityNode(pod *corev1.Pod) string {
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, f := range term.MatchFields {
			if f.Key == "metadata.name" && f.Operator == corev1.NodeSelectorOpIn && len(f.Values) == 1 {
				return f.Values[0]
			}
		}
	}
	return ""
}
