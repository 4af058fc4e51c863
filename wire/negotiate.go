package wire

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ghostcheck/ghostcheck/codec"
)

// Versions are a broker's api version ranges, [min, max] by api key, as
// its ApiVersions reply lists them.
type Versions map[codec.APIKey][2]int16

// Max is the broker's highest version of key, or -1 when it does not
// offer key.
func (vs Versions) Max(key codec.APIKey) int16 {
	r, ok := vs[key]
	if !ok {
		return -1
	}
	return r[1]
}

// Offers reports whether the broker offers key at version.
func (vs Versions) Offers(key codec.APIKey, version int16) bool {
	r, ok := vs[key]
	return ok && version >= r[0] && version <= r[1]
}

// Pick is the highest version of key both sides speak, the client
// speaking [min, max], or an error saying why there is none.
func (vs Versions) Pick(key codec.APIKey, min, max int16) (int16, error) {
	r, ok := vs[key]
	if !ok {
		return 0, fmt.Errorf("the broker does not offer %v", key)
	}
	hi := max
	if r[1] < hi {
		hi = r[1]
	}
	if hi < min || hi < r[0] {
		return 0, fmt.Errorf("the broker offers %v v%d-v%d, ghostcheck needs v%d-v%d", key, r[0], r[1], min, max)
	}
	return hi, nil
}

// NegotiateOptions shape an ApiVersions negotiation.
type NegotiateOptions struct {
	// MaxVersion is the ApiVersions version asked first (0, or above what
	// codec speaks: codec's highest).
	MaxVersion int16
	// SoftwareName and SoftwareVersion are sent at v3+ (""; "ghostcheck"
	// and "1.0"). A broker answers INVALID_REQUEST to a name or version
	// outside [a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?.
	SoftwareName, SoftwareVersion string
}

func (o NegotiateOptions) withDefaults() NegotiateOptions {
	if top := codec.Lookup(codec.ApiVersions).MaxVersion; o.MaxVersion <= 0 || o.MaxVersion > top {
		o.MaxVersion = top
	}
	if o.SoftwareName == "" {
		o.SoftwareName = "ghostcheck"
	}
	if o.SoftwareVersion == "" {
		o.SoftwareVersion = "1.0"
	}
	return o
}

// Negotiation is what an ApiVersions negotiation found, and how.
type Negotiation struct {
	// Versions are the broker's ranges (nil unless it settled).
	Versions Versions
	// Version is the ApiVersions version whose reply settled it (-1: none
	// did).
	Version int16
	// Response is that reply.
	Response *codec.ApiVersionsResponse
	// Notes say, in order, each reply that did not settle it and what was
	// done next, e.g. "v3 reply did not parse: ...; fell back to v2".
	Notes []string
}

// String is the notes, or that the first reply settled it.
func (n *Negotiation) String() string {
	if len(n.Notes) == 0 {
		return fmt.Sprintf("ApiVersions v%d answered", n.Version)
	}
	return strings.Join(n.Notes, "; ")
}

// ErrNegotiation is wrapped by Negotiate's error when no ApiVersions
// version down to v0 got a reply that parses and makes sense.
var ErrNegotiation = errors.New("wire: ApiVersions negotiation failed")

// ApiVersionsError is a well-formed ApiVersions reply with an error code
// other than a usable UNSUPPORTED_VERSION (INVALID_REQUEST for a software
// name the broker refuses, say).
type ApiVersionsError struct {
	Version int16
	Code    codec.ErrorCode
}

func (e *ApiVersionsError) Error() string {
	return fmt.Sprintf("wire: ApiVersions v%d answered %v", e.Version, e.Code)
}

