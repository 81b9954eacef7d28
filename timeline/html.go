package timeline

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// HTMLOptions are the switches of [WriteHTML].
type HTMLOptions struct {
	// Title heads the page; "" means "Rollout of NAMESPACE/NAME".
	Title string
	// MaxRows caps the node rows drawn; 0 means 100. The rows kept are the
	// stall's holders first, then nodes whose pods failed, then the
	// others by name; they are drawn in name order and the page says how
	// many nodes it leaves out.
	MaxRows int
	// MaxSyncRows caps the rows of the step table; 0 means 100.
	MaxSyncRows int
}

// The drawing's geometry, in SVG user units (pixels).
const (
	svgWidth   = 1000
	labelWidth = 160
	plotRight  = 20
	plotWidth  = svgWidth - labelWidth - plotRight
	axisHeight = 28
	rowHeight  = 14
	rowGap     = 4
	bandHeight = 70
	bandGap    = 26
)

// Colours: the current revision green, older revisions from a muted
// palette, failures red, pods being deleted grey.
const (
	currentColour  = "#2f9e44"
	failedColour   = "#e03131"
	deletingColour = "#868e96"
	budgetColour   = "#ffe8cc"
	unavailColour  = "#f08c00"
)

var oldColours = []string{"#4c6ef5", "#9c36b5", "#e8590c", "#1098ad", "#5c940d"}

// unknownColour is that of pods of no known revision: without a
// controller-revision-hash label, or with one the history lacks. No
// revision has it, so the legend can name it.
const unknownColour = "#495057"

const css = `body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px;color:#212529;background:#fff}
h1{font-size:20px;margin:0 0 8px}
p.summary{font-size:15px;margin:0 0 12px}
p.summary.stalled{color:#c92a2a;font-weight:600}
p.summary.converged{color:#2b8a3e;font-weight:600}
dl{display:grid;grid-template-columns:max-content auto;gap:2px 12px;font-size:13px;margin:0 0 16px}
dt{color:#495057}
dd{margin:0}
svg{display:block;margin:0 0 12px}
svg text{font-size:11px;fill:#343a40}
svg text.node{font-family:ui-monospace,Menlo,Consolas,monospace}
.legend{display:flex;flex-wrap:wrap;gap:6px 18px;font-size:13px;margin:0 0 16px}
.sw{display:inline-block;width:14px;height:12px;vertical-align:middle;margin-right:5px;border:1px solid #adb5bd}
table{border-collapse:collapse;font-size:12px;font-variant-numeric:tabular-nums}
th,td{padding:2px 10px;text-align:right;border-bottom:1px solid #e9ecef}
th{color:#495057}
p.more{font-size:13px;color:#495057}`

