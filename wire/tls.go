package wire

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
)

// TLSFiles say how to make a TLS client configuration from files, as the
// command line gives them (--tls-ca, --tls-cert, --tls-key,
// --tls-insecure, --tls-server-name).
type TLSFiles struct {
	// CAFile is a PEM file of the certificates that may sign a broker's
	// ("": the system's roots).
	CAFile string
	// CertFile and KeyFile are the client's certificate and key, PEM, for
	// brokers that ask for one (ssl.client.auth=required); both or
	// neither.
	CertFile, KeyFile string
	// ServerName is the name checked against the broker's certificate
	// ("": the host of the address dialled, which is what a broker's
	// advertised listener names).
	ServerName string
	// InsecureSkipVerify accepts any certificate: for a test cluster
	// only, since it gives up what TLS is for.
	InsecureSkipVerify bool
}

// Config makes the client configuration: TLS 1.2 or later.
func (f TLSFiles) Config() (*tls.Config, error) {
	c := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: f.ServerName, InsecureSkipVerify: f.InsecureSkipVerify}
	if f.CAFile != "" {
		pem, err := os.ReadFile(f.CAFile)
		if err != nil {
			return nil, fmt.Errorf("TLS CA: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("TLS CA: %s holds no PEM certificate", f.CAFile)
		}
		c.RootCAs = pool
	}
	switch {
	case f.CertFile != "" && f.KeyFile != "":
		cert, err := tls.LoadX509KeyPair(f.CertFile, f.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("TLS client certificate: %w", err)
		}
		c.Certificates = []tls.Certificate{cert}
	case f.CertFile != "" || f.KeyFile != "":
		return nil, errors.New("TLS client certificate: a certificate file needs its key file, and a key file its certificate")
	}
	return c, nil
}
