package fuzz

import (
	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Conversions of the authentication apis (SaslHandshake, SaslAuthenticate)
// between this codec and kmsg, in the manner of kmsg_test.go. kmsg names
// them SASL..., the handshake's Mechanisms SupportedMechanisms, the tokens
// SASLAuthBytes and the lifetime SessionLifetimeMillis.

func authToKmsg(m codec.Message) kmsgMessage {
	switch m := m.(type) {
	case *codec.SaslHandshakeRequest:
		return &kmsg.SASLHandshakeRequest{Mechanism: m.Mechanism}
	case *codec.SaslHandshakeResponse:
		return &kmsg.SASLHandshakeResponse{ErrorCode: int16(m.ErrorCode), SupportedMechanisms: m.Mechanisms}
	case *codec.SaslAuthenticateRequest:
		return &kmsg.SASLAuthenticateRequest{SASLAuthBytes: m.AuthBytes, UnknownTags: tagsToKmsg(m.UnknownTags)}
	case *codec.SaslAuthenticateResponse:
		return &kmsg.SASLAuthenticateResponse{ErrorCode: int16(m.ErrorCode), ErrorMessage: m.ErrorMessage.Ptr(),
			SASLAuthBytes: m.AuthBytes, SessionLifetimeMillis: m.SessionLifetimeMs, UnknownTags: tagsToKmsg(m.UnknownTags)}
	}
	panic("authToKmsg: not an authentication message")
}

// authFromKmsg converts a kmsg authentication message into the value this
// codec's decoder gives: empty arrays and byte strings nil.
func authFromKmsg(k kmsgMessage) codec.Message {
	switch k := k.(type) {
	case *kmsg.SASLHandshakeRequest:
		return &codec.SaslHandshakeRequest{Mechanism: k.Mechanism}
	case *kmsg.SASLHandshakeResponse:
		return &codec.SaslHandshakeResponse{ErrorCode: codec.ErrorCode(k.ErrorCode), Mechanisms: nilIfEmpty(k.SupportedMechanisms)}
	case *kmsg.SASLAuthenticateRequest:
		return &codec.SaslAuthenticateRequest{AuthBytes: nilIfEmpty(k.SASLAuthBytes), UnknownTags: tagsFromKmsg(k.UnknownTags)}
	case *kmsg.SASLAuthenticateResponse:
		return &codec.SaslAuthenticateResponse{ErrorCode: codec.ErrorCode(k.ErrorCode), ErrorMessage: codec.FromPtr(k.ErrorMessage),
			AuthBytes: nilIfEmpty(k.SASLAuthBytes), SessionLifetimeMs: k.SessionLifetimeMillis, UnknownTags: tagsFromKmsg(k.UnknownTags)}
	}
	panic("authFromKmsg: not an authentication message")
}
