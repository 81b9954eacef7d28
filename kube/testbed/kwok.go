package testbed

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	nodefast "sigs.k8s.io/kwok/kustomize/stage/node/fast"
	"sigs.k8s.io/kwok/pkg/apis/internalversion"
	"sigs.k8s.io/kwok/pkg/client/clientset/versioned"
	"sigs.k8s.io/kwok/pkg/config"
	"sigs.k8s.io/kwok/pkg/kwok/controllers"
	"sigs.k8s.io/kwok/pkg/log"
	"sigs.k8s.io/kwok/pkg/utils/client"
)

// podReadyStage makes a pending pod Running and Ready after a delay (the
// status template is kwok's "fast" pod-ready stage's).
const podReadyStage = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-ready
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: 'DoesNotExist'
    - key: '.status.phase'
      operator: 'In'
      values:
      - 'Pending'
    - key: '.status.conditions.[] | select( .type == "Ready" ) | .status'
      operator: 'NotIn'
      values:
      - 'True'
  delay:
    durationMilliseconds: %d
  next:
    statusTemplate: |
      {{ $now := Now }}
      conditions:
      - lastTransitionTime: {{ $now | Quote }}
        status: "True"
        type: Initialized
      - lastTransitionTime: {{ $now | Quote }}
        status: "True"
        type: Ready
      - lastTransitionTime: {{ $now | Quote }}
        status: "True"
        type: ContainersReady
      {{ range .spec.readinessGates }}
      - lastTransitionTime: {{ $now | Quote }}
        status: "True"
        type: {{ .conditionType | Quote }}
      {{ end }}
      containerStatuses:
      {{ range .spec.containers }}
      - image: {{ .image | Quote }}
        name: {{ .name | Quote }}
        ready: true
        restartCount: 0
        started: true
        state:
          running:
            startedAt: {{ $now | Quote }}
      {{ end }}
      {{ $hostIPs := NodeIPsWith .spec.nodeName }}
      {{ with $hostIPs }}
      hostIP: {{ index . 0 | Quote }}
      hostIPs:
      {{ range . }}
      - ip: {{ . | Quote }}
      {{ end }}
      {{ end }}
      {{ $podIPs := PodIPsWith .spec.nodeName ( or .spec.hostNetwork false ) ( or .metadata.uid "" ) ( or .metadata.name "" ) ( or .metadata.namespace "" ) }}
      {{ with $podIPs }}
      podIP: {{ index . 0 | Quote }}
      podIPs:
      {{ range . }}
      - ip: {{ . | Quote }}
      {{ end }}
      {{ end }}
      phase: Running
      startTime: {{ $now | Quote }}
`

// podDeleteStage deletes a terminating pod when its deletionTimestamp
// comes, that is after its grace period, as a kubelet does when its
// containers stop at once on SIGTERM and take all their grace period.
const podDeleteStage = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-delete
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: 'Exists'
    - key: '.metadata.finalizers'
      operator: 'DoesNotExist'
  delay:
    durationMilliseconds: 86400000
    jitterDurationFrom:
      expressionFrom: '.metadata.deletionTimestamp'
  next:
    delete: true
`

// stages returns the kwok stages: kwok's node-initialize (a node becomes
// Ready at once), the pod stages above, and extra pod stages in YAML.
func stages(readyDelay time.Duration, extraPodStages []string) (map[internalversion.StageResourceRef][]*internalversion.Stage, error) {
	out := map[internalversion.StageResourceRef][]*internalversion.Stage{}
	for _, y := range append([]string{nodefast.DefaultNodeInit, fmt.Sprintf(podReadyStage, readyDelay.Milliseconds()), podDeleteStage}, extraPodStages...) {
		st, err := config.UnmarshalWithType[*internalversion.Stage](y)
		if err != nil {
			return nil, fmt.Errorf("kwok stage: %w", err)
		}
		out[st.Spec.ResourceRef] = append(out[st.Spec.ResourceRef], st)
	}
	return out, nil
}

// startKwok runs kwok's controllers in this process, managing every node,
// with the stages above, logging to logFile; they stop with ctx. kwok's own clients read the
// kubeconfig file, as the kwok command does.
func startKwok(ctx context.Context, cfg *rest.Config, kubeconfig, logFile string, readyDelay time.Duration, extraPodStages []string) error {
	logw, err := os.Create(logFile)
	if err != nil {
		return err
	}
	go func() { <-ctx.Done(); logw.Close() }()
	ctx = log.NewContext(ctx, log.NewLogger(logw, log.LevelInfo))
	local, err := stages(readyDelay, extraPodStages)
	if err != nil {
		return err
	}
	cs, err := client.NewClientset("", kubeconfig)
	if err != nil {
		return err
	}
	dynamicClient, err := cs.ToDynamicClient()
	if err != nil {
		return err
	}
	restMapper, err := cs.ToRESTMapper()
	if err != nil {
		return err
	}
	kwokRest, err := cs.ToRESTConfig()
	if err != nil {
		return err
	}
	restClient, err := rest.RESTClientFor(kwokRest)
	if err != nil {
		return err
	}
	typed := rest.CopyConfig(cfg)
	typed.UserAgent = "kwok"
	typed.QPS, typed.Burst = -1, 0 // kwok's own clients have no rate limit
	typedClient, err := kubernetes.NewForConfig(typed)
	if err != nil {
		return err
	}
	kwokClient, err := versioned.NewForConfig(typed)
	if err != nil {
		return err
	}
	ctr, err := controllers.NewController(controllers.Config{
		Clock:                         clock.RealClock{},
		DynamicClient:                 dynamicClient,
		RESTClient:                    restClient,
		RESTMapper:                    restMapper,
		ImpersonatingDynamicClient:    cs.ToImpersonatingDynamicClient(),
		ImpersonatingTypedClient:      cs.ToImpersonatingTypedClient(),
		TypedClient:                   typedClient,
		TypedKwokClient:               kwokClient,
		ManageAllNodes:                true,
		CIDR:                          "10.0.0.1/24",
		NodeIP:                        "10.0.0.1",
		LocalStages:                   local,
		PodPlayStageParallelism:       4,
		NodePlayStageParallelism:      4,
		NodeLeaseParallelism:          4,
		PodsOnNodeSyncParallelism:     1,
		EnablePodsOnNodeSyncListPager: true,
		ID:                            "testbed",
	})
	if err != nil {
		return err
	}
	return ctr.Start(ctx)
}

