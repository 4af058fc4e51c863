package wire

import (
	"errors"
	"fmt"
	"io"

	"github.com/ghostcheck/ghostcheck/codec"
)

// ErrZeroInstanceID refuses the zero UUID as a client instance id: KIP-1313
// has a client make a random one and never send zero, which brokers take
// for "no id".
var ErrZeroInstanceID = errors.New("wire: the client instance id is the zero UUID")

// Headers makes the request headers of one connection as KIP-1313 wants
// them: correlation ids counting from 1, ClientId on the connection's
// first request only (null afterwards: the broker remembers the first),
// and the client instance id in tag 0 of every header that is v2 (which
// version an api's header has is codec's RequestHeaderVersion). Use one
// Headers per connection; a new connection needs a new one, or Reset.
type Headers struct {
	clientID codec.NullableString
	instance codec.UUID
	corr     int32
	made     int
}

// NewHeaders returns the header maker of a connection whose first request
// carries clientID (which may be null) and whose v2 headers carry
// instance. The zero UUID is refused (ErrZeroInstanceID).
func NewHeaders(clientID codec.NullableString, instance codec.UUID) (*Headers, error) {
	if instance.IsZero() {
		return nil, ErrZeroInstanceID
	}
	return &Headers{clientID: clientID, instance: instance}, nil
}

// NewInstanceID draws a client instance id from r (crypto/rand.Reader in
// production, a seeded source in a replayable test), drawing again in the
// astronomically unlikely case of the zero UUID.
func NewInstanceID(r io.Reader) (codec.UUID, error) {
	var u codec.UUID
	for u.IsZero() {
		if _, err := io.ReadFull(r, u[:]); err != nil {
			return codec.UUID{}, fmt.Errorf("wire: drawing a client instance id: %w", err)
		}
	}
	return u, nil
}

// Next returns the header of the connection's next request of key at
// version.
func (m *Headers) Next(key codec.APIKey, version int16) *codec.RequestHeader {
	return m.Fill(new(codec.RequestHeader), key, version)
}

// Fill overwrites h with the connection's next header and returns it: a
// client that reuses one header allocates nothing per request.
func (m *Headers) Fill(h *codec.RequestHeader, key codec.APIKey, version int16) *codec.RequestHeader {
	m.corr++
	*h = codec.RequestHeader{RequestApiKey: key, RequestApiVersion: version, CorrelationId: m.corr}
	if m.made == 0 {
		h.ClientId = m.clientID
	}
	m.made++
	if hv, err := codec.RequestHeaderVersion(key, version); err == nil && hv >= 2 {
		h.ClientInstanceId = codec.SomeUUID(m.instance)
	}
	return h
}

// Corr is the correlation id of the last header made (0 before the
// first): a test writing a raw frame after them numbers it Corr()+1.
func (m *Headers) Corr() int32 { return m.corr }

// Fresh reports whether no header was made yet: the next carries ClientId.
func (m *Headers) Fresh() bool { return m.made == 0 }

// Reset starts again as for a new connection: the next header carries
// ClientId again. Correlation ids keep counting.
func (m *Headers) Reset() { m.made = 0 }

// InstanceID is the client instance id the v2 headers carry.
func (m *Headers) InstanceID() codec.UUID { return m.instance }

// SetInstanceID changes the client instance id of the headers made from
// now on (a test that needs a fresh one on a connection); the zero UUID is
// refused.
func (m *Headers) SetInstanceID(u codec.UUID) error {
	if u.IsZero() {
		return ErrZeroInstanceID
	}
	m.instance = u
	return nil
}
