package codectest

import (
	"github.com/ghostcheck/ghostcheck/codec"
	"pgregory.net/rapid"
)

// Generators of the authentication apis (SaslHandshake, SaslAuthenticate).

// genAuthBytes draws a SASL token: empty (nil, as the decoder returns a
// non-nullable empty byte string), short, or long enough for a multi-byte
// compact length.
var genAuthBytes = rapid.Custom(func(t *rapid.T) []byte {
	return nilIfEmpty(rapid.SliceOfN(rapid.Byte(), 0, 200).Draw(t, "AuthBytes"))
})

func genSaslHandshakeRequest(v int16) *rapid.Generator[codec.Message] {
	return rapid.Custom(func(t *rapid.T) codec.Message {
		return &codec.SaslHandshakeRequest{Mechanism: genString.Draw(t, "Mechanism")}
	})
}

func genSaslHandshakeResponse(v int16) *rapid.Generator[codec.Message] {
	return rapid.Custom(func(t *rapid.T) codec.Message {
		return &codec.SaslHandshakeResponse{
			ErrorCode:  codec.ErrorCode(int16s().Draw(t, "ErrorCode")),
			Mechanisms: genArray(t, "Mechanisms", 4, genString),
		}
	})
}

func genSaslAuthenticateRequest(v int16) *rapid.Generator[codec.Message] {
	flex := flexible(codec.SaslAuthenticate, v)
	return rapid.Custom(func(t *rapid.T) codec.Message {
		return &codec.SaslAuthenticateRequest{AuthBytes: genAuthBytes.Draw(t, "AuthBytes"), UnknownTags: genTags(t, flex, 0)}
	})
}

func genSaslAuthenticateResponse(v int16) *rapid.Generator[codec.Message] {
	flex := flexible(codec.SaslAuthenticate, v)
	return rapid.Custom(func(t *rapid.T) codec.Message {
		m := &codec.SaslAuthenticateResponse{
			ErrorCode:    codec.ErrorCode(int16s().Draw(t, "ErrorCode")),
			ErrorMessage: genNullableString.Draw(t, "ErrorMessage"),
			AuthBytes:    genAuthBytes.Draw(t, "AuthBytes"),
		}
		if v >= 1 {
			m.SessionLifetimeMs = rapid.Int64().Draw(t, "SessionLifetimeMs")
		}
		m.UnknownTags = genTags(t, flex, 0)
		return m
	})
}
