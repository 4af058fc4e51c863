package fuzz

import (
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/codec/codectest"
)

// The per-message fuzz targets of the authentication apis, as fuzz_test.go
// has them for the others: fuzzMessage's invariants at the version the
// first input byte picks.

func FuzzSaslHandshakeRequest(f *testing.F) { fuzzMessage(f, codectest.Kind{Key: codec.SaslHandshake}) }
func FuzzSaslHandshakeResponse(f *testing.F) {
	fuzzMessage(f, codectest.Kind{Key: codec.SaslHandshake, Response: true})
}
func FuzzSaslAuthenticateRequest(f *testing.F) {
	fuzzMessage(f, codectest.Kind{Key: codec.SaslAuthenticate})
}
func FuzzSaslAuthenticateResponse(f *testing.F) {
	fuzzMessage(f, codectest.Kind{Key: codec.SaslAuthenticate, Response: true})
}
