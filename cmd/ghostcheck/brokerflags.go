package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ghostcheck/ghostcheck/wire"
)

// passwordEnv is the environment variable a SASL password may come from.
// The password is never a flag: a flag shows in ps and in shell history.
const passwordEnv = "GHOSTCHECK_SASL_PASSWORD"

// brokerFlags are the flags of every command that dials a broker (check,
// members, replay --bootstrap, proxy's upstream): where the cluster is,
// and how its listeners want to be spoken to (TLS, SASL). One helper, so
// the commands take the same flags, read the password the same way and
// refuse the same mistakes.
type brokerFlags struct {
	bootstrap string
	tls       bool
	files     wire.TLSFiles
	mechanism string
	user      string
	pwFile    string
	// which names the flag that gives the addresses ("bootstrap", or
	// proxy's "upstream"); sasl says the SASL flags were registered.
	which string
	sasl  bool
}

// register adds the flags to fs; bootstrapFlag names the addresses' flag
// and bootstrapHelp says what they are for the command.
func (b *brokerFlags) register(fs *flag.FlagSet, bootstrapFlag, bootstrapHelp string) {
	b.registerTLS(fs, bootstrapFlag, bootstrapHelp+" (`HOST:PORT[,HOST:PORT...]`: each tried in turn for the cluster's brokers)")
	b.sasl = true
	fs.StringVar(&b.mechanism, "sasl-mechanism", "", "authenticate with SASL `MECHANISM`: PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512")
	fs.StringVar(&b.user, "sasl-user", "", "the SASL `USER`")
	fs.StringVar(&b.pwFile, "sasl-password-file", "", "a `FILE` holding the SASL password (one trailing newline dropped); else the environment's "+passwordEnv+"; never a flag")
}

// registerTLS adds the address flag (its help as given) and the TLS
// flags, not the SASL ones: for proxy, which passes its clients' own SASL
// exchange through.
func (b *brokerFlags) registerTLS(fs *flag.FlagSet, bootstrapFlag, bootstrapHelp string) {
	b.which = bootstrapFlag
	fs.StringVar(&b.bootstrap, bootstrapFlag, "", bootstrapHelp)
	fs.BoolVar(&b.tls, "tls", false, "connect with TLS, checking the brokers' certificates against the system's roots (or --tls-ca)")
	fs.StringVar(&b.files.CAFile, "tls-ca", "", "a PEM `FILE` of the certificates that sign the brokers' (implies --tls)")
	fs.StringVar(&b.files.CertFile, "tls-cert", "", "the client certificate, a PEM `FILE`, for listeners that ask for one (with --tls-key; implies --tls)")
	fs.StringVar(&b.files.KeyFile, "tls-key", "", "the client certificate's key, a PEM `FILE` (with --tls-cert)")
	fs.StringVar(&b.files.ServerName, "tls-server-name", "", "the `NAME` the brokers' certificates are checked against (default: the host dialled)")
	fs.BoolVar(&b.files.InsecureSkipVerify, "tls-insecure", false, "accept any broker certificate (a test cluster only; implies --tls)")
}

