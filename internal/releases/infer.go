package releases

import (
	"fmt"
	"strings"

	"github.com/ghostcheck/ghostcheck/codec"
)

// Observed is what a broker showed of itself: the ranges its ApiVersions
// listed, and the listed apis it answered UNSUPPORTED_VERSION to.
type Observed struct {
	Listed map[codec.APIKey][2]int16
	// Unserved are listed apis the broker refused with UNSUPPORTED_VERSION
	// (asked at a version it lists).
	Unserved map[codec.APIKey]bool
}

// Inference is the release a broker is held to when none is named.
type Inference struct {
	Release Release
	// Exact: the broker is consistent with Release (else Release is the
	// newest whose listed apis the broker all offers, or the oldest).
	Exact bool
	// Evidence says, in words, what rules out the newest release:
	// "ConsumerGroupHeartbeat up to v0; Kafka 4.2 lists up to v1" (""
	// when Release is the newest).
	Evidence string
}

// Infer is the newest release a broker that shows obs can be a default
// broker of, allowing what configuration changes: an unstable version or
// a telemetry api listed, the consumer protocol enabled where it is off
// by default. A broker that lists no Metadata or FindCoordinator (one
// that routes nothing, as ghostcheck's own server) is not judged by them.
// When no release fits, it is the newest release whose listed apis the
// broker offers all of, at their highest versions (Exact false).
func Infer(obs Observed) Inference {
	for i := len(table) - 1; i >= 0; i-- {
		if len(table[i].Mismatches(obs)) == 0 {
			return Inference{Release: table[i], Exact: true, Evidence: evidence(i, obs)}
		}
	}
	for i := len(table) - 1; i >= 0; i-- {
		if table[i].offeredBy(obs) {
			return Inference{Release: table[i], Evidence: evidence(i, obs)}
		}
	}
	return Inference{Release: table[0], Evidence: evidence(0, obs)}
}

// evidence is why the newest release does not fit, when table[i] is not
// it: at most three mismatches, the first in Columns' order.
func evidence(i int, obs Observed) string {
	if i+1 >= len(table) {
		return ""
	}
	ms := Newest().Mismatches(obs)
	if len(ms) > 3 {
		ms = append(ms[:3], fmt.Sprintf("%d more", len(ms)-3))
	}
	return strings.Join(ms, "; ")
}

// routing apis: a broker that lists none of them routes nothing, and is
// not judged by them.
func routing(k codec.APIKey) bool { return k == codec.Metadata || k == codec.FindCoordinator }

// Mismatches are what obs shows that a default broker of r (configured
// within what Infer allows) would not, in words; none when obs fits r.
func (r Release) Mismatches(obs Observed) []string {
	var out []string
	for _, k := range Columns {
		got, has := obs.Listed[k]
		a, known := r.apis[k]
		switch {
		case routing(k) && !has:
		case !known && has:
			out = append(out, fmt.Sprintf("lists %v v%d-v%d; %s has no %v", k, got[0], got[1], r, k))
		case !known:
		case a.Listed && !has:
			out = append(out, fmt.Sprintf("no %v; %s lists %v", k, r, a.Advertised))
		case has && int16(got[1]) > a.Spec.Max:
			out = append(out, fmt.Sprintf("%v up to v%d; %s has up to v%d", k, got[1], r, a.Spec.Max))
		case has && a.Listed && got[1] < a.Advertised.Max:
			out = append(out, fmt.Sprintf("%v up to v%d; %s lists up to v%d", k, got[1], r, a.Advertised.Max))
		case has && a.Listed && got[0] != a.Advertised.Min:
			out = append(out, fmt.Sprintf("%v from v%d; %s lists from v%d", k, got[0], r, a.Advertised.Min))
		case has && obs.Unserved[k] && a.Listed && a.Served:
			out = append(out, fmt.Sprintf("%v answered UNSUPPORTED_VERSION; %s serves it", k, r))
		}
	}
	return out
}

// offeredBy reports whether obs lists every api r lists, up to r's highest
// version at least (routing apis aside when obs lists none).
func (r Release) offeredBy(obs Observed) bool {
	for _, a := range r.apis {
		got, has := obs.Listed[a.Key]
		if !a.Listed || routing(a.Key) && !has {
			continue
		}
		if !has || got[1] < a.Advertised.Max {
			return false
		}
	}
	return true
}
