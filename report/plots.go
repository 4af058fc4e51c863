package report

import (
	"bytes"
	"fmt"
	"html/template"
	"image/color"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Plot is a chart drawn as SVG, inlined in a page (no script, no
// network).
type Plot struct {
	Title string
	// Caption says what to read in it, and where its numbers come from.
	Caption string
	SVG     template.HTML
}

// Series is one line of a line plot.
type Series struct {
	Label string
	X, Y  []float64
}

// Bars is one set of bars of a bar plot, one value per category.
type Bars struct {
	Label  string
	Values []float64
}

// palette is the series' colours: v1 blue, v0 red, then others.
var palette = []color.Color{
	color.RGBA{R: 0x3a, G: 0x7b, B: 0xd5, A: 0xff},
	color.RGBA{R: 0xc6, G: 0x28, B: 0x28, A: 0xff},
	color.RGBA{R: 0x2e, G: 0x7d, B: 0x32, A: 0xff},
	color.RGBA{R: 0xe0, G: 0x8a, B: 0x00, A: 0xff},
	color.RGBA{R: 0x6a, G: 0x1b, B: 0x9a, A: 0xff},
}

func colorOf(i int) color.Color { return palette[i%len(palette)] }

// newPlot makes a plot with ghostcheck's looks.
func newPlot(xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.X.Label.Text, p.Y.Label.Text = xLabel, yLabel
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(8), vg.Points(-4)
	p.Add(plotter.NewGrid())
	return p
}

// LinePlot draws series against a shared x axis.
func LinePlot(title, caption, xLabel, yLabel string, series []Series) (Plot, error) {
	p := newPlot(xLabel, yLabel)
	for i, s := range series {
		xys := make(plotter.XYs, min(len(s.X), len(s.Y)))
		for j := range xys {
			xys[j] = plotter.XY{X: s.X[j], Y: s.Y[j]}
		}
		if len(xys) == 0 {
			continue
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return Plot{}, fmt.Errorf("%s: %w", title, err)
		}
		l.Color, l.Width = colorOf(i), vg.Points(2)
		p.Add(l)
		p.Legend.Add(s.Label, l)
	}
	p.Y.Min = math.Min(p.Y.Min, 0)
	return render(title, caption, p)
}

// BarPlot draws groups of bars side by side over named categories.
func BarPlot(title, caption, yLabel string, categories []string, groups []Bars) (Plot, error) {
	p := newPlot("", yLabel)
	width := vg.Points(math.Min(28, 300/float64(max(1, len(categories)*len(groups)))))
	for i, g := range groups {
		vals := make(plotter.Values, len(categories))
		copy(vals, g.Values)
		b, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return Plot{}, fmt.Errorf("%s: %w", title, err)
		}
		b.Color, b.LineStyle.Width = colorOf(i), 0
		b.Offset = width * vg.Length(float64(i)-float64(len(groups)-1)/2)
		p.Add(b)
		p.Legend.Add(g.Label, b)
	}
	p.NominalX(categories...)
	p.X.Tick.Label.Rotation = 0
	p.Y.Min = 0
	return render(title, caption, p)
}

// LatencyPlot draws the median and the 99th percentile of each API's
// round trips, in milliseconds of real time, on a log scale (a broker's
// p99 is often a hundred times its median), each point labelled.
func LatencyPlot(title, caption string, lat map[string][]time.Duration) (Plot, error) {
	apis := make([]string, 0, len(lat))
	for api, ds := range lat {
		if len(ds) > 0 {
			apis = append(apis, api)
		}
	}
	sort.Strings(apis)
	p := newPlot("", "ms (real time, log scale)")
	p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	names := make([]string, len(apis))
	for k, q := range []float64{0.50, 0.99} {
		var xys plotter.XYs
		var labels []string
		for i, api := range apis {
			ds := append([]time.Duration(nil), lat[api]...)
			sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
			v := math.Max(ms(percentile(ds, q)), 0.001)
			xys = append(xys, plotter.XY{X: float64(i) + 0.12*float64(2*k-1), Y: v})
			labels = append(labels, strconv.FormatFloat(v, 'g', 2, 64))
			names[i] = fmt.Sprintf("%s (%d)", shortAPI(api), len(ds))
		}
		if err := addPoints(p, fmt.Sprintf("p%.0f", q*100), colorOf(k), xys, labels); err != nil {
			return Plot{}, fmt.Errorf("%s: %w", title, err)
		}
	}
	p.NominalX(names...)
	return render(title, caption, p)
}

// addPoints adds a labelled series of points.
func addPoints(p *plot.Plot, label string, c color.Color, xys plotter.XYs, labels []string) error {
	if len(xys) == 0 {
		return nil
	}
	sc, err := plotter.NewScatter(xys)
	if err != nil {
		return err
	}
	sc.GlyphStyle.Color, sc.GlyphStyle.Radius, sc.GlyphStyle.Shape = c, vg.Points(4), draw.CircleGlyph{}
	ls, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
	if err != nil {
		return err
	}
	for i := range ls.TextStyle {
		ls.TextStyle[i].XAlign, ls.Offset = draw.XLeft, vg.Point{X: vg.Points(6)}
	}
	p.Add(sc, ls)
	p.Legend.Add(label, sc)
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// percentile of sorted durations, nearest rank.
func percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// shortAPI shortens the long API names so the axis stays legible.
func shortAPI(api string) string {
	return strings.NewReplacer("ConsumerGroup", "CG", "GetTelemetrySubscriptions", "GetTelemetrySubs").Replace(api)
}

// integerTicks labels the default ticks without needless decimals.
type integerTicks struct{}

func (integerTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'g', 6, 64)
		}
	}
	return ts
}

// render draws a plot as SVG, without the XML prolog (it is inlined in
// HTML).
func render(title, caption string, p *plot.Plot) (Plot, error) {
	if _, log := p.Y.Scale.(plot.LogScale); log {
		p.Y.Max *= 4 // room for the legend
	} else {
		p.Y.Tick.Marker = integerTicks{}
		p.Y.Max += (p.Y.Max - p.Y.Min) * 0.2
	}
	c := vgsvg.New(vg.Points(560), vg.Points(300))
	p.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return Plot{}, err
	}
	svg := b.String()
	if i := strings.Index(svg, "<svg"); i >= 0 {
		svg = svg[i:]
	}
	return Plot{Title: title, Caption: caption, SVG: template.HTML(svg)}, nil
}
