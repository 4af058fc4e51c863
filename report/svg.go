package report

import (
	"fmt"
	"html"
	"html/template"
	"sort"
	"strings"
)

// The membership timeline's geometry, in px.
const (
	svgWidth  = 1180
	labelW    = 230
	laneH     = 26
	axisH     = 40
	maxLanes  = 40 // per group; the ghosts and the lanes with faults first
	maxMarks  = 60 // per lane
	rightPad  = 16
	minSegPix = 4 // narrower segments merge into the one before
)

// scale maps coordinator time to x.
type scale struct{ end int64 }

func (s scale) x(t int64) float64 {
	return labelW + float64(t)*float64(svgWidth-labelW-rightPad)/float64(max(s.end, 1))
}

// groupSVG draws one group's membership timeline: one lane per member,
// its segments (the partitions it owns as the bar's dark part, its epoch
// written on it), parked stretches dashed, ghosts drawn as ghosts, the
// faults on the lanes of the requests they hit, and the violations and
// restarts across the group.
func groupSVG(a *analysis, group string) (template.HTML, int) {
	lanes, hidden := pickLanes(a.lanes[group])
	sc := scale{a.end}
	height := axisH + laneH*max(len(lanes), 1) + 8
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="lanes" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="membership of group %s">`,
		svgWidth, height, svgWidth, height, html.EscapeString(group))
	b.WriteString(svgDefs)
	axis(&b, sc, height)
	maxParts := 1
	for _, l := range lanes {
		for _, s := range l.Segments {
			maxParts = max(maxParts, s.Parts)
		}
	}
	for i, l := range lanes {
		drawLane(&b, sc, l, axisH+i*laneH, maxParts)
	}
	if len(lanes) == 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d" class="muted">no member of this group was ever seen</text>`, labelW, axisH+18)
	}
	for _, m := range mergeMarks(a.marks[group]) {
		groupMark(&b, sc, m, height)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()), hidden
}

// svgDefs holds the patterns: a ghost's hatching and a parked member's.
const svgDefs = `<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">` +
	`<rect width="6" height="6" fill="#f1f1f1"/><line x1="0" y1="0" x2="0" y2="6" stroke="#c4c4c4" stroke-width="3"/></pattern>` +
	`<symbol id="ghost" viewBox="0 0 20 22"><path d="M10 1C5 1 2 4.5 2 9v12l3-2.5L7.5 21 10 18.5 12.5 21 15 18.5 18 21V9c0-4.5-3-8-8-8z" fill="#fff" stroke="#555" stroke-width="1.4"/>` +
	`<circle cx="7" cy="9" r="1.6" fill="#333"/><circle cx="13" cy="9" r="1.6" fill="#333"/></symbol></defs>`

// axis draws the time ticks, in seconds of coordinator time.
func axis(b *strings.Builder, sc scale, height int) {
	step := int64(100)
	for _, s := range []int64{100, 200, 500, 1000, 2000, 5000, 10000, 20000, 30000, 60000, 120000, 300000, 600000} {
		step = s
		if sc.end/s <= 12 {
			break
		}
	}
	for t := int64(0); t <= sc.end; t += step {
		x := sc.x(t)
		fmt.Fprintf(b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" class="tick"/><text x="%.1f" y="14" class="tickl">%s</text>`,
			x, axisH-6, x, height, x, seconds(t))
	}
	fmt.Fprintf(b, `<text x="6" y="14" class="muted">coordinator time →</text>`)
}

func seconds(ms int64) string {
	if ms%1000 == 0 {
		return fmt.Sprintf("%ds", ms/1000)
	}
	return fmt.Sprintf("%.1fs", float64(ms)/1000)
}

// pickLanes keeps at most maxLanes lanes: ghosts, then lanes with faults
// or errors, then the rest, each in order of appearance. It returns how
// many it left out.
func pickLanes(all []*lane) ([]*lane, int) {
	if len(all) <= maxLanes {
		return all, 0
	}
	rank := func(l *lane) int {
		switch {
		case l.Ghost:
			return 0
		case len(l.Marks) > 0:
			return 1
		}
		return 2
	}
	idx := make([]int, len(all))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return rank(all[idx[i]]) < rank(all[idx[j]]) })
	idx = idx[:maxLanes]
	sort.Ints(idx)
	out := make([]*lane, len(idx))
	for i, k := range idx {
		out[i] = all[k]
	}
	return out, len(all) - maxLanes
}

// groupMark draws a violation (red) or a restart (grey) across the group.
func groupMark(b *strings.Builder, sc scale, m mark, height int) {
	x := sc.x(m.At)
	cls := "vline"
	if m.Kind == "restart" {
		cls = "rline"
	}
	fmt.Fprintf(b, `<g class="%s"><line x1="%.1f" y1="%d" x2="%.1f" y2="%d"/><title>t=%d ms: %s</title></g>`,
		cls, x, axisH-4, x, height, m.At, html.EscapeString(m.Text))
	if m.Kind == "violation" {
		label, _, _ := strings.Cut(m.Text, ":")
		fmt.Fprintf(b, `<text x="%.1f" y="%d" class="vlabel">%s</text>`, x+3, axisH-8, html.EscapeString(label))
	}
}

