package conformance

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/internal/releases"
	"github.com/ghostcheck/ghostcheck/wire"
)

// Holding is the Kafka release a broker is held to, and why: named
// (--kafka-version), or inferred from what the broker lists and serves
// (docs/PROTOCOL.md B13).
type Holding struct {
	// Release is what markNotShipped reads: a release name, ReleaseNext,
	// or "" (every rule).
	Release string
	// Profile is the release's row of the table (the newest for "next"
	// and "").
	Profile releases.Release
	// Inferred: no release was named; Evidence says what rules out the
	// next newer one, and Exact whether the broker fits Release exactly.
	Inferred bool
	Exact    bool
	Evidence string
	// Unserved are the apis the broker lists but answered
	// UNSUPPORTED_VERSION to (in words, "ConsumerGroupHeartbeat v0").
	Unserved []string
}

// Line is the line `check` prints at its top: "held to Kafka 3.9
// (inferred from ApiVersions: ...); --kafka-version to insist".
func (h *Holding) Line() string {
	switch {
	case h.Inferred:
		why := h.Evidence
		if why == "" {
			why = "it lists what the newest release lists"
		}
		if !h.Exact {
			why = "no release fits exactly; the newest whose apis it offers all of. " + why
		}
		return fmt.Sprintf("held to %s (inferred from ApiVersions: %s); --kafka-version to insist", h.Profile, why)
	case h.Release == "" || h.Release == ReleaseNext:
		return "held to every rule ghostcheck checks, shipped or not (--kafka-version next)"
	}
	return fmt.Sprintf("held to Kafka %s (--kafka-version)", h.Release)
}

// hold resolves what the broker is held to: the release named, or, when
// infer, the newest consistent with vs and unserved.
func hold(named string, infer bool, vs wire.Versions, unserved map[codec.APIKey]bool) (*Holding, error) {
	h := &Holding{Release: named, Profile: releases.Newest()}
	for _, k := range sortedKeys(unserved) {
		h.Unserved = append(h.Unserved, fmt.Sprintf("%v v%d-v%d", k, vs[k][0], vs[k][1]))
	}
	if infer {
		inf := releases.Infer(releases.Observed{Listed: vs, Unserved: unserved})
		h.Release, h.Profile, h.Inferred, h.Exact, h.Evidence = inf.Release.Name, inf.Release, true, inf.Exact, inf.Evidence
		return h, nil
	}
	if named == "" || named == ReleaseNext {
		return h, nil
	}
	r, err := releases.Lookup(named)
	if err != nil {
		// A release the table does not know (e.g. a future 4.3) still
		// holds the broker to its rules; the newest profile stands in.
		return h, nil
	}
	h.Profile = r
	return h, nil
}

func sortedKeys(m map[codec.APIKey]bool) []codec.APIKey {
	var ks []codec.APIKey
	for k, ok := range m {
		if ok {
			ks = append(ks, k)
		}
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i] < ks[j] })
	return ks
}

// servingProbes are the apis a broker may list without serving (Kafka
// 3.7-3.9 with the consumer protocol off, a 4.x cluster whose group.version
// is 0), each with a request that changes nothing: a heartbeat of an
// unknown member of a group that does not exist, a describe of such a
// group.
func servingProbes(vs wire.Versions, prefix string) []struct {
	key codec.APIKey
	v   int16
	req codec.Message
} {
	type probeReq = struct {
		key codec.APIKey
		v   int16
		req codec.Message
	}
	var out []probeReq
	if v := min(vs.Max(codec.ConsumerGroupHeartbeat), 1); v >= 0 {
		out = append(out, probeReq{codec.ConsumerGroupHeartbeat, v, keepalive(prefix+"served-g", prefix+"served-m", 1)})
	}
	if v := min(vs.Max(codec.ConsumerGroupDescribe), 1); v >= 0 {
		out = append(out, probeReq{codec.ConsumerGroupDescribe, v, &codec.ConsumerGroupDescribeRequest{GroupIds: []string{prefix + "served-g"}}})
	}
	return out
}

// unservedOf asks, on w, each api a broker may list without serving, and
// returns those answered UNSUPPORTED_VERSION (or not answered: the probes
// stop there). An error is ghostcheck's own failure to build a request
// (ownError).
func unservedOf(w *wire.Conn, hm *wire.Headers, vs wire.Versions, prefix string) (map[codec.APIKey]bool, error) {
	out := map[codec.APIKey]bool{}
	for _, pr := range servingProbes(vs, prefix) {
		resp, err := w.RoundTrip(hm.Next(pr.key, pr.v), pr.req)
		if ownError(err) {
			return nil, fmt.Errorf("%v v%d (does the broker serve what it lists?): %w", pr.key, pr.v, err)
		}
		if err != nil {
			// No answer at all: it does not serve it either, and the
			// connection is spent.
			out[pr.key] = true
			break
		}
		if code, ok := unsupported(resp); ok && code {
			out[pr.key] = true
		}
	}
	return out, nil
}

