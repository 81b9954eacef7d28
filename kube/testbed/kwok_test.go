package testbed

import (
	"testing"
	"time"
)

// TestStagesParse: the pod stages the scenarios add are kwok stages kwok
// reads: the never-ready one and the crash loop's, one per back-off from
// 1s to the kubelet's 5m maximum (1s, 2s, ... 4m16s, 5m) after its start.
func TestStagesParse(t *testing.T) {
	crash := CrashLoopStages("agent:crash", time.Second, time.Second)
	if len(crash) != 1+10 {
		t.Errorf("%d crash-loop stages, want the start and 10 back-offs", len(crash))
	}
	got, err := stages(time.Second, append([]string{NeverReadyStage("agent:bad")}, crash...))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, st := range got {
		n += len(st)
	}
	// kwok's node stage, the ready and delete stages, and ours.
	if want := 3 + 1 + len(crash); n != want {
		t.Errorf("%d stages parsed, want %d", n, want)
	}
}