// addrs are the bootstrap addresses given, trimmed.
func (b *brokerFlags) addrs() []string {
	var out []string
	for _, a := range strings.Split(b.bootstrap, ",") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

// usesTLS reports whether the flags ask for TLS (any TLS flag does).
func (b *brokerFlags) usesTLS() bool {
	f := b.files
	return b.tls || f.CAFile != "" || f.CertFile != "" || f.KeyFile != "" || f.InsecureSkipVerify || f.ServerName != ""
}

// dialer makes the Dialer the flags ask for, reading the CA, the client
// certificate and the password. Its error says which flag is wrong and
// never holds the password: a usage error (exit 2), nothing was dialled.
// --tls-insecure warns on stderr.
func (b *brokerFlags) dialer(stderr io.Writer) (wire.Dialer, error) {
	var d wire.Dialer
	if b.usesTLS() {
		cfg, err := b.files.Config()
		if err != nil {
			return d, fmt.Errorf("--tls: %w", err)
		}
		d.TLS = cfg
		if b.files.InsecureSkipVerify {
			fmt.Fprintln(stderr, "warning: --tls-insecure: the brokers' certificates are not checked; anyone on the way can read and change the traffic")
		}
	}
	if !b.sasl {
		return d, nil
	}
	switch {
	case b.mechanism == "" && (b.user != "" || b.pwFile != ""):
		return d, errors.New("--sasl-user and --sasl-password-file need --sasl-mechanism")
	case b.mechanism == "":
		if os.Getenv(passwordEnv) != "" {
			return d, fmt.Errorf("%s is set but --sasl-mechanism is not: give the mechanism, or unset it", passwordEnv)
		}
		return d, nil
	}
	s := &wire.SASL{Mechanism: b.mechanism, User: b.user}
	env := os.Getenv(passwordEnv)
	switch {
	case b.pwFile != "" && env != "":
		return d, fmt.Errorf("two passwords: --sasl-password-file and %s; give one", passwordEnv)
	case b.pwFile != "":
		pw, err := wire.ReadSecretFile(b.pwFile)
		if err != nil {
			return d, fmt.Errorf("--sasl-password-file: %w", err)
		}
		s.Password = pw
	case env != "":
		s.Password = wire.NewSecret(env)
	default:
		return d, fmt.Errorf("--sasl-mechanism %s needs a password: --sasl-password-file FILE, or %s", b.mechanism, passwordEnv)
	}
	if err := s.Check(); err != nil {
		return d, fmt.Errorf("--sasl-*: %w", err)
	}
	d.SASL = s
	return d, nil
}

// options are the connection settings as a report or JUnit records them:
// whether TLS, which SASL mechanism; never the user or the password.
func (b *brokerFlags) options(into map[string]any) {
	if b.usesTLS() {
		into["tls"] = true
		if b.files.InsecureSkipVerify {
			into["tlsInsecure"] = true
		}
	}
	if b.mechanism != "" {
		into["sasl"] = strings.ToUpper(b.mechanism)
	}
}

// replayFlags are the flags a printed command needs to reach the cluster
// the same way: the TLS files as given, the SASL mechanism, and
// placeholders for the user and the password file, which are never
// printed.
func (b *brokerFlags) replayFlags() string {
	var out []string
	f := b.files
	if b.usesTLS() {
		out = append(out, "--tls")
	}
	for _, kv := range [][2]string{{"--tls-ca", f.CAFile}, {"--tls-cert", f.CertFile}, {"--tls-key", f.KeyFile}, {"--tls-server-name", f.ServerName}} {
		if kv[1] != "" {
			out = append(out, kv[0], kv[1])
		}
	}
	if f.InsecureSkipVerify {
		out = append(out, "--tls-insecure")
	}
	if b.mechanism != "" {
		out = append(out, "--sasl-mechanism", b.mechanism, "--sasl-user", "USER", "--sasl-password-file", "FILE")
	}
	if len(out) == 0 {
		return ""
	}
	return " " + strings.Join(out, " ")
}

// dialFailed prints why a command could not reach the cluster and returns
// its exit status: 2 when the cluster refused the connection's security
// (a wrong user or password, a mechanism it does not enable, a
// certificate it or we do not accept), which no retry fixes and which is
// not a finding against the broker; 1 otherwise (a broker that cannot be
// reached, an answer that makes no sense).
func dialFailed(stderr io.Writer, cmd string, err error) int {
	switch {
	case errors.Is(err, wire.ErrAuth):
		fmt.Fprintf(stderr, "ghostcheck %s: authentication failed: %v\n", cmd, err)
		fmt.Fprintln(stderr, "nothing was checked: check --sasl-mechanism, --sasl-user and the password (--sasl-password-file or "+passwordEnv+").")
		return exitUsage
	case isTLSError(err):
		fmt.Fprintf(stderr, "ghostcheck %s: TLS failed: %v\n", cmd, err)
		fmt.Fprintln(stderr, "nothing was checked: check --tls-ca, --tls-cert, --tls-key and --tls-server-name (does the listener speak TLS?).")
		return exitUsage
	}
	fmt.Fprintf(stderr, "ghostcheck %s: %v\n", cmd, err)
	return exitFailed
}

// isTLSError reports a TLS handshake that failed: a certificate refused
// (either way), an alert, a listener that does not speak TLS.
func isTLSError(err error) bool {
	var cv *tls.CertificateVerificationError
	var alert tls.AlertError
	var rh tls.RecordHeaderError
	var ua x509.UnknownAuthorityError
	var hn x509.HostnameError
	var ci x509.CertificateInvalidError
	return errors.As(err, &cv) || errors.As(err, &alert) || errors.As(err, &rh) || errors.As(err, &ua) || errors.As(err, &hn) || errors.As(err, &ci) ||
		strings.Contains(err.Error(), "TLS handshake")
}