// WriteHTML writes tl as one self-contained page (HTML that is also
// well-formed XML, inline CSS and SVG, no script, no external resource):
// the summary, one row per node with its pods coloured by revision and
// state over time, the unavailable budget as a band below the rows, a
// legend, and the step table. The error is [ErrNoTimeline] for a nil tl,
// else w's.
func WriteHTML(w io.Writer, tl *Timeline, opts HTMLOptions) error {
	if tl == nil {
		return ErrNoTimeline
	}
	if opts.MaxRows <= 0 {
		opts.MaxRows = 100
	}
	if opts.MaxSyncRows <= 0 {
		opts.MaxSyncRows = 100
	}
	title := opts.Title
	if title == "" {
		title = "Rollout of " + tl.Namespace + "/" + tl.Name
	}
	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }

	p("<!DOCTYPE html>\n")
	p(`<html xmlns="http://www.w3.org/1999/xhtml" lang="en" xml:lang="en">` + "\n")
	p("<head>\n<meta charset=\"UTF-8\"/>\n<title>%s</title>\n<style>\n%s\n</style>\n</head>\n<body>\n", esc(title), css)
	p("<h1>%s</h1>\n", esc(title))
	class := "converged"
	if tl.Outcome != Converged {
		class = "stalled"
	}
	p("<p class=\"summary %s\">%s</p>\n", class, esc(tl.Summary()))
	p("<dl>\n")
	dd := func(k, v string) { p("<dt>%s</dt><dd>%s</dd>\n", esc(k), esc(v)) }
	dd("Outcome", tl.Outcome.String())
	dd("Duration", fmtDur(tl.Duration))
	dd("Steps", fmt.Sprintf("%d (a budget's worth of replacements each), %d syncs", tl.Steps, len(tl.Syncs)))
	dd("Strategy", string(tl.Strategy))
	dd("Nodes", fmt.Sprint(len(tl.Nodes)))
	if s := tl.Stall; s != nil {
		dd("Stall", s.String())
	}
	p("</dl>\n")

	colours := revisionColours(tl.Revisions)
	shown := pickRows(tl, opts.MaxRows)
	writeSVG(bw, tl, shown, colours)
	if more := len(tl.Nodes) - len(shown); more > 0 {
		p("<p class=\"more\">%d more nodes not drawn (the %d drawn are the stall's holders, nodes with failures, then the first by name).</p>\n", more, len(shown))
	}
	writeLegend(bw, tl, colours)
	writeSyncTable(bw, tl, opts.MaxSyncRows)
	p("</body>\n</html>\n")
	return bw.Flush()
}

// revisionColours maps each revision's hash to its colour.
func revisionColours(revs []Revision) map[string]string {
	out := map[string]string{}
	k := 0
	for _, r := range revs {
		if r.Current {
			out[r.Hash] = currentColour
			continue
		}
		out[r.Hash] = oldColours[k%len(oldColours)]
		k++
	}
	return out
}

// pickRows returns the indexes of the nodes to draw, in name order.
func pickRows(tl *Timeline, limit int) []int {
	if len(tl.Nodes) <= limit {
		out := make([]int, len(tl.Nodes))
		for i := range out {
			out[i] = i
		}
		return out
	}
	rank := func(i int) int {
		n := tl.Nodes[i]
		if tl.Stall != nil && slices.ContainsFunc(tl.Stall.Holders, func(h Holder) bool { return h.Node == n.Name }) {
			return 0
		}
		if len(n.Failures) > 0 {
			return 1
		}
		return 2
	}
	idx := make([]int, len(tl.Nodes))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return rank(a) - rank(b) })
	idx = idx[:limit]
	slices.Sort(idx)
	return idx
}

