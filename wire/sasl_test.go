package wire_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/internal/kfaketest"
	"github.com/ghostcheck/ghostcheck/internal/nettest"
	"github.com/ghostcheck/ghostcheck/wire"
)

func newHeaders(t *testing.T, clientID string) *wire.Headers {
	t.Helper()
	hm, err := wire.NewHeaders(codec.Str(clientID), codec.UUID{0x77, 1})
	if err != nil {
		t.Fatal(err)
	}
	return hm
}

// describe asks for a group on an authenticated connection: kfake closes
// a connection that sends it before authenticating, so an answer shows
// the exchange really authenticated.
func describe(t *testing.T, c *wire.Conn, hm *wire.Headers) {
	t.Helper()
	resp, err := c.RoundTrip(hm.Next(codec.ConsumerGroupDescribe, 0), &codec.ConsumerGroupDescribeRequest{GroupIds: []string{"g"}})
	if err != nil {
		t.Fatalf("a request after authenticating: %v", err)
	}
	if n := len(resp.(*codec.ConsumerGroupDescribeResponse).Groups); n != 1 {
		t.Fatalf("describe answered %d groups, want 1", n)
	}
}

const testPassword = "pw-Sesame-4711"

// Each mechanism authenticates against kfake with the user's password,
// and the connection then serves requests; the wrong password is an
// ErrAuth whose message holds no password.
func TestSASLAgainstKfake(t *testing.T) {
	for _, mech := range wire.Mechanisms() {
		t.Run(mech, func(t *testing.T) {
			c := kfaketest.Start(t, kfake.NumBrokers(1), kfake.EnableSASL(), kfake.Superuser(mech, "alice", testPassword))
			addr := c.ListenAddrs()[0]
			ctx := context.Background()

			d := &wire.Dialer{Options: wire.Options{Timeout: 5 * time.Second},
				SASL: &wire.SASL{Mechanism: strings.ToLower(mech), User: "alice", Password: wire.NewSecret(testPassword)}}
			hm := newHeaders(t, "sasl-test")
			conn, p, err := d.Dial(ctx, addr, hm)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if p.Auth == nil || p.Auth.Mechanism != mech || p.Negotiation == nil {
				t.Fatalf("prelude %+v, want %s and the negotiation it needed", p, mech)
			}
			describe(t, conn, hm)

			wrong := *d.SASL
			wrong.Password = wire.NewSecret(testPassword + "-wrong")
			d.SASL = &wrong
			_, _, err = d.Dial(ctx, addr, newHeaders(t, "sasl-test"))
			if !errors.Is(err, wire.ErrAuth) {
				t.Fatalf("wrong password: %v, want ErrAuth", err)
			}
			t.Logf("wrong password: %v", err)
			if errors.Is(err, wire.ErrNoResponse) {
				t.Fatalf("wrong password reads as a request of unknown outcome: %v", err)
			}
			for _, s := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
				if strings.Contains(s, testPassword) {
					t.Fatalf("the error shows the password: %s", s)
				}
			}
		})
	}
}

// Without SASL, kfake with SASL enabled serves nothing: the SASL tests
// above would fail if authentication were skipped.
func TestKfakeWithSASLRefusesUnauthenticated(t *testing.T) {
	c := kfaketest.Start(t, kfake.NumBrokers(1), kfake.EnableSASL(), kfake.Superuser(codec.MechanismPlain, "alice", testPassword))
	d := &wire.Dialer{Options: wire.Options{Timeout: 5 * time.Second}}
	hm := newHeaders(t, "no-sasl")
	conn, _, err := d.Dial(context.Background(), c.ListenAddrs()[0], hm)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, err = conn.RoundTrip(hm.Next(codec.ConsumerGroupDescribe, 0), &codec.ConsumerGroupDescribeRequest{GroupIds: []string{"g"}})
	if !errors.Is(err, wire.ErrConnClosed) {
		t.Fatalf("an unauthenticated request: %v, want the connection closed", err)
	}
}

