package proxy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
	"pgregory.net/rapid"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/codec/codectest"
)

// fakeRouter points every broker at "proxy:" + its port + 1; a host
// "refuse" fails, as the proxy does past MaxBrokers.
type fakeRouter struct{ routed int }

func (f *fakeRouter) route(host string, port int32) (string, int32, error) {
	if host == "refuse" {
		return "", 0, errors.New("refused")
	}
	f.routed++
	return "proxy-" + host, port + 1, nil
}

// expectRouted applies fakeRouter to a decoded answer, as rewriteRouting
// should.
func expectRouted(m codec.Message) {
	switch r := m.(type) {
	case *codec.MetadataResponse:
		for i := range r.Brokers {
			r.Brokers[i].Host, r.Brokers[i].Port = "proxy-"+r.Brokers[i].Host, r.Brokers[i].Port+1
		}
	case *codec.FindCoordinatorResponse:
		if r.ErrorCode == codec.None && r.Host != "" {
			r.Host, r.Port = "proxy-"+r.Host, r.Port+1
		}
		for i := range r.Coordinators {
			c := &r.Coordinators[i]
			if c.ErrorCode == codec.None && c.Host != "" {
				c.Host, c.Port = "proxy-"+c.Host, c.Port+1
			}
		}
	}
}

// Every version of Metadata and FindCoordinator a codec speaks: the
// rewritten frame decodes (with codec, and with kmsg) to the answer with
// each broker routed and nothing else changed, the correlation id kept.
func TestRewriteRoutingEveryVersion(t *testing.T) {
	for _, key := range []codec.APIKey{codec.Metadata, codec.FindCoordinator} {
		a := codec.Lookup(key)
		for v := a.MinVersion; v <= a.MaxVersion; v++ {
			t.Run(fmt.Sprintf("%s/v%d", a.Name, v), func(t *testing.T) {
				rapid.Check(t, func(rt *rapid.T) {
					m := codectest.Message(codectest.Kind{Key: key, Response: true}, v).Draw(rt, "answer")
					frame, err := codec.AppendResponse(nil, 77, v, m)
					if err != nil {
						rt.Fatal(err)
					}
					var router fakeRouter
					out, err := rewriteRouting([]byte{9}, frame[4:], key, v, &router)
					if err != nil {
						rt.Fatalf("rewrite: %v", err)
					}
					if out[0] != 9 || int(binary.BigEndian.Uint32(out[1:])) != len(out)-5 {
						rt.Fatalf("not appended as a frame: % x", out[:5])
					}
					h, got, err := codec.DecodeResponse(out[5:], key, v, codec.DecodeOptions{})
					if err != nil || h.CorrelationId != 77 {
						rt.Fatalf("decode: %v, correlation id %d", err, h.CorrelationId)
					}
					expectRouted(m)
					if !reflect.DeepEqual(got, m) {
						rt.Fatalf("rewritten\n%+v\nwant\n%+v", got, m)
					}
					kresp := kmsg.ResponseForKey(int16(key))
					kresp.SetVersion(v)
					hv, _ := codec.ResponseHeaderVersion(key, v)
					body := out[5+4:]
					if hv == 1 {
						body = body[1:] // an empty tag section (codec writes none)
					}
					if err := kresp.ReadFrom(body); err != nil {
						rt.Fatalf("kmsg reads the rewritten answer: %v", err)
					}
				})
			})
		}
	}
}

