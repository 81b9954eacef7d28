package cli

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/daemonplan/daemonplan/kube/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// zonedOnDelete returns a generated cluster of n nodes (genCluster) whose
// DaemonSet is on OnDelete and whose node-i is in zone "abc"[i%3]: the
// shape of the test bed's zones scenario.
func zonedOnDelete(t *testing.T, n int) string {
	now, _ := time.Parse(time.RFC3339, genNow)
	raw := genCluster(t, genSpec{nodes: n, image: "agent:v1", maxUnavailable: intstr.FromInt32(1)}, now)
	var list map[string]any
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	i := 0
	for _, it := range list["items"].([]any) {
		obj := it.(map[string]any)
		switch obj["kind"] {
		case "DaemonSet":
			obj["spec"].(map[string]any)["updateStrategy"] = map[string]any{"type": "OnDelete"}
		case "Node":
			meta := obj["metadata"].(map[string]any)
			meta["labels"] = map[string]any{"topology.kubernetes.io/zone": string(rune('a' + i%3))}
			i++
		}
	}
	b, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	return writeTemp(t, "zoned.json", string(b))
}

// TestSimulateRolloutPolicy: --rollout-policy simulates the rollout the
// driver of kube/progressive makes, with the test bed's timings (new pods
// Ready 1s after their creation, a 1s grace period): zone by zone
// a → b → c under maxUnavailable 2 after a canary of 1, each phase
// beginning once the one before it is done, in order.
func TestSimulateRolloutPolicy(t *testing.T) {
	cluster := zonedOnDelete(t, 9)
	pol := writeTemp(t, "policy.json", `{"canary": {"nodes": 1}, "zones": {"order": ["a", "b", "c"]}, "maxUnavailable": 2}`)
	got := runCLI(t, "", "simulate", "--now", genNow, "-f", cluster, "--image", "agent=agent:v2",
		"--ready-after", "1s", "--grace-period", "1s", "--rollout-policy", pol)
	if got.code != exitOK || got.stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing\n%s", got.code, got.stderr, got.stdout)
	}
	// The canary's node (node-000000, zone a) takes 2s; zone a's two
	// other nodes one step of 2s; zones b and c two steps each.
	want := []string{
		"+0s Canary - -",
		"+2s Canary - promote",
		"+2s Zone a -",
		"+4s Zone b -",
		"+8s Zone c -",
		"+12s Done - -",
	}
	_, phases, ok := strings.Cut(got.stdout, "phases of the progressive rollout")
	if !ok {
		t.Fatalf("no phases in\n%s", got.stdout)
	}
	var rows []string
	for _, l := range strings.Split(phases, "\n")[2:] {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			rows = append(rows, l)
		}
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("phases:\n%s\nwant:\n%s\nstdout:\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"), got.stdout)
	}
	if !strings.Contains(got.stdout, "predicted duration 12s") {
		t.Errorf("want a predicted duration of 12s:\n%s", got.stdout)
	}

	bad := writeTemp(t, "bad.json", `{"maxSurge": 1}`)
	got = runCLI(t, "", "simulate", "--now", genNow, "-f", cluster, "--image", "agent=agent:v2", "--rollout-policy", bad)
	if got.code != exitError || !strings.Contains(got.stderr, "policy.maxSurge") {
		t.Errorf("a policy with maxSurge: exit %d, stderr %q; want %d naming policy.maxSurge", got.code, got.stderr, exitError)
	}
}

// TestSimulateRolloutGate: rollout start's policy flags on simulate, and
// the ready gate simulated: the test bed's never-ready scenario (6 nodes,
// canary 2, maxUnavailable 2, zones a then b, readyDeadline 10s), new pods
// never Ready within the run (--ready-after 1h): the gate pauses the
// rollout at +12s (the canaries created at +1s, after the 1s grace
// period; the deadline; the simulation's one-second grain), and there is
// no predicted duration. The flags and --rollout-policy together are a
// usage error, as on rollout start.
func TestSimulateRolloutGate(t *testing.T) {
	cluster := zonedOnDelete(t, 6)
	args := []string{"simulate", "--now", genNow, "-f", cluster, "--image", "agent=agent:bad",
		"--ready-after", "1h", "--grace-period", "1s"}
	got := runCLI(t, "", append(args, "--canary", "2", "--max-unavailable", "2", "--zones", "a,b", "--ready-deadline", "10s")...)
	if got.code != exitOK || got.stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing\n%s", got.code, got.stderr, got.stdout)
	}
	out := strings.Join(strings.Fields(got.stdout), " ")
	for _, want := range []string{"+0s Canary - -", "+12s Canary - none: gate failed: pod ", "not Ready 11s after its creation (gate: Ready within 10s) (and 1 more pods)",
		"no predicted duration: the rollout did not finish"} {
		if !strings.Contains(out, want) {
			t.Errorf("want %q in\n%s", want, got.stdout)
		}
	}
	pol := writeTemp(t, "policy.json", `{"maxUnavailable": 2}`)
	got = runCLI(t, "", append(args, "--rollout-policy", pol, "--canary", "2")...)
	if got.code != exitUsage || !strings.Contains(got.stderr, "simulate: give the policy by --rollout-policy or by flags, not both") {
		t.Errorf("--rollout-policy and --canary: exit %d, stderr %q; want %d", got.code, got.stderr, exitUsage)
	}
}