// unsupported reports whether resp says UNSUPPORTED_VERSION (for a
// describe, for every group).
func unsupported(resp codec.Message) (bool, bool) {
	switch r := resp.(type) {
	case *codec.ConsumerGroupHeartbeatResponse:
		return r.ErrorCode == codec.UnsupportedVersion, true
	case *codec.ConsumerGroupDescribeResponse:
		if len(r.Groups) == 0 {
			return false, true
		}
		for _, g := range r.Groups {
			if g.ErrorCode != codec.UnsupportedVersion {
				return false, true
			}
		}
		return true, true
	}
	return false, false
}

// ownError reports whether err is ghostcheck failing to build its own
// request (a codec error while encoding), which says nothing of the
// broker.
func ownError(err error) bool {
	var ce *codec.Error
	return errors.As(err, &ce) && ce.Offset < 0
}

// internalError is the verdict of a case whose request ghostcheck could
// not build: an ERROR of ghostcheck, never the broker's FAIL.
func internalError(what string, err error) verdict {
	return verdict{Error, fmt.Sprintf("ghostcheck could not build its own request (%s): %v; a bug of ghostcheck, not a finding against the broker", what, err), ""}
}

// failOrOwn fails the case with what the broker did, or, when err is
// ghostcheck's own failure to build the request, ends it as ERROR.
func failOrOwn(what string, err error, expected string) verdict {
	if ownError(err) {
		return internalError(what, err)
	}
	return fail(what+": "+err.Error(), expected)
}

// lacks says why the broker cannot be asked key: it does not list it, or
// lists it and answered UNSUPPORTED_VERSION.
func (p *probe) lacks(key codec.APIKey) string {
	if p.unserved[key] {
		return fmt.Sprintf("needs %v, which the broker lists (%s) but answered UNSUPPORTED_VERSION: it does not serve it", key, p.listed(key))
	}
	return fmt.Sprintf("needs %v, which the broker does not offer", key)
}

// listed is key's range as the broker's ApiVersions listed it.
func (p *probe) listed(key codec.APIKey) string {
	r, ok := p.advertised[key]
	if !ok {
		return "none"
	}
	return fmt.Sprintf("v%d-v%d", r[0], r[1])
}

// usable are the versions a case may use: those listed, less the apis
// the broker does not serve.
func usable(vs wire.Versions, unserved map[codec.APIKey]bool) wire.Versions {
	if len(unserved) == 0 {
		return vs
	}
	out := make(wire.Versions, len(vs))
	for k, r := range vs {
		if !unserved[k] {
			out[k] = r
		}
	}
	return out
}

// noteUnserved adds to a SKIP that names an api the broker lists without
// serving that this is why it is missing.
func (p *probe) noteUnserved(r *Result) {
	if r.Status != Skip {
		return
	}
	for _, k := range sortedKeys(p.unserved) {
		if name := k.String(); strings.Contains(r.Observed, name) && !strings.Contains(r.Observed, "UNSUPPORTED_VERSION") {
			r.Observed += fmt.Sprintf(" (it lists %v %s but answered UNSUPPORTED_VERSION: not served)", k, p.listed(k))
		}
	}
}

// negotiateAndProbe is negotiate, and which listed apis the broker does
// not serve, on the same connection.
func negotiateAndProbe(ctx context.Context, peer Peer, cl *wire.Cluster) (*wire.Negotiation, map[codec.APIKey]bool, error) {
	hm, err := wire.NewHeaders(codec.Str("ghostcheck-check"), probeInstance)
	if err != nil {
		return nil, nil, err
	}
	bs := cl.Brokers()
	w, pre, err := peer.Dialer.DialNegotiated(ctx, bs[0].Addr, hm, wire.NegotiateOptions{})
	if err != nil {
		return nil, nil, fmt.Errorf("broker %d: %w", bs[0].ID, err)
	}
	defer w.Close()
	unserved, err := unservedOf(w, hm, pre.Negotiation.Versions, peer.Prefix)
	if err != nil {
		return nil, nil, fmt.Errorf("broker %d: %w", bs[0].ID, err)
	}
	return pre.Negotiation, unserved, nil
}
