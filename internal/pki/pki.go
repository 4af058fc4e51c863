// Package pki makes a throwaway certificate authority: a CA, a server
// certificate it signed for 127.0.0.1 and "localhost", and a client
// certificate it signed, written as PEM files. Tests use it for brokers
// with TLS listeners (internal/nettest.NewPKI), and ghostcheck-cluster for
// a local cluster a user can try --tls against. It is for tests and demos
// only: the keys sit unencrypted in the directory given, and the
// certificates last Validity.
package pki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// Validity is how long the certificates last from when they are made (and
// an hour before, for clocks a little behind).
const Validity = 30 * 24 * time.Hour

// PKI is a certificate authority, the server certificate it signed, and
// the files the client side reads.
type PKI struct {
	// Server is the brokers' certificate and key.
	Server tls.Certificate
	// Pool holds the CA, for a listener that verifies clients.
	Pool *x509.CertPool
	// CAFile is the CA (what --tls-ca reads); CertFile and KeyFile are
	// the client's certificate and key (--tls-cert, --tls-key).
	CAFile, CertFile, KeyFile string
}

// Make makes a CA and its two certificates, writing the CA and the
// client's certificate and key into dir (ca.pem, client.pem,
// client-key.pem; the key readable by the owner only).
func Make(dir string) (*PKI, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ghostcheck throwaway CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(Validity), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	p := &PKI{Pool: x509.NewCertPool(), CAFile: filepath.Join(dir, "ca.pem"),
		CertFile: filepath.Join(dir, "client.pem"), KeyFile: filepath.Join(dir, "client-key.pem")}
	p.Pool.AddCert(ca)
	leaf := func(serial int64, usage x509.ExtKeyUsage) ([]byte, *ecdsa.PrivateKey, error) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, nil, err
		}
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "ghostcheck throwaway"},
			NotBefore: now.Add(-time.Hour), NotAfter: now.Add(Validity),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
			IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"}}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		return der, key, err
	}
	sDER, sKey, err := leaf(2, x509.ExtKeyUsageServerAuth)
	if err != nil {
		return nil, err
	}
	p.Server = tls.Certificate{Certificate: [][]byte{sDER}, PrivateKey: sKey}
	cDER, cKey, err := leaf(3, x509.ExtKeyUsageClientAuth)
	if err != nil {
		return nil, err
	}
	kDER, err := x509.MarshalECPrivateKey(cKey)
	if err != nil {
		return nil, err
	}
	for _, f := range []struct {
		path, kind string
		der        []byte
	}{{p.CAFile, "CERTIFICATE", caDER}, {p.CertFile, "CERTIFICATE", cDER}, {p.KeyFile, "EC PRIVATE KEY", kDER}} {
		if err := os.WriteFile(f.path, pem.EncodeToMemory(&pem.Block{Type: f.kind, Bytes: f.der}), 0o600); err != nil {
			return nil, fmt.Errorf("pki: %w", err)
		}
	}
	return p, nil
}

// ServerConfig is a broker listener's configuration; requireClient asks
// for a client certificate signed by the CA.
func (p *PKI) ServerConfig(requireClient bool) *tls.Config {
	c := &tls.Config{Certificates: []tls.Certificate{p.Server}, MinVersion: tls.VersionTLS12}
	if requireClient {
		c.ClientAuth = tls.RequireAndVerifyClientCert
		c.ClientCAs = p.Pool
	}
	return c
}
