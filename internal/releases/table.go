package releases

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ghostcheck/ghostcheck/codec"
)

// Columns are the apis the table covers, in its columns' order: those
// ghostcheck speaks (codec), SASL's aside.
var Columns = []codec.APIKey{codec.ApiVersions, codec.Metadata, codec.FindCoordinator, codec.JoinGroup, codec.Heartbeat,
	codec.LeaveGroup, codec.SyncGroup, codec.DescribeGroups, codec.ConsumerGroupHeartbeat, codec.ConsumerGroupDescribe,
	codec.GetTelemetrySubscriptions, codec.PushTelemetry}

// Why an api with a spec is not listed or not served, by the cell's mark.
const (
	whyUnstable  = "its last version is marked unstable (latestVersionUnstable) and a default broker lists only stable versions (unstable.api.versions.enable=false)"
	whyTelemetry = "listed only when a metrics reporter that implements ClientTelemetry is configured; the default reporters do not"
	whyClassic   = "listed, but a default broker answers every request UNSUPPORTED_VERSION: the consumer protocol is not enabled by default (group.coordinator.rebalance.protocols=classic; group.coordinator.new.enable=false before 3.9)"
)

// rows are the releases, one column per entry of Columns. A cell is "-"
// (no spec at that release), "a-b" (listed a-b and served), or "a-b"
// with a mark: U, the last version unstable (listed up to b-1, or not at
// all when that was the only one); T, a telemetry api (not listed by
// default); *, listed but not served. The first field is the release's
// name and the first patch it covers. Sources: docs/PROTOCOL.md "Kafka
// releases".
var rows = [][]string{
	//        ApiVer  Metadata FindCo JoinGr Heartb LeaveG SyncGr DescGr CGHeartbeat CGDescribe GetTelem PushTelem
	{"2.3", "0-2", "0-8", "0-2", "0-5", "0-3", "0-2", "0-3", "0-3", "-", "-", "-", "-"},
	{"2.4", "0-3", "0-9", "0-3", "0-6", "0-4", "0-4", "0-4", "0-5", "-", "-", "-", "-"},
	{"2.5", "0-3", "0-9", "0-3", "0-7", "0-4", "0-4", "0-5", "0-5", "-", "-", "-", "-"},
	{"2.6", "0-3", "0-9", "0-3", "0-7", "0-4", "0-4", "0-5", "0-5", "-", "-", "-", "-"},
	{"2.7", "0-3", "0-9", "0-3", "0-7", "0-4", "0-4", "0-5", "0-5", "-", "-", "-", "-"},
	{"2.8", "0-3", "0-11", "0-3", "0-7", "0-4", "0-4", "0-5", "0-5", "-", "-", "-", "-"},
	{"3.0", "0-3", "0-11", "0-4", "0-7", "0-4", "0-4", "0-5", "0-5", "-", "-", "-", "-"},
	{"3.1", "0-3", "0-12", "0-4", "0-7", "0-4", "0-4", "0-5", "0-5", "-", "-", "-", "-"},
	{"3.2", "0-3", "0-12", "0-4", "0-9", "0-4", "0-5", "0-5", "0-5", "-", "-", "-", "-"},
	{"3.3", "0-3", "0-12", "0-4", "0-9", "0-4", "0-5", "0-5", "0-5", "-", "-", "-", "-"},
	{"3.4", "0-3", "0-12", "0-4", "0-9", "0-4", "0-5", "0-5", "0-5", "-", "-", "-", "-"},
	{"3.5", "0-3", "0-12", "0-4", "0-9", "0-4", "0-5", "0-5", "0-5", "0-0U", "-", "-", "-"},
	{"3.6", "0-3", "0-12", "0-4", "0-9", "0-4", "0-5", "0-5", "0-5", "0-0U", "-", "-", "-"},
	{"3.7", "0-3", "0-12", "0-4", "0-9", "0-4", "0-5", "0-5", "0-5", "0-0*", "0-0U", "0-0T", "0-0T"},
	{"3.8", "0-3", "0-12", "0-5", "0-9", "0-4", "0-5", "0-5", "0-5", "0-0*", "0-0*", "0-0T", "0-0T"},
	{"3.9", "0-4", "0-12", "0-6", "0-9", "0-4", "0-5", "0-5", "0-5", "0-0*", "0-0*", "0-0T", "0-0T"},
	{"4.0.0", "0-4", "0-13", "0-6", "2-9", "0-4", "0-5", "0-5", "0-6", "0-1", "0-1", "0-0T", "0-0T"},
	{"4.0.1", "0-4", "0-13", "0-6", "0-9", "0-4", "0-5", "0-5", "0-6", "0-1", "0-1", "0-0T", "0-0T"},
	{"4.1", "0-4", "0-13", "0-6", "0-9", "0-4", "0-5", "0-5", "0-6", "0-1", "0-1", "0-0T", "0-0T"},
	{"4.2", "0-4", "0-13", "0-6", "0-9", "0-4", "0-5", "0-5", "0-6", "0-1", "0-1", "0-0T", "0-0T"},
}

