package proxy

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"strconv"

	"github.com/ghostcheck/ghostcheck/codec"
)

// A client learns where brokers are from Metadata and FindCoordinator
// answers, and connects there. The proxy rewrites every broker address in
// them to a listener of its own that forwards to that broker (one listener
// per upstream broker, made when the broker is first named), so the client
// reaches the whole cluster through the proxy. It must be able to read
// every answer it relays: ApiVersions answers are capped, in place, at the
// Metadata and FindCoordinator versions codec speaks, so that a client
// never negotiates one the proxy could not rewrite. An answer that still
// does not decode closes the connection rather than let the client learn a
// broker's real address.

// errRewrite closes a connection whose routing answer could not be
// rewritten.
var errRewrite = errors.New("proxy: a Metadata or FindCoordinator answer could not be rewritten")

// router maps an upstream broker's host and port to the proxy's host and
// port for it.
type router interface {
	route(host string, port int32) (string, int32, error)
}

// rewriteRouting decodes a Metadata or FindCoordinator response frame
// (without its size prefix) to a request at version, points every broker
// it names at the proxy, and appends the re-encoded frame, with its size
// prefix, to dst.
func rewriteRouting(dst, frame []byte, key codec.APIKey, version int16, rt router) ([]byte, error) {
	h, m, err := codec.DecodeResponse(frame, key, version, codec.DecodeOptions{})
	if err != nil {
		return dst, fmt.Errorf("%w: %w", errRewrite, err)
	}
	switch r := m.(type) {
	case *codec.MetadataResponse:
		for i := range r.Brokers {
			b := &r.Brokers[i]
			if b.Host, b.Port, err = rt.route(b.Host, b.Port); err != nil {
				return dst, err
			}
		}
	case *codec.FindCoordinatorResponse:
		if err := rewriteCoordinators(r, rt); err != nil {
			return dst, err
		}
	}
	hv, err := codec.ResponseHeaderVersion(key, version)
	if err != nil {
		return dst, err
	}
	b, start := codec.BeginFrame(dst)
	if b, err = h.AppendTo(b, hv); err != nil {
		return dst, err
	}
	if b, err = m.AppendTo(b, version); err != nil {
		return dst, fmt.Errorf("%w: %w", errRewrite, err)
	}
	return codec.FinishFrame(b, start), nil
}

// rewriteCoordinators points the coordinators of a FindCoordinator answer
// at the proxy: the single answer (v0-v3) or each key's (v4+). An answer
// carrying an error names no broker and is left alone.
func rewriteCoordinators(r *codec.FindCoordinatorResponse, rt router) error {
	var err error
	if r.ErrorCode == codec.None && r.Host != "" {
		if r.Host, r.Port, err = rt.route(r.Host, r.Port); err != nil {
			return err
		}
	}
	for i := range r.Coordinators {
		c := &r.Coordinators[i]
		if c.ErrorCode != codec.None || c.Host == "" {
			continue
		}
		if c.Host, c.Port, err = rt.route(c.Host, c.Port); err != nil {
			return err
		}
	}
	return nil
}

// routingCaps are the highest versions the proxy can rewrite.
var routingCaps = map[codec.APIKey]int16{
	codec.Metadata:        codec.Lookup(codec.Metadata).MaxVersion,
	codec.FindCoordinator: codec.Lookup(codec.FindCoordinator).MaxVersion,
}

// capVersions walks an ApiVersions response body (after the response
// header, which is always v0: the correlation id) answering a request at
// version, lowers the Metadata and FindCoordinator maximums in place to
// routingCaps, and returns what it read (error code and ranges). A body
// it cannot walk is left as it is (ok false). Every ApiVersions version
// lays its ranges out the same way, so this reads versions codec does not
// decode too; an UNSUPPORTED_VERSION answer is a v0 body (KIP-511).
func capVersions(body []byte, version int16) (*codec.ApiVersionsResponse, bool) {
	if len(body) < 2 {
		return nil, false
	}
	out := &codec.ApiVersionsResponse{ErrorCode: codec.ErrorCode(int16(binary.BigEndian.Uint16(body)))}
	flexible := version >= 3 && out.ErrorCode != codec.UnsupportedVersion
	off := 2
	var n int
	if flexible {
		c, w := uvarint(body[off:])
		if w <= 0 || c == 0 {
			return nil, false
		}
		n, off = int(c-1), off+w
	} else {
		if len(body) < off+4 {
			return nil, false
		}
		n, off = int(int32(binary.BigEndian.Uint32(body[off:]))), off+4
	}
	if n < 0 || n > (len(body)-off)/6 {
		return nil, false
	}
	for i := 0; i < n; i++ {
		if len(body) < off+6 {
			return nil, false
		}
		k := codec.ApiVersionsKey{ApiKey: codec.APIKey(int16(binary.BigEndian.Uint16(body[off:]))),
			MinVersion: int16(binary.BigEndian.Uint16(body[off+2:])), MaxVersion: int16(binary.BigEndian.Uint16(body[off+4:]))}
		if c, ok := routingCaps[k.ApiKey]; ok && k.MaxVersion > c {
			binary.BigEndian.PutUint16(body[off+4:], uint16(c))
			k.MaxVersion = c
		}
		out.ApiKeys = append(out.ApiKeys, k)
		off += 6
		if flexible {
			if off = skipTags(body, off); off < 0 {
				return nil, false
			}
		}
	}
	return out, true
}

// skipTags skips a tagged-field section at off, returning the offset after
// it (-1 if it does not fit).
func skipTags(b []byte, off int) int {
	n, w := uvarint(b[off:])
	if w <= 0 {
		return -1
	}
	off += w
	for i := uint64(0); i < n; i++ {
		if _, w = uvarint(b[off:]); w <= 0 {
			return -1
		}
		off += w
		size, w := uvarint(b[off:])
		if w <= 0 || size > uint64(len(b)-off-w) {
			return -1
		}
		off += w + int(size)
	}
	return off
}

// joinHostPort is host:port for a broker's Metadata entry.
func joinHostPort(host string, port int32) string {
	return net.JoinHostPort(host, strconv.Itoa(int(port)))
}