// writeSVG draws the axis, the node rows and the budget band.
func writeSVG(w *bufio.Writer, tl *Timeline, shown []int, colours map[string]string) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	span := max(tl.Duration, time.Second)
	x := func(d time.Duration) float64 { return labelWidth + float64(d)/float64(span)*plotWidth }
	rowsTop := axisHeight
	rowsBottom := rowsTop + len(shown)*(rowHeight+rowGap)
	bandTop := rowsBottom + bandGap
	height := bandTop + bandHeight + 24

	p("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"rollout timeline\">\n",
		svgWidth, height, svgWidth, height)
	// Axis: ticks over the rows and the band.
	step := tickStep(span)
	p("<g class=\"axis\">\n")
	for t := time.Duration(0); t <= span; t += step {
		xt := x(t)
		p("<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#dee2e6\" stroke-width=\"1\"/>\n", xt, axisHeight-6, xt, bandTop+bandHeight)
		p("<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", xt, axisHeight-10, esc(fmtDur(t)))
	}
	p("<text x=\"%d\" y=\"%d\">time since start</text>\n", 4, axisHeight-10)
	p("</g>\n")
	// Rows.
	p("<g class=\"nodes\">\n")
	for r, i := range shown {
		n := tl.Nodes[i]
		y := rowsTop + r*(rowHeight+rowGap)
		p("<g class=\"node-row\" data-node=\"%s\">\n", esc(n.Name))
		p("<text class=\"node\" x=\"%d\" y=\"%d\" text-anchor=\"end\">%s<title>%s</title></text>\n", labelWidth-8, y+rowHeight-3, esc(shorten(n.Name)), esc(n.Name))
		p("<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f8f9fa\"/>\n", labelWidth, y, plotWidth, rowHeight)
		for _, iv := range n.Intervals {
			x0, x1 := x(iv.From), x(iv.To)
			if tl.Duration == 0 {
				x1 = x(span)
			}
			if x1-x0 <= 0 || len(iv.Pods) == 0 {
				continue
			}
			h := float64(rowHeight) / float64(len(iv.Pods))
			for k, pod := range iv.Pods {
				fill, extra := podStyle(pod, colours)
				p("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"%s><title>%s</title></rect>\n",
					x0, float64(y)+float64(k)*h, x1-x0, h, fill, extra,
					esc(fmt.Sprintf("%s: pod %s, revision %s, %v, %s to %s", n.Name, pod.Name, revisionLabel(tl, pod.Hash), pod.State, fmtDur(iv.From), fmtDur(iv.To))))
			}
		}
		for _, f := range n.Failures {
			xf := x(f.At)
			p("<path class=\"failure\" d=\"M%.1f %d l-4 -5 h8 z\" fill=\"%s\"><title>%s</title></path>\n",
				xf, y+rowHeight/2, failedColour, esc(fmt.Sprintf("%s: pod %s failed at %s", n.Name, f.Pod, fmtDur(f.At))))
		}
		p("</g>\n")
	}
	p("</g>\n")
	// Budget band: maxUnavailable as the allowance, unavailable over it.
	top := 1
	for _, s := range tl.Syncs {
		top = max(top, s.MaxUnavailable, s.Unavailable)
	}
	yv := func(v int) float64 { return float64(bandTop+bandHeight) - float64(v)/float64(top)*bandHeight }
	p("<g class=\"budget\">\n")
	p("<text x=\"%d\" y=\"%d\">unavailable</text>\n", 4, bandTop+12)
	p("<text x=\"%d\" y=\"%d\">of maxUnavailable</text>\n", 4, bandTop+26)
	p("<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#ced4da\"/>\n", labelWidth, bandTop, plotWidth, bandHeight)
	for i, s := range tl.Syncs {
		end := tl.Duration
		if i+1 < len(tl.Syncs) {
			end = tl.Syncs[i+1].At
		}
		x0, x1 := x(s.At), x(end)
		if tl.Duration == 0 {
			x1 = x(span)
		}
		if x1-x0 <= 0 {
			continue
		}
		if s.MaxUnavailable > 0 {
			p("<rect class=\"allowance\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>maxUnavailable %d from %s</title></rect>\n",
				x0, yv(s.MaxUnavailable), x1-x0, yv(0)-yv(s.MaxUnavailable), budgetColour, s.MaxUnavailable, fmtDur(s.At))
		}
		if s.Unavailable > 0 {
			p("<rect class=\"unavailable\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" fill-opacity=\"0.8\"><title>%d unavailable of %d desired from %s</title></rect>\n",
				x0, yv(s.Unavailable), x1-x0, yv(0)-yv(s.Unavailable), unavailColour, s.Unavailable, s.Desired, fmtDur(s.At))
		}
		if s.MaxUnavailable > 0 {
			p("<line class=\"limit\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#862e9c\" stroke-width=\"2\" stroke-dasharray=\"5 3\"/>\n",
				x0, yv(s.MaxUnavailable), x1, yv(s.MaxUnavailable))
		}
	}
	p("<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%d</text>\n", labelWidth-6, yv(top)+9, top)
	p("<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">0</text>\n", labelWidth-6, yv(0))
	p("</g>\n")
	p("<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", svgWidth-plotRight, height-4, esc("end: "+fmtDur(tl.Duration)))
	p("</svg>\n")
}

