package codec

import "strconv"

// Concrete decoding. DecodeBody takes any Message, and calling ReadFrom
// through the interface makes the compiler assume the *Reader escapes, so
// every decode would allocate its Reader on the heap. Each message type
// therefore also has a Decode method that calls its own ReadFrom directly,
// keeping the Reader on the stack, and DecodeBody, DecodeRequest and
// DecodeResponse switch to those for this package's types.

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

// decodeKnown decodes b[start:] into m when m is one of this package's
// types, without an interface call; ok is false for other types.
func decodeKnown(m Message, b []byte, start int, version int16, opts DecodeOptions) (err error, ok bool) {
	switch m := m.(type) {
	case *LeaveGroupRequest:
		return m.decodeAt(b, start, version, opts), true
	case *LeaveGroupResponse:
		return m.decodeAt(b, start, version, opts), true
	case *ApiVersionsRequest:
		return m.decodeAt(b, start, version, opts), true
	case *ApiVersionsResponse:
		return m.decodeAt(b, start, version, opts), true
	case *ConsumerGroupHeartbeatRequest:
		return m.decodeAt(b, start, version, opts), true
	case *ConsumerGroupHeartbeatResponse:
		return m.decodeAt(b, start, version, opts), true
	case *ConsumerGroupDescribeRequest:
		return m.decodeAt(b, start, version, opts), true
	case *ConsumerGroupDescribeResponse:
		return m.decodeAt(b, start, version, opts), true
	case *GetTelemetrySubscriptionsRequest:
		return m.decodeAt(b, start, version, opts), true
	case *GetTelemetrySubscriptionsResponse:
		return m.decodeAt(b, start, version, opts), true
	case *PushTelemetryRequest:
		return m.decodeAt(b, start, version, opts), true
	case *PushTelemetryResponse:
		return m.decodeAt(b, start, version, opts), true
	}
	return nil, false
}

// Decode decodes b as the body of m at version, overwriting every field
// (slices are reused); it is DecodeBody without the allocation.
func (m *LeaveGroupRequest) Decode(b []byte, version int16, opts DecodeOptions) error {
	return m.decodeAt(b, 0, version, opts)
}

func (m *LeaveGroupRequest) decodeAt(b []byte, start int, version int16, opts DecodeOptions) error {
	var r Reader
	if err := bodyReader(&r, b, start, LeaveGroup, false, version, opts); err != nil {
		return err
	}
	m.ReadFrom(&r)
	return r.Finish()
}

// Decode decodes b as the body of m at version, overwriting every field
// (slices are reused); it is DecodeBody without the allocation.
func (m *LeaveGroupResponse) Decode(b []byte, version int16, opts DecodeOptions) error {
	return m.decodeAt(b, 0, version, opts)
}

func (m *LeaveGroupResponse) decodeAt(b []byte, start int, version int16, opts DecodeOptions) error {
	var r Reader
	if err := bodyReader(&r, b, start, LeaveGroup, true, version, opts); err != nil {
		return err
	}
	m.ReadFrom(&r)
	return r.Finish()
}

// Decode decodes b as the body of m at version, overwriting every field
// (slices are reused); it is DecodeBody without the allocation.
func (m *ApiVersionsRequest) Decode(b []byte, version int16, opts DecodeOptions) error {
	return m.decodeAt(b, 0, version, opts)
}

func (m *ApiVersionsRequest) decodeAt(b []byte, start int, version int16, opts DecodeOptions) error {
	var r Reader
	if err := bodyReader(&r, b, start, ApiVersions, false, version, opts); err != nil {
		return err
	}
	m.ReadFrom(&r)
	return r.Finish()
}

// Decode decodes b as the body of m at version, overwriting every field
// (slices are reused); it is DecodeBody without the allocation.
func (m *ApiVersionsResponse) Decode(b []byte, version int16, opts DecodeOptions) error {
	return m.decodeAt(b, 0, version, opts)
}

func (m *ApiVersionsResponse) decodeAt(b []byte, start int, version int16, opts DecodeOptions) error {
	var r Reader
	if err := bodyReader(&r, b, start, ApiVersions, true, version, opts); err != nil {
		return err
	}
	m.ReadFrom(&r)
	return r.Finish()
}

// Decode decodes b as the body of m at version, overwriting every field
// (slices are reused); it is DecodeBody without the allocation.
func (m *ConsumerGroupHeartbeatRequest) Decode(b []byte, version int16, opts DecodeOptions) error {
	return m.decodeAt(b, 0, version, opts)
}

