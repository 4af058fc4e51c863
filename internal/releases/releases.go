// Package releases is what each Apache Kafka release from 2.3 to 4.2.1
// offers of the apis ghostcheck speaks, as a default broker of that release
// does it: the versions it lists in ApiVersions, and whether it serves what
// it lists. `serve --kafka-version` advertises and answers as one of them;
// `check` holds a broker to one, the one named or the newest its
// ApiVersions and its UNSUPPORTED_VERSION answers are consistent with
// (Infer). docs/PROTOCOL.md's "Kafka releases" section says where each cell
// comes from in Kafka.
//
// The table is read from each release's message specs
// (clients/src/main/resources/common/message/*Request.json, validVersions
// and latestVersionUnstable) and from the handlers and configuration
// defaults that decide what a default broker lists and serves. Ranges are
// per minor release except where a patch release changed one (JoinGroup
// v0-v1, absent in 4.0.0 only).
package releases

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ghostcheck/ghostcheck/codec"
)

// Range is a span of versions of one api, both ends included.
type Range struct{ Min, Max int16 }

func (r Range) String() string { return fmt.Sprintf("v%d-v%d", r.Min, r.Max) }

// Contains reports whether v is in the range.
func (r Range) Contains(v int16) bool { return v >= r.Min && v <= r.Max }

// API is what one release has of one api.
type API struct {
	Key codec.APIKey
	// Spec is the validVersions of the api's message spec at the release,
	// its last version included even when it is marked unstable.
	Spec Range
	// Listed: a default broker lists the api in ApiVersions, at Advertised.
	// An api whose only version is unstable, and the telemetry apis
	// without a telemetry reporter, are not listed.
	Listed     bool
	Advertised Range
	// Served: a default broker answers the api. False for an api it lists
	// but answers UNSUPPORTED_VERSION to every request of (ConsumerGroup*
	// in 3.7-3.9: the consumer protocol is not enabled by default).
	Served bool
	// Why says why a spec'd api is not listed or not served ("" when it
	// is both).
	Why string
}

// Release is a default broker of one Apache Kafka release.
type Release struct {
	// Name is the release as ghostcheck names it: "3.9", or with the patch
	// where a patch changed what the broker offers ("4.0.0", "4.0.1").
	Name string
	// first is the first release (major, minor, patch) the row describes;
	// it holds until the next row.
	first [3]int
	apis  map[codec.APIKey]API
}

func (r Release) String() string { return "Kafka " + r.Name }

// API is what the release has of key (ok false: no spec of it at all, an
// api key the release does not know).
func (r Release) API(key codec.APIKey) (API, bool) {
	a, ok := r.apis[key]
	return a, ok
}

// Advertises is the range a default broker of the release lists for key
// (ok false: it does not list key).
func (r Release) Advertises(key codec.APIKey) (Range, bool) {
	a, ok := r.apis[key]
	if !ok || !a.Listed {
		return Range{}, false
	}
	return a.Advertised, true
}

// Serves reports whether a default broker of the release answers key at v:
// it lists it there and does not refuse it with UNSUPPORTED_VERSION.
func (r Release) Serves(key codec.APIKey, v int16) bool {
	a, ok := r.apis[key]
	return ok && a.Listed && a.Served && a.Advertised.Contains(v)
}

// Knows reports whether the release has a spec of key at all: a request of
// an api it does not know closes the connection (as does a version it does
// not list).
func (r Release) Knows(key codec.APIKey) bool {
	_, ok := r.apis[key]
	return ok
}

// APIs are the apis the release has a spec of, in Columns' order.
func (r Release) APIs() []API {
	var out []API
	for _, k := range Columns {
		if a, ok := r.apis[k]; ok {
			out = append(out, a)
		}
	}
	return out
}

// AtLeast reports whether the release is major.minor or later.
func (r Release) AtLeast(major, minor int) bool {
	return r.first[0] > major || r.first[0] == major && r.first[1] >= minor
}

// Minor is the release's major and minor version.
func (r Release) Minor() [2]int { return [2]int{r.first[0], r.first[1]} }

// All are the releases, oldest first.
func All() []Release { return append([]Release(nil), table...) }

// Newest is the newest release ghostcheck knows.
func Newest() Release { return table[len(table)-1] }

// NewestName is the newest release's minor line,
// "MAJOR.MINOR".
const NewestName = "4.2"

// Lookup finds the release named "MAJOR.MINOR" (its newest patch known) or
// "MAJOR.MINOR.PATCH".
func Lookup(name string) (Release, error) {
	v, patched, err := parse(name)
	if err != nil {
		return Release{}, err
	}
	if !patched {
		v[2] = 1 << 20 // the newest patch of the line
	}
	for i := len(table) - 1; i >= 0; i-- {
		f := table[i].first
		if f[0] == v[0] && f[1] == v[1] && (f[2] <= v[2]) {
			return table[i], nil
		}
	}
	return Release{}, fmt.Errorf("Kafka %s: ghostcheck knows the releases from %s to %s.1 (%s)", name, table[0].Name, Newest().Name, strings.Join(Names(), ", "))
}

// Names are the releases' names, oldest first.
func Names() []string {
	out := make([]string, len(table))
	for i, r := range table {
		out[i] = r.Name
	}
	return out
}

func parse(name string) ([3]int, bool, error) {
	parts := strings.Split(strings.TrimSpace(name), ".")
	var v [3]int
	if len(parts) < 2 || len(parts) > 3 {
		return v, false, fmt.Errorf("Kafka release %q: want MAJOR.MINOR or MAJOR.MINOR.PATCH, e.g. 3.9", name)
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > 999 {
			return v, false, fmt.Errorf("Kafka release %q: want MAJOR.MINOR or MAJOR.MINOR.PATCH, e.g. 3.9", name)
		}
		v[i] = n
	}
	return v, len(parts) == 3, nil
}

// ServerCaps are what makes ghostcheck's coordinator (impl.Config's
// MaxVersions, MinVersions and Unserved) list and serve what a default
// broker of r does: each api r lists at r's range (JoinGroup from v2 in
// 4.0.0), the apis r does not list dropped (max -1: their requests close
// the connection, as Kafka's do), and those r lists without serving
// answered UNSUPPORTED_VERSION. The routing and SASL apis are not the
// coordinator's and are left out.
func (r Release) ServerCaps() (max, min map[codec.APIKey]int16, unserved map[codec.APIKey]bool) {
	max, min, unserved = map[codec.APIKey]int16{}, map[codec.APIKey]int16{}, map[codec.APIKey]bool{}
	for _, a := range codec.AllAPIs() {
		if a.Routing || a.Auth {
			continue
		}
		rg, ok := r.Advertises(a.Key)
		if !ok {
			max[a.Key] = -1
			continue
		}
		max[a.Key], min[a.Key] = rg.Max, rg.Min
		if !r.Serves(a.Key, rg.Max) {
			unserved[a.Key] = true
		}
	}
	return max, min, unserved
}
