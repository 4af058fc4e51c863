package wire

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/xdg-go/scram"
)

// ErrAuth is wrapped by every error of a SASL exchange that did not
// authenticate for a reason other than the network: a wrong user or
// password, a mechanism the broker does not enable, a broker that closed
// the connection in the middle of the exchange (which is how some brokers
// refuse credentials), a broker without SaslAuthenticate. Nothing of the
// caller's was sent on such a connection. A command that meets it cannot
// check anything, and should say so and exit 2; it is never a finding
// against the broker.
var ErrAuth = errors.New("wire: SASL authentication failed")

// SASL is what a connection authenticates with.
type SASL struct {
	// Mechanism is PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 (any case).
	Mechanism string
	User      string
	// Password never appears in output: see Secret.
	Password Secret
}

// Mechanisms are the SASL mechanisms wire speaks, as a SaslHandshake
// names them.
func Mechanisms() []string {
	return []string{codec.MechanismPlain, codec.MechanismScramSHA256, codec.MechanismScramSHA512}
}

// mechanism is Mechanism as the handshake names it, or an error listing
// the ones wire speaks.
func (s *SASL) mechanism() (string, error) {
	for _, m := range Mechanisms() {
		if strings.EqualFold(s.Mechanism, m) {
			return m, nil
		}
	}
	return "", fmt.Errorf("wire: SASL mechanism %q: want one of %s", s.Mechanism, strings.Join(Mechanisms(), ", "))
}

// Check reports a SASL setting that cannot work, before any connection
// is made: an unknown mechanism, no user, no password.
func (s *SASL) Check() error {
	if _, err := s.mechanism(); err != nil {
		return err
	}
	if s.User == "" {
		return errors.New("wire: SASL needs a user")
	}
	if s.Password.IsZero() {
		return fmt.Errorf("wire: SASL user %s: %w", s.User, errEmptySecret)
	}
	return nil
}

// AuthError says where and why a SASL exchange failed. It never holds the
// password: the broker's message is kept with any occurrence of it cut
// out.
type AuthError struct {
	Mechanism string
	// API is the request that failed: SaslHandshake or SaslAuthenticate.
	API codec.APIKey
	// Code is the broker's error code (NONE when it closed the connection
	// or when the client refused its answer).
	Code codec.ErrorCode
	// Message is the broker's error message, if any.
	Message string
	// Enabled are the mechanisms the broker listed, when it refused ours.
	Enabled []string
	// Closed: the broker closed the connection instead of answering.
	Closed bool
	// Detail says more, in words.
	Detail string
}

func (e *AuthError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "wire: SASL %s: %v", e.Mechanism, e.API)
	switch {
	case e.Closed:
		b.WriteString(": the broker closed the connection")
	case e.Code != codec.None:
		fmt.Fprintf(&b, " answered %v", e.Code)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, " (%q)", e.Message)
	}
	if len(e.Enabled) > 0 {
		fmt.Fprintf(&b, "; the broker enables %s", strings.Join(e.Enabled, ", "))
	}
	if e.Detail != "" {
		b.WriteString(": " + e.Detail)
	}
	return b.String()
}

// Unwrap makes every AuthError an ErrAuth.
func (e *AuthError) Unwrap() error { return ErrAuth }

// maxSASLRounds bounds the SaslAuthenticate round trips of one exchange
// (PLAIN takes one, SCRAM two): a broker that keeps answering cannot keep
// the client in the exchange.
const maxSASLRounds = 4

// Authentication is what a SASL exchange settled.
type Authentication struct {
	Mechanism string
	// Lifetime is the session lifetime the broker gave (SaslAuthenticate
	// v1+, KIP-368): it closes the connection once it has passed unless
	// the client authenticates again. 0: the session does not expire.
	Lifetime time.Duration
}