func (m *ConsumerGroupHeartbeatRequest) decodeAt(b []byte, start int, version int16, opts DecodeOptions) error {
	var r Reader
	if err := bodyReader(&r, b, start, ConsumerGroupHeartbeat, false, version, opts); err != nil {
		return err
	}
	m.ReadFrom(&r)
	return r.Finish()
}

// Decode decodes b as the body of m at version, overwriting every field
// (slices are reused); it is DecodeBody without the allocation.
func (m *ConsumerGroupHeartbeatResponse) Decode(b []byte, version int16, opts DecodeOptions) error {
	return m.decodeAt(b, 0, version, opts)
}

func (m *ConsumerGroupHeartbeatResponse) decodeAt(b []byte, start int, version int16, opts DecodeOptions) error {
	var r Reader
	if err := bodyReader(&r, b, start, ConsumerGroupHeartbeat, true, version, opts); err != nil {
		return err
	}
	m.ReadFrom(&r)
	return r.Finish()
}

// Decode decodes b as the body of m at version, overwriting every field
// (slices are reused); it is DecodeBody without the allocation.
func (m *ConsumerGroupDescribeRequest) Decode(b []byte, version int16, opts DecodeOptions) error {
	return m.decodeAt(b, 0, version, opts)
}

func (m *ConsumerGroupDescribeRequest) decodeAt(b []byte, start int, version int16, opts DecodeOptions) error {
	var r Reader
	if err := bodyReader(&r, b, start, ConsumerGroupDescribe, false, version, opts); err != nil {
		return err
	}
	m.ReadFrom(&r)
	return r.Finish()
}

// Decode decodes b as the body of m at version, overwriting every field
// (slices are reused); it is DecodeBody without the allocation.
func (m *ConsumerGroupDescribeResponse) Decode(b []byte, version int16, opts DecodeOptions) error {
	return m.decodeAt(b, 0, version, opts)
}

func (m *ConsumerGroupDescribeResponse) decodeAt(b []byte, start int, version int16, opts DecodeOptions) error {
	var r Reader
	if err := bodyReader(&r, b, start, ConsumerGroupDescribe, true, version, opts); err != nil {
		return err
	}
	m.ReadFrom(&r)
	return r.Finish()
}

// Decode decodes b as the body of m at version, overwriting every field
// (slices are reused); it is DecodeBody without the allocation.
func (m *GetTelemetrySubscriptionsRequest) Decode(b []byte, version int16, opts DecodeOptions) error {
	return m.decodeAt(b, 0, version, opts)
}

func (m *GetTelemetrySubscriptionsRequest) decodeAt(b []byte, start int, version int16, opts DecodeOptions) error {
	var r Reader
	if err := bodyReader(&r, b, start, GetTelemetrySubscriptions, false, version, opts); err != nil {
		return err
	}
	m.ReadFrom(&r)
	return r.Finish()
}

// Decode decodes b as the body of m at version, overwriting every field
// (slices are reused); it is DecodeBody without the allocation.
func (m *GetTelemetrySubscriptionsResponse) Decode(b []byte, version int16, opts DecodeOptions) error {
	return m.decodeAt(b, 0, version, opts)
}

func (m *GetTelemetrySubscriptionsResponse) decodeAt(b []byte, start int, version int16, opts DecodeOptions) error {
	var r Reader
	if err := bodyReader(&r, b, start, GetTelemetrySubscriptions, true, version, opts); err != nil {
		return err
	}
	m.ReadFrom(&r)
	return r.Finish()
}

// Decode decodes b as the body of m at version, overwriting every field
// (slices are reused); it is DecodeBody without the allocation.
func (m *PushTelemetryRequest) Decode(b []byte, version int16, opts DecodeOptions) error {
	return m.decodeAt(b, 0, version, opts)
}

func (m *PushTelemetryRequest) decodeAt(b []byte, start int, version int16, opts DecodeOptions) error {
	var r Reader
	if err := bodyReader(&r, b, start, PushTelemetry, false, version, opts); err != nil {
		return err
	}
	m.ReadFrom(&r)
	return r.Finish()
}

// Decode decodes b as the body of m at version, overwriting every field
// (slices are reused); it is DecodeBody without the allocation.
func (m *PushTelemetryResponse) Decode(b []byte, version int16, opts DecodeOptions) error {
	return m.decodeAt(b, 0, version, opts)
}

func (m *PushTelemetryResponse) decodeAt(b []byte, start int, version int16, opts DecodeOptions) error {
	var r Reader
	if err := bodyReader(&r, b, start, PushTelemetry, true, version, opts); err != nil {
		return err
	}
	m.ReadFrom(&r)
	return r.Finish()
}