// podStyle returns a pod's fill and extra attributes: its revision's
// colour, solid when Ready, pale with an outline when not ready; failed
// pods red, pods being deleted grey.
func podStyle(p Pod, colours map[string]string) (string, string) {
	c := colours[p.Hash]
	if c == "" {
		c = unknownColour
	}
	switch p.State {
	case Ready:
		return c, ""
	case Failed:
		return failedColour, ""
	case Deleting:
		return deletingColour, ` fill-opacity="0.5"`
	}
	return c, ` fill-opacity="0.3" stroke="` + c + `" stroke-width="1" stroke-dasharray="3 2"`
}

// revisionLabel names a revision by number and hash.
func revisionLabel(tl *Timeline, hash string) string {
	for _, r := range tl.Revisions {
		if r.Hash == hash {
			if r.Number > 0 {
				return fmt.Sprintf("%d (%s)", r.Number, hash)
			}
			return hash
		}
	}
	if hash == "" {
		return "unknown"
	}
	return hash
}

func writeLegend(w *bufio.Writer, tl *Timeline, colours map[string]string) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("<div class=\"legend\">\n")
	item := func(style, label string) {
		p("<span><span class=\"sw\" style=\"%s\"></span>%s</span>\n", style, esc(label))
	}
	for _, r := range tl.Revisions {
		label := "revision " + revisionLabel(tl, r.Hash)
		if r.Current {
			label += ", current"
		}
		item("background:"+colours[r.Hash], label+": Ready")
	}
	if unknownRevision(tl, colours) {
		item("background:"+unknownColour, "pod of no known revision (no controller-revision-hash label, or one the history lacks)")
	}
	item("background:"+currentColour+";opacity:0.35;border:1px dashed "+currentColour, "not Ready yet (pale, dashed)")
	item("background:"+failedColour, "failed (until replaced, or deleted where no pod should run); a red mark: a pod failed")
	item("background:"+deletingColour+";opacity:0.5", "being deleted")
	item("background:#f8f9fa", "no pod")
	item("background:"+unavailColour, "unavailable pods")
	item("background:"+budgetColour+";border-top:2px dashed #862e9c", "maxUnavailable (budget, dashed line)")
	p("</div>\n")
}

// unknownRevision reports whether a pod of tl has a hash no revision has.
func unknownRevision(tl *Timeline, colours map[string]string) bool {
	for _, n := range tl.Nodes {
		for _, iv := range n.Intervals {
			for _, p := range iv.Pods {
				if colours[p.Hash] == "" {
					return true
				}
			}
		}
	}
	return false
}

func writeSyncTable(w *bufio.Writer, tl *Timeline, limit int) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("<table>\n<thead><tr><th>sync</th><th>time</th><th>creates</th><th>deletes</th><th>updated</th><th>available</th><th>desired</th><th>unavailable</th><th>maxUnavailable</th><th>maxSurge</th></tr></thead>\n<tbody>\n")
	for i, s := range tl.Syncs {
		if i == limit {
			break
		}
		p("<tr><td>%d</td><td>%s</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td></tr>\n",
			i+1, esc(fmtDur(s.At)), s.Creates, s.Deletes, s.Updated, s.Available, s.Desired, s.Unavailable, s.MaxUnavailable, s.MaxSurge)
	}
	p("</tbody>\n</table>\n")
	if more := len(tl.Syncs) - limit; more > 0 {
		p("<p class=\"more\">%d more syncs not listed.</p>\n", more)
	}
}

// tickStep picks a round tick interval giving at most ten ticks over span.
func tickStep(span time.Duration) time.Duration {
	for _, s := range []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second,
		30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute,
		30 * time.Minute, time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour} {
		if span/s <= 10 {
			return s
		}
	}
	return 24 * time.Hour
}

// fmtDur renders d as Go does, without the trailing zero units: "1m",
// "1m30s", "2h".
func fmtDur(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// shorten cuts a node name that would not fit the label column, keeping
// its end (where node names differ most).
func shorten(s string) string {
	const fit = 22
	r := []rune(s)
	if len(r) <= fit {
		return s
	}
	return "…" + string(r[len(r)-fit+1:])
}

var escaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;")

func esc(s string) string { return escaper.Replace(s) }