// Authenticate runs a SASL exchange on a new connection, with headers
// from hm (so the connection's first request carries the ClientId, as
// KIP-1313 wants): SaslHandshake v1 naming the mechanism, then the
// mechanism's tokens in SaslAuthenticate requests at the highest version
// both sides speak. vs are the broker's api versions (nil: ask ApiVersions
// first on this connection, as Kafka's clients do). A refusal is an
// *AuthError (ErrAuth); a transport error wraps ErrNoResponse, and leaves
// the connection unusable either way. Brokers before Kafka 1.0, which
// offer only SaslHandshake v0 and its unframed tokens, are refused.
func (c *Conn) Authenticate(hm *Headers, s *SASL, vs Versions) (*Authentication, error) {
	name, err := s.mechanism()
	if err != nil {
		return nil, err
	}
	fail := func(api codec.APIKey, detail string) error {
		return &AuthError{Mechanism: name, API: api, Detail: detail}
	}
	if vs == nil {
		n, err := c.Negotiate(hm, NegotiateOptions{})
		if err != nil {
			return nil, fmt.Errorf("ApiVersions before SASL: %w (%s)", err, n)
		}
		vs = n.Versions
	}
	hv, err := vs.Pick(codec.SaslHandshake, 1, 1)
	if err != nil {
		return nil, fail(codec.SaslHandshake, err.Error()+" (SaslHandshake v0's unframed tokens, Kafka before 1.0, are not spoken)")
	}
	av, err := vs.Pick(codec.SaslAuthenticate, 0, codec.Lookup(codec.SaslAuthenticate).MaxVersion)
	if err != nil {
		return nil, fail(codec.SaslAuthenticate, err.Error())
	}
	hs, err := c.RoundTrip(hm.Next(codec.SaslHandshake, hv), &codec.SaslHandshakeRequest{Mechanism: name})
	if err != nil {
		return nil, authTransport(name, codec.SaslHandshake, err)
	}
	if r := hs.(*codec.SaslHandshakeResponse); r.ErrorCode != codec.None {
		e := &AuthError{Mechanism: name, API: codec.SaslHandshake, Code: r.ErrorCode, Enabled: capStrings(r.Mechanisms)}
		if r.ErrorCode == codec.IllegalSaslState {
			e.Detail = "does this listener take SASL?"
		}
		return nil, e
	}
	m, err := newMechanism(name, s)
	if err != nil {
		return nil, fail(codec.SaslAuthenticate, err.Error())
	}
	pass := s.Password.Reveal()
	a := &Authentication{Mechanism: name}
	tok, done, err := m.step(nil)
	for round := 0; !done; round++ {
		if err != nil {
			return nil, fail(codec.SaslAuthenticate, scrub(err.Error(), pass))
		}
		if round == maxSASLRounds {
			return nil, fail(codec.SaslAuthenticate, fmt.Sprintf("not done after %d round trips", maxSASLRounds))
		}
		resp, rerr := c.RoundTrip(hm.Next(codec.SaslAuthenticate, av), &codec.SaslAuthenticateRequest{AuthBytes: tok})
		if rerr != nil {
			return nil, authTransport(name, codec.SaslAuthenticate, rerr)
		}
		r := resp.(*codec.SaslAuthenticateResponse)
		if r.ErrorCode != codec.None {
			return nil, &AuthError{Mechanism: name, API: codec.SaslAuthenticate, Code: r.ErrorCode,
				Message: scrub(capString(r.ErrorMessage.Value), pass)}
		}
		if r.SessionLifetimeMs > 0 {
			a.Lifetime = time.Duration(min(r.SessionLifetimeMs, int64(maxLifetime/time.Millisecond))) * time.Millisecond
		}
		tok, done, err = m.step(r.AuthBytes)
	}
	if err != nil {
		return nil, fail(codec.SaslAuthenticate, scrub(err.Error(), pass))
	}
	return a, nil
}

// maxLifetime caps a session lifetime a broker gives, so that adding it
// to a time cannot overflow.
const maxLifetime = 100 * 365 * 24 * time.Hour

// authTransport is a transport error of the exchange: the broker closing
// the connection there is how some brokers (kfake among them, and Kafka
// before 1.0 for any failure) refuse credentials, so it is an AuthError;
// anything else (a timeout, a reset) stays the transport error it is.
func authTransport(name string, api codec.APIKey, err error) error {
	if errors.Is(err, ErrConnClosed) {
		return &AuthError{Mechanism: name, API: api, Closed: true,
			Detail: "a wrong user or password, a mechanism this user has no credentials for, or a listener that does not take SASL"}
	}
	return fmt.Errorf("SASL %s: %v: %w", name, api, err)
}

// scrub cuts the password out of a message a broker or a library made.
func scrub(msg, pass string) string {
	if pass == "" {
		return msg
	}
	return strings.ReplaceAll(msg, pass, redacted)
}

// Caps on what a broker's refusal may put into an error.
const (
	maxMessage    = 512
	maxMechanisms = 16
)

func capString(s string) string {
	if len(s) > maxMessage {
		return s[:maxMessage] + "..."
	}
	return s
}

func capStrings(ss []string) []string {
	out := make([]string, 0, min(len(ss), maxMechanisms))
	for i, s := range ss {
		if i == maxMechanisms {
			out = append(out, fmt.Sprintf("(%d more)", len(ss)-i))
			break
		}
		out = append(out, capString(s))
	}
	return out
}

// mechanism is the client side of one SASL mechanism's exchange.
type mechanism interface {
	// step takes the broker's last token (nil before the first) and
	// returns the next token to send, or done once the exchange is
	// complete on the client's side (for SCRAM: the broker's signature
	// verified).
	step(challenge []byte) (token []byte, done bool, err error)
}

func newMechanism(name string, s *SASL) (mechanism, error) {
	switch name {
	case codec.MechanismPlain:
		return &plain{user: s.User, pass: s.Password}, nil
	case codec.MechanismScramSHA256, codec.MechanismScramSHA512:
		hash := scram.SHA256
		if name == codec.MechanismScramSHA512 {
			hash = scram.SHA512
		}
		// Unprepped: Kafka's SCRAM hashes the password's UTF-8 bytes as
		// they are, without SASLprep.
		cl, err := hash.NewClientUnprepped(s.User, s.Password.Reveal(), "")
		if err != nil {
			return nil, err
		}
		return &scramConv{conv: cl.NewConversation()}, nil
	}
	return nil, fmt.Errorf("no client for mechanism %s", name)
}

// plain is RFC 4616: one token, authzid empty, NUL user NUL password.
type plain struct {
	user string
	pass Secret
	sent bool
}

func (p *plain) step([]byte) ([]byte, bool, error) {
	if p.sent {
		return nil, true, nil
	}
	p.sent = true
	return []byte("\x00" + p.user + "\x00" + p.pass.Reveal()), false, nil
}

// scramConv is RFC 5802 through xdg-go/scram: client-first, then
// client-final from the server-first, then the server-final verified.
type scramConv struct{ conv *scram.ClientConversation }

func (s *scramConv) step(challenge []byte) ([]byte, bool, error) {
	out, err := s.conv.Step(string(challenge))
	if err != nil {
		return nil, false, fmt.Errorf("SCRAM: %w", err)
	}
	if s.conv.Done() {
		if !s.conv.Valid() {
			return nil, false, errors.New("SCRAM: the broker's signature does not verify")
		}
		return nil, true, nil
	}
	return []byte(out), false, nil
}
