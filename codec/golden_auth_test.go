package codec_test

import "github.com/ghostcheck/ghostcheck/codec"

// Golden vectors of the authentication apis, written from Apache Kafka's
// SaslHandshakeRequest/Response.json (v0-v1, never flexible) and
// SaslAuthenticateRequest/Response.json (v0-v2, flexible from v2), never
// produced by this codec. They join goldenBodies.
var goldenAuth = []golden{
	// ---------------------------------------------------------------- SaslHandshake (17)
	{"SaslHandshakeRequest v0 PLAIN", 0, &codec.SaslHandshakeRequest{Mechanism: "PLAIN"}, `
		00 05 50 4c 41 49 4e  # Mechanism "PLAIN"`},
	{"SaslHandshakeRequest v1 SCRAM-SHA-256", 1, &codec.SaslHandshakeRequest{Mechanism: "SCRAM-SHA-256"}, `
		00 0d 53 43 52 41 4d 2d 53 48 41 2d 32 35 36  # Mechanism "SCRAM-SHA-256" (no tags: never flexible)`},
	{"SaslHandshakeResponse v0", 0, &codec.SaslHandshakeResponse{Mechanisms: []string{"PLAIN"}}, `
		00 00                 # ErrorCode 0
		00 00 00 01           # Mechanisms: 1
		00 05 50 4c 41 49 4e  #   "PLAIN"`},
	{"SaslHandshakeResponse v1 unsupported mechanism", 1, &codec.SaslHandshakeResponse{ErrorCode: codec.UnsupportedSaslMechanism,
		Mechanisms: []string{"A", "B"}}, `
		00 21                    # ErrorCode 33 UNSUPPORTED_SASL_MECHANISM
		00 00 00 02              # Mechanisms: 2
		00 01 41  00 01 42       #   "A", "B"`},
	{"SaslHandshakeResponse v1 no mechanisms", 1, &codec.SaslHandshakeResponse{ErrorCode: codec.IllegalSaslState}, `
		00 22        # ErrorCode 34 ILLEGAL_SASL_STATE
		00 00 00 00  # Mechanisms: empty (decodes to nil)`},

	// ---------------------------------------------------------------- SaslAuthenticate (36)
	{"SaslAuthenticateRequest v0 PLAIN token", 0, &codec.SaslAuthenticateRequest{AuthBytes: []byte("\x00u\x00p")}, `
		00 00 00 04  00 75 00 70  # AuthBytes: 4 bytes, NUL "u" NUL "p"`},
	{"SaslAuthenticateRequest v1 empty", 1, &codec.SaslAuthenticateRequest{}, `
		00 00 00 00  # AuthBytes: empty (decodes to nil)`},
	{"SaslAuthenticateRequest v2 flexible", 2, &codec.SaslAuthenticateRequest{AuthBytes: []byte("ab")}, `
		03 61 62  # AuthBytes: compact, 2 bytes
		00        # tags`},
	{"SaslAuthenticateRequest v2 with a tag", 2, &codec.SaslAuthenticateRequest{AuthBytes: []byte("x"),
		UnknownTags: codec.TaggedFields{{Tag: 5, Data: []byte{0xff}}}}, `
		02 78        # AuthBytes: "x"
		01 05 01 ff  # tags: tag 5, size 1`},

	{"SaslAuthenticateResponse v0 failed", 0, &codec.SaslAuthenticateResponse{ErrorCode: codec.SaslAuthenticationFailed,
		ErrorMessage: codec.Str("bad")}, `
		00 3a         # ErrorCode 58 SASL_AUTHENTICATION_FAILED
		00 03 62 61 64  # ErrorMessage "bad"
		00 00 00 00   # AuthBytes: empty`},
	{"SaslAuthenticateResponse v1 session lifetime", 1, &codec.SaslAuthenticateResponse{AuthBytes: []byte("v=x"),
		SessionLifetimeMs: 3600000}, `
		00 00                    # ErrorCode 0
		ff ff                    # ErrorMessage null
		00 00 00 03  76 3d 78    # AuthBytes "v=x"
		00 00 00 00 00 36 ee 80  # SessionLifetimeMs 3600000 (v1+)`},
	{"SaslAuthenticateResponse v2 flexible", 2, &codec.SaslAuthenticateResponse{AuthBytes: []byte("s")}, `
		00 00                    # ErrorCode 0
		00                       # ErrorMessage null (compact)
		02 73                    # AuthBytes "s"
		00 00 00 00 00 00 00 00  # SessionLifetimeMs 0
		00                       # tags`},
}
