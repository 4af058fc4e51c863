package wire

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
)

// Dialer opens connections to brokers the way a cluster's listeners want
// them: TCP, then TLS when TLS is set, then a SASL exchange when SASL is
// set. Its zero value dials plaintext with Options' defaults, like Dial.
// A Dialer is not changed by dialling and may be shared.
type Dialer struct {
	// Options shape each connection (timeout, response cap).
	Options
	// TLS is the client configuration (nil: plaintext). A configuration
	// without ServerName checks the certificate against the host of the
	// address dialled.
	TLS *tls.Config
	// SASL authenticates each connection (nil: none).
	SASL *SASL
	// Wrap, if set, wraps each connection's socket after TLS (so it sees
	// the plaintext frames): a test or a recorder that keeps what was
	// written.
	Wrap func(net.Conn) net.Conn
}

// Prelude is what was done on a new connection before the caller's first
// request: the ApiVersions negotiation (when SASL needed the versions, or
// DialNegotiated asked for it) and the SASL exchange.
type Prelude struct {
	Negotiation *Negotiation
	Auth        *Authentication
}

// DialNet opens the socket to addr: TCP, and the TLS handshake when TLS
// is set, bounded by ctx and Options.Timeout. For a caller that wraps the
// socket before it speaks Kafka over it (then Conn.Authenticate); Dial
// does the rest.
func (d *Dialer) DialNet(ctx context.Context, addr string) (net.Conn, error) {
	o := d.Options.withDefaults()
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	nc, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	if tc, ok := nc.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	if d.TLS != nil {
		cfg := d.TLS
		if cfg.ServerName == "" && !cfg.InsecureSkipVerify {
			host, _, err := net.SplitHostPort(addr)
			if err != nil {
				nc.Close()
				return nil, fmt.Errorf("TLS to %s: %w", addr, err)
			}
			cfg = cfg.Clone()
			cfg.ServerName = host
		}
		tc := tls.Client(nc, cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			nc.Close()
			return nil, fmt.Errorf("TLS handshake with %s: %w", addr, err)
		}
		nc = tc
	}
	if d.Wrap != nil {
		nc = d.Wrap(nc)
	}
	return nc, nil
}

// Dial connects to the broker at addr and, when SASL is set,
// authenticates (ApiVersions, SaslHandshake, SaslAuthenticate, with
// headers from hm: the first of them carries hm's ClientId). The caller
// goes on with the same hm. A refused authentication is an *AuthError
// (ErrAuth).
func (d *Dialer) Dial(ctx context.Context, addr string, hm *Headers) (*Conn, *Prelude, error) {
	return d.dial(ctx, addr, hm, nil)
}

// DialNegotiated is Dial, then the ApiVersions negotiation unless SASL
// already made it (one ApiVersions either way, with no's options).
func (d *Dialer) DialNegotiated(ctx context.Context, addr string, hm *Headers, no NegotiateOptions) (*Conn, *Prelude, error) {
	return d.dial(ctx, addr, hm, &no)
}

func (d *Dialer) dial(ctx context.Context, addr string, hm *Headers, no *NegotiateOptions) (*Conn, *Prelude, error) {
	if d.SASL != nil {
		if err := d.SASL.Check(); err != nil {
			return nil, nil, err
		}
	}
	nc, err := d.DialNet(ctx, addr)
	if err != nil {
		return nil, nil, err
	}
	c := NewConn(nc, d.Options)
	p := &Prelude{}
	if d.SASL != nil || no != nil {
		var o NegotiateOptions
		if no != nil {
			o = *no
		}
		n, err := c.Negotiate(hm, o)
		if err != nil {
			c.Close()
			return nil, nil, fmt.Errorf("ApiVersions with %s: %w (%s)", addr, err, n)
		}
		p.Negotiation = n
	}
	if d.SASL != nil {
		a, err := c.Authenticate(hm, d.SASL, p.Negotiation.Versions)
		if err != nil {
			c.Close()
			return nil, nil, fmt.Errorf("%s: %w", addr, err)
		}
		p.Auth = a
	}
	return c, p, nil
}
