package wire

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
)

// Secret holds a credential (a SASL password) so that it cannot leak
// into output by accident: every fmt verb, %#v included, encoding/json,
// encoding text and log/slog show it as "[redacted]", and so does a struct
// that holds one, exported field or not (the value sits behind a pointer,
// which fmt does not follow inside a struct). Only Reveal gives the value,
// and only the SASL exchange calls it.
type Secret struct{ p *string }

// redacted is what a Secret prints as.
const redacted = "[redacted]"

// NewSecret wraps s.
func NewSecret(s string) Secret { return Secret{&s} }

// Reveal is the credential itself: for the wire, never for output.
func (s Secret) Reveal() string {
	if s.p == nil {
		return ""
	}
	return *s.p
}

// IsZero reports whether the secret is empty.
func (s Secret) IsZero() bool { return s.Reveal() == "" }

// String implements fmt.Stringer.
func (Secret) String() string { return redacted }

// GoString implements fmt.GoStringer.
func (Secret) GoString() string { return redacted }

// Format implements fmt.Formatter: whatever the verb, "[redacted]".
func (Secret) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, redacted) }

// MarshalJSON implements json.Marshaler.
func (Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// MarshalText implements encoding.TextMarshaler.
func (Secret) MarshalText() ([]byte, error) { return []byte(redacted), nil }

// LogValue implements slog.LogValuer.
func (Secret) LogValue() slog.Value { return slog.StringValue(redacted) }

// maxSecretFile caps a password file: a password is short; a file of
// megabytes is the wrong file.
const maxSecretFile = 64 << 10

// ReadSecretFile reads a credential from a file, dropping one trailing
// line end ("\n" or "\r\n") as an editor leaves it. Its errors name the
// file, never what it holds.
func ReadSecretFile(path string) (Secret, error) {
	f, err := os.Open(path)
	if err != nil {
		return Secret{}, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSecretFile+1))
	if err != nil {
		return Secret{}, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(b) > maxSecretFile {
		return Secret{}, fmt.Errorf("%s is larger than %d bytes: not a password file", path, maxSecretFile)
	}
	if nl, ok := bytes.CutSuffix(b, []byte("\n")); ok {
		b = bytes.TrimSuffix(nl, []byte("\r"))
	}
	if len(b) == 0 {
		return Secret{}, fmt.Errorf("%s: %w", path, errEmptySecret)
	}
	return NewSecret(string(b)), nil
}

var errEmptySecret = errors.New("the password is empty")