// A SASL user of one mechanism is refused under another: kfake closes the
// connection, which is an ErrAuth saying what it may mean.
func TestSASLMechanismWithoutCredentials(t *testing.T) {
	c := kfaketest.Start(t, kfake.NumBrokers(1), kfake.EnableSASL(), kfake.Superuser(codec.MechanismPlain, "alice", testPassword))
	d := &wire.Dialer{Options: wire.Options{Timeout: 5 * time.Second},
		SASL: &wire.SASL{Mechanism: codec.MechanismScramSHA512, User: "alice", Password: wire.NewSecret(testPassword)}}
	_, _, err := d.Dial(context.Background(), c.ListenAddrs()[0], newHeaders(t, "x"))
	var ae *wire.AuthError
	if !errors.As(err, &ae) || !ae.Closed || ae.API != codec.SaslAuthenticate {
		t.Fatalf("got %v, want an AuthError: the broker closed the connection at SaslAuthenticate", err)
	}
}

// The broker's refusals are AuthErrors with what it said: the mechanisms
// it enables, or its message (with the password cut out, should a broker
// echo it).
func TestSASLRefusals(t *testing.T) {
	offers := func(r request) []byte {
		vs := codec.NewApiVersionsResponse()
		vs.ApiKeys = []codec.ApiVersionsKey{{ApiKey: codec.ApiVersions, MaxVersion: 3},
			{ApiKey: codec.SaslHandshake, MaxVersion: 1}, {ApiKey: codec.SaslAuthenticate, MaxVersion: 2}}
		return reply(t, r.Header.CorrelationId, r.Header.RequestApiVersion, vs)
	}
	cases := []struct {
		name   string
		answer func(t *testing.T, r request) []byte
		check  func(e *wire.AuthError) bool
	}{
		{"handshake: mechanism not enabled", func(t *testing.T, r request) []byte {
			return reply(t, r.Header.CorrelationId, 1, &codec.SaslHandshakeResponse{ErrorCode: codec.UnsupportedSaslMechanism,
				Mechanisms: []string{"GSSAPI", "OAUTHBEARER"}})
		}, func(e *wire.AuthError) bool {
			return e.Code == codec.UnsupportedSaslMechanism && strings.Join(e.Enabled, ",") == "GSSAPI,OAUTHBEARER"
		}},
		{"authenticate: failed, the message echoing the password", func(t *testing.T, r request) []byte {
			if r.Header.RequestApiKey == codec.SaslHandshake {
				return reply(t, r.Header.CorrelationId, 1, &codec.SaslHandshakeResponse{})
			}
			return reply(t, r.Header.CorrelationId, r.Header.RequestApiVersion, &codec.SaslAuthenticateResponse{
				ErrorCode: codec.SaslAuthenticationFailed, ErrorMessage: codec.Str("bad password " + testPassword + " for alice")})
		}, func(e *wire.AuthError) bool {
			return e.Code == codec.SaslAuthenticationFailed && e.Message == "bad password [redacted] for alice"
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := startBroker(t, func(r request) []byte {
				if r.Header.RequestApiKey == codec.ApiVersions {
					return offers(r)
				}
				return tc.answer(t, r)
			})
			d := &wire.Dialer{Options: wire.Options{Timeout: 2 * time.Second},
				SASL: &wire.SASL{Mechanism: codec.MechanismPlain, User: "alice", Password: wire.NewSecret(testPassword)}}
			_, _, err := d.Dial(context.Background(), b.addr, newHeaders(t, "x"))
			var ae *wire.AuthError
			if !errors.As(err, &ae) || !tc.check(ae) {
				t.Fatalf("got %#v (%v)", ae, err)
			}
			if strings.Contains(err.Error(), testPassword) {
				t.Fatalf("the error shows the password: %v", err)
			}
			// KIP-1313 headers in the exchange: ClientId on the first
			// request of the connection only, the instance id in every
			// v2 header.
			hs := b.headers()
			if len(hs) < 2 || !hs[0].ClientId.Valid || hs[1].ClientId.Valid {
				t.Fatalf("ClientId per request: %+v", hs)
			}
		})
	}
}

