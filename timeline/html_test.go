package timeline_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/sim"
	"github.com/daemonplan/daemonplan/timeline"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// stalledTimeline is the small rollout the HTML tests draw: four nodes,
// maxUnavailable 2, the new pods of node-2 and node-3 hang and node-1's
// first new pod fails.
func stalledTimeline(t *testing.T) *timeline.Timeline {
	c := settled(t, 4, maxUnavailable(2), 30*time.Second)
	hang := hangOn("node-2", "node-3")
	failedOnce := false
	c.FateOf = func(node string, p *api.Pod) sim.Fate {
		if node == "node-1" && !failedOnce {
			failedOnce = true
			return sim.Fail
		}
		return hang(node, p)
	}
	c.Update(template("agent:v2"), "")
	return mustRun(t, c, timeline.Options{})
}

// wellFormed fails unless page parses as XML to its end.
func wellFormed(t *testing.T, page []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(page))
	d.Strict = true
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
	}
}

// TestWriteHTMLGolden: the page of a small stalled rollout is well-formed
// XML and matches testdata/stalled.html (regenerate with -update and read
// the diff, or open the file, before committing it).
func TestWriteHTMLGolden(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, timeline.WriteHTML(&buf, stalledTimeline(t), timeline.HTMLOptions{}))
	wellFormed(t, buf.Bytes())
	golden := filepath.Join("testdata", "stalled.html")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(golden, buf.Bytes(), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	if buf.String() != string(want) {
		t.Errorf("WriteHTML differs from %s; rerun with -update and read the diff", golden)
	}
	for _, s := range []string{"<svg", "node-2", "never became Ready", "maxUnavailable 2 used up", "failed at"} {
		if !strings.Contains(buf.String(), s) {
			t.Errorf("page lacks %q", s)
		}
	}
}

// TestWriteHTMLLarge: a large cluster draws at most MaxRows rows, says how
// many it leaves out, keeps the stall's holders, and stays small.
func TestWriteHTMLLarge(t *testing.T) {
	c := settled(t, 300, maxUnavailable(30), 30*time.Second)
	c.FateOf = hangOn("node-97")
	c.Update(template("agent:v2"), "")
	tl := mustRun(t, c, timeline.Options{})
	var buf bytes.Buffer
	require.NoError(t, timeline.WriteHTML(&buf, tl, timeline.HTMLOptions{MaxRows: 40}))
	wellFormed(t, buf.Bytes())
	page := buf.String()
	require.Equal(t, 40, strings.Count(page, `class="node-row"`), "rows drawn")
	require.Contains(t, page, "260 more nodes not drawn")
	require.Contains(t, page, `data-node="node-97"`, "the stall's holder must be drawn")
	require.Less(t, buf.Len(), 200_000, "page size")
}

// TestWriteHTMLChromium opens the golden page in headless Chromium: the
// page loads without a console error, and the rendered DOM holds one row
// per node, the budget band and the step table; a screenshot is written.
// Without chromium it skips, except under CI=true (.ci/run installs it),
// where it fails.
func TestWriteHTMLChromium(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("chromium not installed, and CI=true: .ci/run installs Debian's chromium")
		}
		t.Skip("chromium not installed")
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "timeline.html")
	var buf bytes.Buffer
	require.NoError(t, timeline.WriteHTML(&buf, stalledTimeline(t), timeline.HTMLOptions{}))
	require.NoError(t, os.WriteFile(page, buf.Bytes(), 0o644))
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + filepath.Join(dir, "profile"), "--window-size=1100,800"}
	cmd := exec.Command(bin, append(args, "--enable-logging=stderr", "--v=0", "--dump-dom", "file://"+page)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	dom, err := cmd.Output()
	require.NoError(t, err, "chromium --dump-dom: %s", stderr.String())
	// Console messages reach the log as "CONSOLE(...)" lines; the page has
	// no script, so any is a fault of the page.
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, "CONSOLE") || strings.Contains(line, "Uncaught") {
			t.Errorf("console: %s", line)
		}
	}
	for _, s := range []string{"<svg", `data-node="node-0"`, `data-node="node-3"`, "stalled after",
		`class="budget"`, `class="allowance"`, "<th>maxUnavailable</th>"} {
		if !strings.Contains(string(dom), s) {
			t.Errorf("rendered DOM lacks %q", s)
		}
	}
	require.Equal(t, 4, strings.Count(string(dom), `class="node-row"`), "node rows in the rendered DOM")
	shot := filepath.Join(dir, "timeline.png")
	if out := os.Getenv("TIMELINE_SCREENSHOT"); out != "" {
		shot = out // keep it to look at
	}
	_, err = exec.Command(bin, append(args, "--screenshot="+shot, "file://"+page)...).Output()
	require.NoError(t, err, "chromium --screenshot")
	png, err := os.ReadFile(shot)
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(png, []byte("\x89PNG")), "screenshot is a PNG")
}