// drawLane draws one member: its label, its segments, its end, its marks.
func drawLane(b *strings.Builder, sc scale, l *lane, y, maxParts int) {
	cls := "lane"
	if l.Ghost {
		cls = "lane ghost"
	}
	fmt.Fprintf(b, `<g class="%s">`, cls)
	label := l.ownerLabel() + " · " + short(l.Member)
	if l.Instance != "" {
		label += " · " + l.Instance
	}
	tx := 6
	if l.Ghost {
		fmt.Fprintf(b, `<use href="#ghost" x="4" y="%d" width="18" height="20"/>`, y+3)
		tx = 26
	}
	fmt.Fprintf(b, `<text x="%d" y="%d" class="lname">%s<title>member %s of %s</title></text>`,
		tx, y+laneH/2+4, html.EscapeString(label), html.EscapeString(l.Member), html.EscapeString(l.Group))
	drawSegments(b, sc, l, y, maxParts)
	// Marks closer than a few pixels to one of the same kind drawn
	// already add nothing a reader can see.
	lastX := map[string]float64{}
	drawn := 0
	for _, m := range l.Marks {
		x := sc.x(m.At)
		if last, ok := lastX[m.Kind]; (ok && x-last < 4) || drawn == maxMarks {
			continue
		}
		lastX[m.Kind] = x
		drawn++
		laneMark(b, x, y+laneH/2, m)
	}
	b.WriteString(`</g>`)
}

// drawSegments draws a lane's stretches, merging those too narrow to see
// into the one before, so a long history stays a small page.
func drawSegments(b *strings.Builder, sc scale, l *lane, y, maxParts int) {
	segs := make([]segment, 0, len(l.Segments))
	for _, s := range l.Segments {
		if n := len(segs); n > 0 && sc.x(s.To)-sc.x(s.From) < minSegPix && segs[n-1].Parked == s.Parked && s.From-segs[n-1].To <= 0 {
			segs[n-1].To = s.To
			continue
		}
		segs = append(segs, s)
	}
	h := laneH - 8
	for _, s := range segs {
		x0, x1 := sc.x(s.From), sc.x(s.To)
		w := max(x1-x0, 2)
		state := "member"
		switch {
		case l.Ghost:
			state = "ghost"
		case s.Parked:
			state = "parked"
		}
		title := fmt.Sprintf("%s %s, t=%d–%d ms: epoch %d, owns %d partitions", state, l.Member, s.From, s.To, s.Epoch, s.Parts)
		fmt.Fprintf(b, `<g class="seg %s"><rect x="%.1f" y="%d" width="%.1f" height="%d" rx="3"/>`, state, x0, y+4, w, h)
		if s.Parts > 0 {
			ph := float64(h) * float64(s.Parts) / float64(maxParts)
			fmt.Fprintf(b, `<rect class="parts" x="%.1f" y="%.1f" width="%.1f" height="%.1f"/>`, x0, float64(y+4+h)-ph, w, ph)
		}
		if w > 26 {
			fmt.Fprintf(b, `<text x="%.1f" y="%d" class="epoch">e%d</text>`, x0+3, y+laneH/2+4, s.Epoch)
		}
		fmt.Fprintf(b, `<title>%s</title></g>`, html.EscapeString(title))
	}
	if n := len(segs); n > 0 && l.EndHow != "" {
		x := sc.x(segs[n-1].To)
		fmt.Fprintf(b, `<g class="end"><path d="M%.1f %d l6 6 M%.1f %d l-6 6" /><title>t=%d ms: %s</title></g>`,
			x-3, y+7, x+3, y+7, segs[n-1].To, html.EscapeString(l.EndHow))
	}
}

// laneMark draws a mark on a lane: a fault an orange diamond, a join a
// green dot, a leave a dark bar, an error a red triangle.
func laneMark(b *strings.Builder, x float64, cy int, m mark) {
	var shape string
	switch m.Kind {
	case "fault":
		shape = fmt.Sprintf(`<path d="M%.1f %d l6 6 l-6 6 l-6 -6 z"/>`, x, cy-6)
	case "join":
		shape = fmt.Sprintf(`<circle cx="%.1f" cy="%d" r="3.5"/>`, x, cy)
	case "leave":
		shape = fmt.Sprintf(`<rect x="%.1f" y="%d" width="3" height="14"/>`, x-1.5, cy-7)
	default:
		shape = fmt.Sprintf(`<path d="M%.1f %d l5 9 l-10 0 z"/>`, x, cy-5)
	}
	fmt.Fprintf(b, `<g class="mark %s">%s<title>t=%d ms: %s</title></g>`, m.Kind, shape, m.At, html.EscapeString(m.Text))
}

// mergeMarks joins the violations marked at the same time into one mark,
// so their labels do not overprint.
func mergeMarks(ms []mark) []mark {
	var out []mark
	for _, m := range ms {
		if n := len(out); n > 0 && m.Kind == "violation" && out[n-1].Kind == "violation" && out[n-1].At == m.At {
			rule, rest, _ := strings.Cut(m.Text, ":")
			first, firstRest, _ := strings.Cut(out[n-1].Text, ":")
			out[n-1].Text = first + ", " + rule + ":" + firstRest + ";" + rest
			continue
		}
		out = append(out, m)
	}
	return out
}
