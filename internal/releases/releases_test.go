package releases

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
)

func TestTableReads(t *testing.T) {
	if _, err := readTable(rows); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]string{
		{"3.9", "0-4"},
		append([]string{"3.9"}, strings.Split("0-4 0-12 0-6 0-9 0-4 0-5 0-5 0-5 0-0X 0-0* 0-0T 0-0T", " ")...),
		append([]string{"3.9"}, strings.Split("4-0 0-12 0-6 0-9 0-4 0-5 0-5 0-5 0-0* 0-0* 0-0T 0-0T", " ")...),
		append([]string{"3.x"}, strings.Split("0-4 0-12 0-6 0-9 0-4 0-5 0-5 0-5 0-0* 0-0* 0-0T 0-0T", " ")...),
	} {
		if _, err := readTable([][]string{bad}); err == nil {
			t.Errorf("row %q read without error", bad)
		}
	}
}

// The releases run from 2.3 (static membership, KIP-345) to the newest,
// in order, each named once, and Lookup finds each by its name.
func TestReleasesInOrder(t *testing.T) {
	if table[0].Name != "2.3" || Newest().Name != NewestName {
		t.Fatalf("releases run from %s to %s, want 2.3 to %s", table[0].Name, Newest().Name, NewestName)
	}
	for i, r := range table {
		if i > 0 && !less3(table[i-1].first, r.first) {
			t.Errorf("Kafka %s listed after Kafka %s", r.Name, table[i-1].Name)
		}
		got, err := Lookup(r.Name)
		if err != nil || got.Name != r.Name {
			t.Errorf("Lookup(%q) = %s, %v", r.Name, got.Name, err)
		}
	}
}

func less3(a, b [3]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

func TestLookup(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"2.3", "2.3"}, {"2.3.1", "2.3"}, {"3.9", "3.9"}, {"3.9.1", "3.9"}, {"4.0", "4.0.1"}, {"4.0.0", "4.0.0"},
		{"4.0.1", "4.0.1"}, {"4.0.2", "4.0.1"}, {"4.2.1", "4.2"}, {" 4.1 ", "4.1"},
	} {
		r, err := Lookup(c.in)
		if err != nil || r.Name != c.want {
			t.Errorf("Lookup(%q) = %q, %v; want %q", c.in, r.Name, err, c.want)
		}
	}
	for _, bad := range []string{"2.2", "5.0", "4", "4.x", "", "next", "1.2.3.4"} {
		if r, err := Lookup(bad); err == nil {
			t.Errorf("Lookup(%q) = %s, want an error", bad, r.Name)
		}
	}
}

// removal is a range that shrank from one release to the next, which
// Kafka documents.
type removal struct {
	key     codec.APIKey
	release string
}

// removals: KIP-896 took JoinGroup v0-v1 out in 4.0.0, and KAFKA-19444 put
// them back in 4.0.1.
var removals = map[removal]bool{{codec.JoinGroup, "4.0.0"}: true}

// What a broker lists and serves only grows from one release to the next:
// an api once specified stays, its versions only rise, listed stays
// listed and served stays served; except the documented removals.
func TestRangesOnlyGrow(t *testing.T) {
	for i := 1; i < len(table); i++ {
		prev, r := table[i-1], table[i]
		for _, k := range Columns {
			p, hadIt := prev.apis[k]
			a, has := r.apis[k]
			switch {
			case !hadIt:
				continue
			case !has:
				t.Errorf("%v: in Kafka %s, gone in Kafka %s", k, prev.Name, r.Name)
				continue
			}
			if a.Spec.Max < p.Spec.Max {
				t.Errorf("%v: spec up to v%d in Kafka %s, v%d in Kafka %s", k, p.Spec.Max, prev.Name, a.Spec.Max, r.Name)
			}
			if p.Listed && !a.Listed || p.Served && !a.Served {
				t.Errorf("%v: listed %v served %v in Kafka %s, listed %v served %v in Kafka %s", k, p.Listed, p.Served, prev.Name, a.Listed, a.Served, r.Name)
			}
			if p.Listed && a.Listed && a.Advertised.Max < p.Advertised.Max {
				t.Errorf("%v: listed up to v%d in Kafka %s, v%d in Kafka %s", k, p.Advertised.Max, prev.Name, a.Advertised.Max, r.Name)
			}
			if shrank := a.Spec.Min > p.Spec.Min; shrank != removals[removal{k, r.Name}] {
				t.Errorf("%v: from v%d in Kafka %s, from v%d in Kafka %s (a documented removal: %v)", k, p.Spec.Min, prev.Name, a.Spec.Min, r.Name, removals[removal{k, r.Name}])
			}
		}
	}
	jg := func(name string) int16 {
		r, _ := Lookup(name)
		a, _ := r.API(codec.JoinGroup)
		return a.Advertised.Min
	}
	if jg("3.9") != 0 || jg("4.0.0") != 2 || jg("4.0.1") != 0 || jg("4.1") != 0 {
		t.Errorf("JoinGroup from v%d, v%d, v%d, v%d in 3.9, 4.0.0, 4.0.1, 4.1; want 0, 2, 0, 0", jg("3.9"), jg("4.0.0"), jg("4.0.1"), jg("4.1"))
	}
}