// An answer that does not decode, or names a broker the proxy cannot
// route, is an error: the connection closes rather than let the client
// learn a broker's own address.
func TestRewriteRoutingRefuses(t *testing.T) {
	m := codec.NewMetadataResponse()
	m.Brokers = []codec.MetadataResponseBroker{{NodeId: 1, Host: "refuse", Port: 1}}
	frame, err := codec.AppendResponse(nil, 1, 12, m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rewriteRouting(nil, frame[4:], codec.Metadata, 12, &fakeRouter{}); err == nil {
		t.Error("an unroutable broker was rewritten")
	}
	if _, err := rewriteRouting(nil, frame[4:len(frame)-3], codec.Metadata, 12, &fakeRouter{}); !errors.Is(err, errRewrite) {
		t.Errorf("a truncated answer: %v", err)
	}
	fc := &codec.FindCoordinatorResponse{ErrorCode: codec.CoordinatorNotAvailable, Host: "", Port: -1}
	frame, err = codec.AppendResponse(nil, 1, 2, fc)
	if err != nil {
		t.Fatal(err)
	}
	var r fakeRouter
	if _, err := rewriteRouting(nil, frame[4:], codec.FindCoordinator, 2, &r); err != nil || r.routed != 0 {
		t.Errorf("an error answer: %v, %d routed", err, r.routed)
	}
}

// capVersions lowers Metadata and FindCoordinator above what codec speaks,
// at every ApiVersions version and in KIP-511's v0 fallback, reads every
// range, and leaves a body it cannot walk alone.
func TestCapVersions(t *testing.T) {
	keys := []codec.ApiVersionsKey{{ApiKey: 0, MinVersion: 3, MaxVersion: 13}, {ApiKey: codec.Metadata, MaxVersion: 20},
		{ApiKey: codec.FindCoordinator, MaxVersion: 6}, {ApiKey: codec.LeaveGroup, MaxVersion: 5}}
	for v := int16(0); v <= 4; v++ {
		resp := &codec.ApiVersionsResponse{ApiKeys: keys}
		if v >= 3 {
			resp.SupportedFeatures = []codec.SupportedFeature{{Name: "f", MinVersion: 1, MaxVersion: 2}}
		}
		frame, err := codec.AppendResponse(nil, 5, v, resp)
		if err != nil {
			t.Fatal(err)
		}
		body := frame[8:]
		got, ok := capVersions(body, v)
		if !ok || len(got.ApiKeys) != 4 || got.ApiKeys[1].MaxVersion != 13 || got.ApiKeys[3].MaxVersion != 5 {
			t.Fatalf("v%d: %v %+v", v, ok, got)
		}
		_, dec, err := codec.DecodeResponse(frame[4:], codec.ApiVersions, v, codec.DecodeOptions{})
		if err != nil {
			t.Fatalf("v%d: the capped answer does not decode: %v", v, err)
		}
		if mv := dec.(*codec.ApiVersionsResponse).ApiKeys[1].MaxVersion; mv != 13 {
			t.Errorf("v%d: Metadata max %d after capping", v, mv)
		}
	}
	// KIP-511: an UNSUPPORTED_VERSION answer to v4 is a v0 body.
	fallback, _ := codec.AppendResponse(nil, 5, 0, &codec.ApiVersionsResponse{ErrorCode: codec.UnsupportedVersion, ApiKeys: keys[:1]})
	if got, ok := capVersions(fallback[8:], 4); !ok || got.ErrorCode != codec.UnsupportedVersion || len(got.ApiKeys) != 1 {
		t.Errorf("fallback: %v %+v", ok, got)
	}
	for _, bad := range [][]byte{nil, {0}, {0, 0, 0x7f, 0xff, 0xff, 0xff}, {0, 0, 0, 0, 0, 2, 0, 1}, {0, 0, 5, 0, 3, 0, 0, 0, 9, 7}} {
		before := bytes.Clone(bad)
		if _, ok := capVersions(bad, 3); ok || !bytes.Equal(bad, before) {
			t.Errorf("% x: walked (%v) or changed", before, ok)
		}
	}
}

// Nothing capVersions or skipTags reads makes them panic or read past
// the body (random bodies, and mutations of a real one; FuzzProxy in
// fuzz/ reaches them through the proxy).
func TestCapVersionsRandom(t *testing.T) {
	frame, _ := codec.AppendResponse(nil, 5, 3, &codec.ApiVersionsResponse{ApiKeys: []codec.ApiVersionsKey{{ApiKey: 3, MaxVersion: 20}, {ApiKey: 10, MaxVersion: 9}}})
	real := frame[8:]
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 20000; i++ {
		var body []byte
		if i%2 == 0 {
			body = make([]byte, rng.IntN(40))
			for j := range body {
				body[j] = byte(rng.IntN(256))
			}
		} else {
			body = bytes.Clone(real)
			body[rng.IntN(len(body))] = byte(rng.IntN(256))
			body = body[:rng.IntN(len(body)+1)]
		}
		capVersions(body, int16(rng.IntN(6)))
		skipTags(body, 0)
	}
}