// A broker offering only SaslHandshake v0 (Kafka before 1.0) is refused
// with a reason, not spoken to in its unframed token form.
func TestSASLHandshakeV0Refused(t *testing.T) {
	b := startBroker(t, func(r request) []byte {
		vs := codec.NewApiVersionsResponse()
		vs.ApiKeys = []codec.ApiVersionsKey{{ApiKey: codec.ApiVersions, MaxVersion: 0}, {ApiKey: codec.SaslHandshake, MaxVersion: 0}}
		return reply(t, r.Header.CorrelationId, 0, vs)
	})
	d := &wire.Dialer{SASL: &wire.SASL{Mechanism: codec.MechanismPlain, User: "u", Password: wire.NewSecret("p")}}
	_, _, err := d.Dial(context.Background(), b.addr, newHeaders(t, "x"))
	if !errors.Is(err, wire.ErrAuth) || !strings.Contains(err.Error(), "v0") {
		t.Fatalf("got %v", err)
	}
}

// A SASL setting that cannot work is refused before dialling.
func TestSASLCheck(t *testing.T) {
	cases := []struct {
		s    wire.SASL
		want string
	}{
		{wire.SASL{Mechanism: "GSSAPI", User: "u", Password: wire.NewSecret("p")}, "want one of PLAIN, SCRAM-SHA-256, SCRAM-SHA-512"},
		{wire.SASL{Mechanism: "PLAIN", Password: wire.NewSecret("p")}, "needs a user"},
		{wire.SASL{Mechanism: "PLAIN", User: "u"}, "password is empty"},
	}
	for _, tc := range cases {
		if err := tc.s.Check(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.s, err, tc.want)
		}
	}
}

// A Secret shows as [redacted] whatever prints it: fmt verbs, inside
// structs (exported field or not), JSON, slog.
func TestSecretRedacted(t *testing.T) {
	s := wire.NewSecret(testPassword)
	type holder struct {
		Exported wire.Secret
		hidden   wire.Secret
		SASL     *wire.SASL
	}
	h := holder{s, s, &wire.SASL{User: "u", Password: s}}
	var outs []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d"} {
		outs = append(outs, fmt.Sprintf(verb, s), fmt.Sprintf(verb, h), fmt.Sprintf(verb, *h.SASL))
	}
	j, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	outs = append(outs, string(j))
	var sb strings.Builder
	slog.New(slog.NewTextHandler(&sb, nil)).Info("x", "password", s, "sasl", h.SASL)
	outs = append(outs, sb.String())
	for _, o := range outs {
		if strings.Contains(o, testPassword) || strings.Contains(o, fmt.Sprintf("%x", testPassword)) {
			t.Fatalf("printed the password: %s", o)
		}
	}
	if s.Reveal() != testPassword || !strings.Contains(fmt.Sprint(s), "[redacted]") {
		t.Fatalf("Reveal %q, printed %v", s.Reveal(), s)
	}
}

// ReadSecretFile drops one line end and refuses an empty or huge file,
// naming the file and never its contents.
func TestReadSecretFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for body, want := range map[string]string{"a b\n": "a b", "x\r\n": "x", "y\n\n": "y\n", "z\r": "z\r"} {
		s, err := wire.ReadSecretFile(write("f", body))
		if err != nil || s.Reveal() != want {
			t.Errorf("%q: %q, %v; want %q", body, s.Reveal(), err, want)
		}
	}
	if _, err := wire.ReadSecretFile(write("empty", "\n")); err == nil {
		t.Error("an empty password was read")
	}
	if _, err := wire.ReadSecretFile(write("big", strings.Repeat(testPassword, 10000))); err == nil || strings.Contains(err.Error(), testPassword) {
		t.Errorf("a huge file: %v", err)
	}
}