// table is rows read; a cell that does not read is a mistake in this file,
// which every test of the package finds (TestTableReads).
var table = mustTable(rows)

func mustTable(rows [][]string) []Release {
	t, err := readTable(rows)
	if err != nil {
		panic(err)
	}
	return t
}

func readTable(rows [][]string) ([]Release, error) {
	out := make([]Release, 0, len(rows))
	for _, row := range rows {
		if len(row) != len(Columns)+1 {
			return nil, fmt.Errorf("releases: row %q has %d cells, want %d", row[0], len(row)-1, len(Columns))
		}
		v, _, err := parse(row[0])
		if err != nil {
			return nil, err
		}
		r := Release{Name: row[0], first: v, apis: map[codec.APIKey]API{}}
		for i, cell := range row[1:] {
			a, ok, err := readCell(Columns[i], cell)
			if err != nil {
				return nil, fmt.Errorf("releases: Kafka %s: %w", row[0], err)
			}
			if ok {
				r.apis[a.Key] = a
			}
		}
		out = append(out, r)
	}
	return out, nil
}

func readCell(key codec.APIKey, cell string) (API, bool, error) {
	if cell == "-" {
		return API{}, false, nil
	}
	a := API{Key: key, Listed: true, Served: true}
	mark := cell[len(cell)-1]
	if mark == 'U' || mark == 'T' || mark == '*' {
		cell = cell[:len(cell)-1]
	}
	lo, hi, ok := strings.Cut(cell, "-")
	min, err1 := strconv.ParseInt(lo, 10, 16)
	max, err2 := strconv.ParseInt(hi, 10, 16)
	if !ok || err1 != nil || err2 != nil || min > max || min < 0 {
		return API{}, false, fmt.Errorf("%v: cell %q: want a-b with an optional mark U, T or *", key, cell)
	}
	a.Spec = Range{int16(min), int16(max)}
	a.Advertised = a.Spec
	switch mark {
	case 'U':
		a.Advertised.Max--
		a.Listed, a.Served = a.Advertised.Max >= a.Advertised.Min, a.Advertised.Max >= a.Advertised.Min
		if !a.Listed {
			a.Why = whyUnstable
		}
	case 'T':
		a.Listed, a.Served, a.Why = false, false, whyTelemetry
	case '*':
		a.Served, a.Why = false, whyClassic
	}
	if !a.Listed {
		a.Advertised = Range{}
	}
	return a, true, nil
}

// Markdown is the table as docs/PROTOCOL.md shows it: one row per release,
// one column per api, each cell what a default broker lists ("—": not
// listed), marked "(not served)" when it refuses what it lists.
func Markdown() string {
	var b strings.Builder
	b.WriteString("| release |")
	for _, k := range Columns {
		fmt.Fprintf(&b, " %v (%d) |", k, k)
	}
	b.WriteString("\n|---|")
	b.WriteString(strings.Repeat("---|", len(Columns)))
	b.WriteString("\n")
	for _, r := range table {
		fmt.Fprintf(&b, "| %s |", r.Name)
		for _, k := range Columns {
			a, ok := r.apis[k]
			switch {
			case !ok:
				b.WriteString(" — |")
			case !a.Listed:
				fmt.Fprintf(&b, " — (spec %d–%d) |", a.Spec.Min, a.Spec.Max)
			case !a.Served:
				fmt.Fprintf(&b, " %d–%d (not served) |", a.Advertised.Min, a.Advertised.Max)
			default:
				fmt.Fprintf(&b, " %d–%d |", a.Advertised.Min, a.Advertised.Max)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}