// TestSimulateRolloutRestartGate: --crash-rate makes new pods crash-loop
// on the kubelet's back-off from --crash-backoff, and the policy's
// maxRestarts gate aborts the rollout at the restart beyond it, as the
// test bed's crash-loop scenario (TestProgressiveCrashLoop): canaries
// created at 1s, first exit at 2s, restarts 1s, 2s, 4s, 8s later: the 4th
// at 17s. A longer back-off moves the gate later; bad rates are usage
// errors.
func TestSimulateRolloutRestartGate(t *testing.T) {
	cluster := zonedOnDelete(t, 6)
	args := []string{"simulate", "--now", genNow, "-f", cluster, "--image", "agent=agent:crash",
		"--ready-after", "1s", "--grace-period", "1s", "--crash-rate", "1",
		"--canary", "2", "--max-unavailable", "2", "--max-restarts", "3", "--on-failure", "Abort", "--ready-deadline", "10m"}
	for _, tc := range []struct {
		name, backoff, want string
	}{
		{"test bed's back-off", "1s", "+17s Aborted - none: gate failed: pod "},
		{"kubelet's default", "10s", "+2m32s Aborted - none: gate failed: pod "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := runCLI(t, "", append(args, "--crash-backoff", tc.backoff)...)
			if got.code != exitOK || got.stderr != "" {
				t.Fatalf("exit %d, stderr %q; want 0 and nothing\n%s", got.code, got.stderr, got.stdout)
			}
			out := strings.Join(strings.Fields(got.stdout), " ")
			for _, want := range []string{tc.want, "restarted 4 times (gate: at most 3) (and 1 more pods)"} {
				if !strings.Contains(out, want) {
					t.Errorf("want %q in\n%s", want, got.stdout)
				}
			}
		})
	}
	for _, bad := range [][]string{{"--crash-rate", "1.5"}, {"--crash-rate", "0.6", "--fail-rate", "0.6"}, {"--crash-backoff", "0s"}} {
		if got := runCLI(t, "", append(args[:len(args):len(args)], bad...)...); got.code != exitUsage {
			t.Errorf("%v: exit %d, stderr %q; want %d", bad, got.code, got.stderr, exitUsage)
		}
	}
}

// TestSimulateRolloutPhasesJSON: -o json carries the phases the table
// prints after the syncs (the gate included), and an empty list without
// a rollout policy.
func TestSimulateRolloutPhasesJSON(t *testing.T) {
	cluster := zonedOnDelete(t, 6)
	args := []string{"simulate", "--now", genNow, "-f", cluster, "--image", "agent=agent:bad",
		"--ready-after", "1h", "--grace-period", "1s", "-o", "json"}
	phases := func(extra ...string) []schema.SimulationPhase {
		t.Helper()
		got := runCLI(t, "", append(args, extra...)...)
		if got.code != exitOK {
			t.Fatalf("exit %d: %s", got.code, got.stderr)
		}
		var doc schema.Simulation
		if err := json.Unmarshal([]byte(got.stdout), &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Phases == nil {
			t.Fatalf("phases is null:\n%s", got.stdout)
		}
		return doc.Phases
	}
	if p := phases(); len(p) != 0 {
		t.Errorf("without a policy: phases %+v, want none", p)
	}
	p := phases("--canary", "2", "--max-unavailable", "2", "--ready-deadline", "10s")
	if len(p) != 2 || p[0] != (schema.SimulationPhase{At: "0s", Phase: "Canary"}) || p[1].At != "12s" || p[1].Phase != "Canary" ||
		!strings.HasPrefix(p[1].Gate, "gate failed: pod ") {
		t.Errorf("phases %+v, want Canary at 0s, then the gate at 12s", p)
	}
}