// TLS to kfake's TLS listeners with a CA made here: verified by the CA
// file, with a client certificate where the listener requires one; an
// unknown CA fails the handshake; --tls-insecure accepts it. SASL runs
// over TLS.
func TestTLSAgainstKfake(t *testing.T) {
	pki := nettest.NewPKI(t)
	ctx := context.Background()
	c := kfaketest.Start(t, kfake.NumBrokers(1), kfake.TLS(pki.ServerConfig(true)),
		kfake.EnableSASL(), kfake.Superuser(codec.MechanismScramSHA512, "alice", testPassword))
	addr := c.ListenAddrs()[0]
	sasl := &wire.SASL{Mechanism: codec.MechanismScramSHA512, User: "alice", Password: wire.NewSecret(testPassword)}

	dial := func(f wire.TLSFiles) error {
		cfg, err := f.Config()
		if err != nil {
			t.Fatal(err)
		}
		d := &wire.Dialer{Options: wire.Options{Timeout: 5 * time.Second}, TLS: cfg, SASL: sasl}
		hm := newHeaders(t, "tls")
		conn, _, err := d.Dial(ctx, addr, hm)
		if err != nil {
			return err
		}
		defer conn.Close()
		if _, ok := conn.NetConn().(*tls.Conn); !ok {
			t.Fatalf("the connection is a %T, not TLS", conn.NetConn())
		}
		// TLS 1.3 session tickets may wait on the socket: not bytes
		// unasked, and not a close.
		if conn.PeerClosed() {
			t.Fatal("a fresh TLS connection reads as closed")
		}
		describe(t, conn, hm)
		if conn.PeerClosed() {
			t.Fatal("an idle TLS connection reads as closed")
		}
		describe(t, conn, hm)
		return nil
	}
	if err := dial(wire.TLSFiles{CAFile: pki.CAFile, CertFile: pki.CertFile, KeyFile: pki.KeyFile}); err != nil {
		t.Fatalf("CA and client certificate: %v", err)
	}
	if err := dial(wire.TLSFiles{CAFile: pki.CAFile}); err == nil {
		t.Fatal("a listener requiring a client certificate took a client without one")
	}
	if err := dial(wire.TLSFiles{CertFile: pki.CertFile, KeyFile: pki.KeyFile}); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("a broker certificate signed by an unknown CA: %v", err)
	}
	if err := dial(wire.TLSFiles{CertFile: pki.CertFile, KeyFile: pki.KeyFile, InsecureSkipVerify: true}); err != nil {
		t.Fatalf("insecure: %v", err)
	}
	if err := dial(wire.TLSFiles{CAFile: pki.CAFile, CertFile: pki.CertFile, KeyFile: pki.KeyFile, ServerName: "not-the-broker"}); err == nil {
		t.Fatal("a server name the certificate does not hold was accepted")
	}
}

// TLSFiles refuse what cannot work, naming the file.
func TestTLSFilesErrors(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.pem")
	if err := os.WriteFile(junk, []byte("not pem"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		f    wire.TLSFiles
		want string
	}{
		{wire.TLSFiles{CAFile: filepath.Join(dir, "missing")}, "missing"},
		{wire.TLSFiles{CAFile: junk}, "no PEM certificate"},
		{wire.TLSFiles{CertFile: junk}, "needs its key"},
		{wire.TLSFiles{CertFile: junk, KeyFile: junk}, "client certificate"},
	}
	for _, tc := range cases {
		if _, err := tc.f.Config(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.f, err, tc.want)
		}
	}
}

// A broker that bounds sessions (KIP-368, connections.max.reauth.ms)
// says for how long in SaslAuthenticate v1+; the Prelude keeps it, so a
// caller knows when the broker will close the connection.
func TestSASLSessionLifetime(t *testing.T) {
	c := kfaketest.Start(t, kfake.NumBrokers(1), kfake.EnableSASL(), kfake.Superuser(codec.MechanismPlain, "alice", testPassword),
		kfake.BrokerConfigs(map[string]string{"connections.max.reauth.ms": "60000"}))
	d := &wire.Dialer{Options: wire.Options{Timeout: 5 * time.Second},
		SASL: &wire.SASL{Mechanism: codec.MechanismPlain, User: "alice", Password: wire.NewSecret(testPassword)}}
	conn, p, err := d.Dial(context.Background(), c.ListenAddrs()[0], newHeaders(t, "x"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if p.Auth.Lifetime != time.Minute {
		t.Fatalf("lifetime %v, want 1m", p.Auth.Lifetime)
	}
}