// Negotiate asks the broker its api versions on this connection, with
// headers from hm (the first request of a connection carries ClientId).
// It asks at o.MaxVersion first. A broker that does not know that version
// answers a v0 body with UNSUPPORTED_VERSION and its own ApiVersions range
// (KIP-511): ask again at its highest. A reply that does not parse (at the
// version asked, or as such a v0 body), or an UNSUPPORTED_VERSION without
// a lower range, is not fatal: ask again one version lower, down to v0.
// The Negotiation, returned even on failure, says what happened. A
// transport error ends the negotiation (it wraps ErrNoResponse); an error
// code ends it as an *ApiVersionsError.
func (c *Conn) Negotiate(hm *Headers, o NegotiateOptions) (*Negotiation, error) {
	o = o.withDefaults()
	n := &Negotiation{Version: -1}
	req := &codec.ApiVersionsRequest{ClientSoftwareName: o.SoftwareName, ClientSoftwareVersion: o.SoftwareVersion}
	for v := o.MaxVersion; v >= 0; {
		h := hm.Next(codec.ApiVersions, v)
		if err := c.Send(h, req); err != nil {
			return n, fmt.Errorf("v%d: %w", v, err)
		}
		_, frame, err := c.next("Negotiate")
		if err != nil {
			return n, fmt.Errorf("v%d: %w", v, err)
		}
		r, at, perr := parseVersions(frame, v, h.CorrelationId)
		next, err := n.judge(v, r, at, perr)
		if err != nil || next < 0 {
			return n, err
		}
		v = next
	}
	return n, fmt.Errorf("%w: %s", ErrNegotiation, n)
}

// parseVersions decodes an ApiVersions reply to a request at v: at v, else
// (v > 0) as KIP-511's v0 body. at is the version that parsed; the error
// is the one at v.
func parseVersions(frame []byte, v int16, corr int32) (*codec.ApiVersionsResponse, int16, error) {
	h, m, err := codec.DecodeResponse(frame, codec.ApiVersions, v, codec.DecodeOptions{})
	at := v
	if err != nil && v > 0 {
		var err0 error
		if h, m, err0 = codec.DecodeResponse(frame, codec.ApiVersions, 0, codec.DecodeOptions{}); err0 == nil {
			at, err = 0, nil
		}
	}
	if err != nil {
		return nil, v, err
	}
	if h.CorrelationId != corr {
		return nil, at, fmt.Errorf("correlation id %d, want %d", h.CorrelationId, corr)
	}
	return m.(*codec.ApiVersionsResponse), at, nil
}

// judge decides what the reply to ApiVersions v means: the version to ask
// next, or -1 when the negotiation is over (settled when the error is
// nil and Versions is set).
func (n *Negotiation) judge(v int16, r *codec.ApiVersionsResponse, at int16, perr error) (int16, error) {
	lower := func(why string) (int16, error) {
		if v == 0 {
			n.Notes = append(n.Notes, fmt.Sprintf("v0 %s; no lower version to fall back to", why))
			return -1, fmt.Errorf("%w: %s", ErrNegotiation, n)
		}
		n.Notes = append(n.Notes, fmt.Sprintf("v%d %s; fell back to v%d", v, why, v-1))
		return v - 1, nil
	}
	if perr != nil {
		return lower("reply did not parse: " + perr.Error())
	}
	vs := versionsOf(r)
	switch r.ErrorCode {
	case codec.None:
		if at != v {
			return lower("reply parsed only as a v0 body, without an error code")
		}
		n.Versions, n.Version, n.Response = vs, v, r
		return -1, nil
	case codec.UnsupportedVersion:
		rg, ok := vs[codec.ApiVersions]
		if !ok || rg[1] >= v || rg[1] < 0 || rg[0] > rg[1] {
			return lower(fmt.Sprintf("answered UNSUPPORTED_VERSION without a lower ApiVersions range (%s)", rangeString(rg, ok)))
		}
		n.Notes = append(n.Notes, fmt.Sprintf("v%d answered UNSUPPORTED_VERSION (v%d body) offering ApiVersions v%d-v%d; retried at v%d", v, at, rg[0], rg[1], rg[1]))
		return rg[1], nil
	}
	return -1, &ApiVersionsError{Version: v, Code: r.ErrorCode}
}

func versionsOf(r *codec.ApiVersionsResponse) Versions {
	// No size hint from the broker's list: a long list of repeated keys
	// would allocate a map of its length for a few keys (there are fewer
	// than 100 apis).
	vs := make(Versions)
	for _, k := range r.ApiKeys {
		vs[k.ApiKey] = [2]int16{k.MinVersion, k.MaxVersion}
	}
	return vs
}

func rangeString(rg [2]int16, ok bool) string {
	if !ok {
		return "none listed"
	}
	return fmt.Sprintf("v%d-v%d", rg[0], rg[1])
}