// Listed but not served: ConsumerGroupHeartbeat in 3.7-3.9 and
// ConsumerGroupDescribe in 3.8-3.9, nothing else. The telemetry apis are
// never listed by default.
func TestListedNotServed(t *testing.T) {
	want := map[string][]codec.APIKey{
		"3.7": {codec.ConsumerGroupHeartbeat},
		"3.8": {codec.ConsumerGroupHeartbeat, codec.ConsumerGroupDescribe},
		"3.9": {codec.ConsumerGroupHeartbeat, codec.ConsumerGroupDescribe},
	}
	for _, r := range table {
		var got []codec.APIKey
		for _, a := range r.APIs() {
			if a.Listed && !a.Served {
				got = append(got, a.Key)
			}
			if (a.Key == codec.GetTelemetrySubscriptions || a.Key == codec.PushTelemetry) && a.Listed {
				t.Errorf("Kafka %s lists %v by default", r.Name, a.Key)
			}
			if !a.Listed && a.Why == "" || a.Listed && a.Served && a.Why != "" {
				t.Errorf("Kafka %s %v: listed %v served %v, why %q", r.Name, a.Key, a.Listed, a.Served, a.Why)
			}
		}
		if !slices.Equal(got, want[r.Name]) {
			t.Errorf("Kafka %s lists without serving %v, want %v", r.Name, got, want[r.Name])
		}
	}
}

// Every version a release lists, ghostcheck's codec speaks: serve
// --kafka-version can answer it, and check can ask it.
func TestCodecSpeaksEveryListedVersion(t *testing.T) {
	for _, r := range table {
		for _, a := range r.APIs() {
			c := codec.Lookup(a.Key)
			if c == nil || a.Spec.Min < c.MinVersion || a.Spec.Max > c.MaxVersion {
				t.Errorf("Kafka %s %v %v: codec speaks %v", r.Name, a.Key, a.Spec, c)
			}
		}
	}
}

// observe is what a default broker of r shows: its listed ranges, and the
// listed apis it refuses.
func observe(r Release, routes bool) Observed {
	obs := Observed{Listed: map[codec.APIKey][2]int16{}, Unserved: map[codec.APIKey]bool{}}
	for _, a := range r.APIs() {
		if !a.Listed || routing(a.Key) && !routes {
			continue
		}
		obs.Listed[a.Key] = [2]int16{a.Advertised.Min, a.Advertised.Max}
		if !a.Served {
			obs.Unserved[a.Key] = true
		}
	}
	return obs
}

// A default broker of each release is held to that release, or to a newer
// one that lists and serves exactly the same (2.5-2.7, 3.2-3.4, 3.5-3.6,
// 4.0.1-4.2 do), whether or not it lists the routing apis.
func TestInferDefaultBrokers(t *testing.T) {
	for i, r := range table {
		for _, routes := range []bool{true, false} {
			inf := Infer(observe(r, routes))
			if !inf.Exact || !less3(r.first, inf.Release.first) && inf.Release.Name != r.Name {
				t.Errorf("Kafka %s (routes %v): held to %s (exact %v)", r.Name, routes, inf.Release.Name, inf.Exact)
				continue
			}
			for _, later := range table[i:] {
				if !less3(later.first, inf.Release.first) {
					break
				}
				if ms := later.Mismatches(observe(r, true)); routes && len(ms) != 0 {
					t.Errorf("Kafka %s held to %s past Kafka %s, which differs: %v", r.Name, inf.Release.Name, later.Name, ms)
				}
			}
			if inf.Release.Name != Newest().Name && inf.Evidence == "" {
				t.Errorf("Kafka %s held to %s with no evidence against the next release", r.Name, inf.Release.Name)
			}
		}
	}
}

func TestInferCases(t *testing.T) {
	r39, _ := Lookup("3.9")
	served39 := observe(r39, true)
	served39.Unserved = nil // the consumer protocol enabled on 3.9
	upgraded := observe(Newest(), true)
	upgraded.Unserved = map[codec.APIKey]bool{codec.ConsumerGroupHeartbeat: true}
	classicOnly := Observed{Listed: map[codec.APIKey][2]int16{codec.ApiVersions: {0, 4}, codec.JoinGroup: {0, 9}, codec.SyncGroup: {0, 5},
		codec.Heartbeat: {0, 4}, codec.LeaveGroup: {0, 4}, codec.DescribeGroups: {0, 5}}}
	for _, c := range []struct {
		name     string
		obs      Observed
		want     string
		exact    bool
		evidence string
	}{
		{"default 3.9", observe(r39, true), "3.9", true, "ConsumerGroupHeartbeat"},
		{"3.9 with the consumer protocol on", served39, "3.9", true, "ConsumerGroupHeartbeat"},
		{"4.2 without group.version", upgraded, "4.2", false, ""},
		{"classic apis only, LeaveGroup v4", classicOnly, "3.1", false, "LeaveGroup"},
	} {
		inf := Infer(c.obs)
		if inf.Release.Name != c.want || inf.Exact != c.exact || !strings.Contains(inf.Evidence, c.evidence) {
			t.Errorf("%s: held to %s exact %v (%q); want %s exact %v naming %q", c.name, inf.Release.Name, inf.Exact, inf.Evidence, c.want, c.exact, c.evidence)
		}
	}
}

// docs/PROTOCOL.md shows the table as Markdown prints it.
func TestProtocolShowsTheTable(t *testing.T) {
	b, err := os.ReadFile("../../docs/PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), Markdown()) {
		t.Errorf("docs/PROTOCOL.md does not hold the release table as releases.Markdown prints it:\n%s", Markdown())
	}
}