// imageStage is a kwok stage that moves a pending pod of image at once to
// the status of statusTemplate. It weighs 1 against the ready stage's 0,
// so kwok always picks it for such a pod; a Running pod no longer matches
// the ready stage.
func imageStage(name, image, statusTemplate string) string {
	return podStage(name, image, "Pending", "", 0, statusTemplate)
}

// podStage is a kwok stage, weighing 1, that moves a pod of image in phase
// whose first container waits with message waiting (any, when empty) to
// the status of statusTemplate, delay after it matched.
func podStage(name, image, phase, waiting string, delay time.Duration, statusTemplate string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: %s
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: 'DoesNotExist'
    - key: '.status.phase'
      operator: 'In'
      values:
      - %q
    - key: '.spec.containers.[0].image'
      operator: 'In'
      values:
      - %q
`, name, phase, image)
	if waiting != "" {
		fmt.Fprintf(&b, `    - key: '.status.containerStatuses.[0].state.waiting.message'
      operator: 'In'
      values:
      - %q
`, waiting)
	}
	b.WriteString("  weight: 1\n")
	if delay > 0 {
		fmt.Fprintf(&b, "  delay:\n    durationMilliseconds: %d\n", delay.Milliseconds())
	}
	fmt.Fprintf(&b, "  next:\n    statusTemplate: |\n%s", statusTemplate)
	return b.String()
}

// NeverReadyStage is a kwok pod stage (Options.ExtraPodStages) that makes
// a pod whose first container runs image Running and never Ready: a
// version that hangs.
func NeverReadyStage(image string) string {
	return imageStage("pod-never-ready-"+stageName(image), image, `      {{ $now := Now }}
      conditions:
      - lastTransitionTime: {{ $now | Quote }}
        status: "False"
        type: Ready
      - lastTransitionTime: {{ $now | Quote }}
        status: "False"
        type: ContainersReady
      phase: Running
      startTime: {{ $now | Quote }}
`)
}

// CrashLoopStages are kwok pod stages (Options.ExtraPodStages) that make a
// pod whose first container runs image crash-loop as a kubelet restarts
// it: firstExit after the pod is bound its containers exit (Running, not
// Ready, waiting in CrashLoopBackOff, restartCount 0), and each is
// restarted, and exits again at once, backoff later, then after twice
// that, up to maxCrashBackoff between restarts (restartCount counts them).
// It is package sim's crash loop (sim.CrashLoop with ReadyAfter firstExit
// and CrashBackoff backoff), so that a simulation predicts the restart
// gate. Each back-off is a stage keyed by the container's waiting message
// ("back-off 2s restarting failed container", as a kubelet words it),
// which names the back-off before the next restart.
func CrashLoopStages(image string, firstExit, backoff time.Duration) []string {
	name := "pod-crash-loop-" + stageName(image)
	status := func(restarts string, next time.Duration) string {
		return fmt.Sprintf(`      {{ $now := Now }}
      conditions:
      - lastTransitionTime: {{ $now | Quote }}
        status: "False"
        type: Ready
      - lastTransitionTime: {{ $now | Quote }}
        status: "False"
        type: ContainersReady
      containerStatuses:
      {{ range .spec.containers }}
      - image: {{ .image | Quote }}
        name: {{ .name | Quote }}
        ready: false
        restartCount: %s
        started: false
        state:
          waiting:
            reason: CrashLoopBackOff
            message: %q
        lastState:
          terminated:
            exitCode: 1
            reason: Error
            finishedAt: {{ $now | Quote }}
      {{ end }}
      phase: Running
`, restarts, backoffMessage(next))
	}
	backoff = min(backoff, maxCrashBackoff)
	out := []string{podStage(name, image, "Pending", "", firstExit, status("0", backoff)+"      startTime: {{ Now | Quote }}\n")}
	for d := backoff; ; d = min(2*d, maxCrashBackoff) {
		restarted := status("{{ add1 (index $.status.containerStatuses 0).restartCount }}", min(2*d, maxCrashBackoff))
		out = append(out, podStage(fmt.Sprintf("%s-restart-%d", name, d.Milliseconds()), image, "Running", backoffMessage(d), d, restarted))
		if d == maxCrashBackoff {
			return out
		}
	}
}

// maxCrashBackoff is the kubelet's default longest back-off between
// restarts (sim.DefaultMaxCrashBackoff).
const maxCrashBackoff = 5 * time.Minute

func backoffMessage(d time.Duration) string {
	return "back-off " + d.String() + " restarting failed container"
}

// stageName makes an image a valid part of an object name.
func stageName(image string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, strings.ToLower(image))
}
