package codec

import "strconv"

// Concrete decoding. DecodeBody takes any Message, and calling ReadFrom
// through the interface makes the compiler assume the *Reader escapes, so
// every decode would allocate its Reader on the heap. Each message type
// therefore also has a Decode method (in its API's file) that calls its own
// ReadFrom directly, keeping the Reader on the stack, and DecodeBody,
// DecodeRequest and DecodeResponse reach those through the api table's
// decodeAs functions. A Decode method is the same few lines for every type:
// written once generically, the ReadFrom call would go through the generic
// shape's dictionary, an indirect call, and the Reader would escape again.

// DecodeBody decodes b as the body of m at version. Error offsets count from
// the start of b.
func DecodeBody(m Message, b []byte, version int16, opts DecodeOptions) error {
	return decodeBodyAt(m, b, 0, version, opts)
}

// decodeBodyAt decodes b[start:] so that error offsets count from b[0].
func decodeBodyAt(m Message, b []byte, start int, version int16, opts DecodeOptions) error {
	a := Lookup(m.Key())
	if a == nil {
		return &Error{Kind: ErrUnknownAPIKey, Message: "Body", Offset: start, Detail: "api key " + strconv.Itoa(int(m.Key()))}
	}
	decode := a.decodeRequest
	if m.IsResponse() {
		decode = a.decodeResponse
	}
	if err, ok := decode(m, b, start, version, opts); ok {
		return err
	}
	// A Message of another package: through the interface.
	name := a.MessageName(m.IsResponse())
	if !a.Supports(version) {
		return &Error{Kind: ErrUnsupportedVersion, Message: name, Version: version, Offset: start,
			Detail: a.Name + " supports v" + strconv.Itoa(int(a.MinVersion)) + "-v" + strconv.Itoa(int(a.MaxVersion))}
	}
	r := NewReader(b, name, version, a.Flexible(version), opts)
	r.off = start
	m.ReadFrom(&r)
	return r.Finish()
}

// decodeAs is the decodeFunc of message type *T: when m is a *T it calls
// its concrete decodeAt.
func decodeAs[T any, P body[T]](m Message, b []byte, start int, version int16, opts DecodeOptions) (error, bool) {
	if p, ok := m.(P); ok {
		return p.decodeAt(b, start, version, opts), true
	}
	return nil, false
}

// bodyReader checks the version and points r at b[start:] for a body of
// key at version; error offsets count from b[0]. It fills the caller's
// Reader in place: returning one by value costs a copy of the struct per
// decode, a tenth of a small message's decode time.
func bodyReader(r *Reader, b []byte, start int, key APIKey, response bool, version int16, opts DecodeOptions) error {
	a := apis[key]
	name := a.MessageName(response)
	if !a.Supports(version) {
		return &Error{Kind: ErrUnsupportedVersion, Message: name, Version: version, Offset: start,
			Detail: a.Name + " supports v" + strconv.Itoa(int(a.MinVersion)) + "-v" + strconv.Itoa(int(a.MaxVersion))}
	}
	r.Reset(b, name, version, a.Flexible(version), opts)
	r.off = start
	return nil
}
