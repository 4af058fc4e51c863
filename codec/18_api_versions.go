package codec

import "math/bits"

// ApiVersions (api key 18), versions 0-4, flexible from v3. Its response
// always uses response header v0 (KIP-511), and a broker that does not know
// the request's version answers with a v0 body holding UNSUPPORTED_VERSION
// and at least its own ApiVersions range.

// ApiVersions is api key 18.
const ApiVersions APIKey = 18

// apiVersionsAPI is ApiVersions's row of the api table.
var apiVersionsAPI = defineAPI[ApiVersionsRequest, ApiVersionsResponse](API{Key: ApiVersions, Name: "ApiVersions", MinVersion: 0, MaxVersion: 4, FlexibleFrom: 3, responseHeaderV0: true})

// ApiVersionsRequest asks which api versions the broker supports.
type ApiVersionsRequest struct {
	// ClientSoftwareName and ClientSoftwareVersion are v3+ (ignorable).
	ClientSoftwareName    string
	ClientSoftwareVersion string
	UnknownTags           TaggedFields `json:",omitempty"`
}

func (*ApiVersionsRequest) Key() APIKey      { return ApiVersions }
func (*ApiVersionsRequest) IsResponse() bool { return false }

// AppendTo implements Message.
func (m *ApiVersionsRequest) AppendTo(dst []byte, version int16) ([]byte, error) {
	var w Writer
	if err := w.begin(ApiVersions, false, version); err != nil {
		return dst, err
	}
	b := dst
	if version >= 3 {
		b = w.String(b, "ClientSoftwareName", m.ClientSoftwareName)
		b = w.String(b, "ClientSoftwareVersion", m.ClientSoftwareVersion)
	}
	b = w.UnknownTags(b, "TaggedFields", m.UnknownTags)
	return finish(b, &w)
}

// ReadFrom implements Message.
func (m *ApiVersionsRequest) ReadFrom(r *Reader) {
	name, version := m.ClientSoftwareName, m.ClientSoftwareVersion
	m.ClientSoftwareName, m.ClientSoftwareVersion = "", ""
	m.UnknownTags = nil
	if r.Version() >= 3 {
		m.ClientSoftwareName = r.String("ClientSoftwareName", name)
		m.ClientSoftwareVersion = r.String("ClientSoftwareVersion", version)
		m.UnknownTags = r.UnknownTags("TaggedFields", m.UnknownTags)
	}
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

// ApiVersionsResponse lists the broker's api version ranges. Tags 0-3 of
// v3+ are known fields; a tagged field is written only when it differs from
// its default, as Kafka does.
type ApiVersionsResponse struct {
	ErrorCode ErrorCode
	ApiKeys   []ApiVersionsKey
	// ThrottleTimeMs is v1+ (ignorable).
	ThrottleTimeMs int32
	// SupportedFeatures is tag 0 (v3+).
	SupportedFeatures []SupportedFeature `json:",omitempty"`
	// FinalizedFeaturesEpoch is tag 1 (v3+), default -1.
	FinalizedFeaturesEpoch int64
	// FinalizedFeatures is tag 2 (v3+).
	FinalizedFeatures []FinalizedFeature `json:",omitempty"`
	// ZkMigrationReady is tag 3 (v3+), default false.
	ZkMigrationReady bool
	UnknownTags      TaggedFields `json:",omitempty"`
}

// ApiVersionsKey is one api's supported range.
type ApiVersionsKey struct {
	ApiKey      APIKey
	MinVersion  int16
	MaxVersion  int16
	UnknownTags TaggedFields `json:",omitempty"`
}

// SupportedFeature is one entry of SupportedFeatures.
type SupportedFeature struct {
	Name        string
	MinVersion  int16
	MaxVersion  int16
	UnknownTags TaggedFields `json:",omitempty"`
}

// FinalizedFeature is one entry of FinalizedFeatures.
type FinalizedFeature struct {
	Name            string
	MaxVersionLevel int16
	MinVersionLevel int16
	UnknownTags     TaggedFields `json:",omitempty"`
}

// Tags of ApiVersionsResponse v3+.
const (
	tagSupportedFeatures      = 0
	tagFinalizedFeaturesEpoch = 1
	tagFinalizedFeatures      = 2
	tagZkMigrationReady       = 3
)

func (*ApiVersionsResponse) Key() APIKey      { return ApiVersions }
func (*ApiVersionsResponse) IsResponse() bool { return true }

// NewApiVersionsResponse returns a response with Kafka's defaults set
// (FinalizedFeaturesEpoch -1).
func NewApiVersionsResponse() *ApiVersionsResponse {
	return &ApiVersionsResponse{FinalizedFeaturesEpoch: -1}
}

// AppendTo implements Message.
func (m *ApiVersionsResponse) AppendTo(dst []byte, version int16) ([]byte, error) {
	var w Writer
	if err := w.begin(ApiVersions, true, version); err != nil {
		return dst, err
	}
	b := dst
	b = AppendInt16(b, int16(m.ErrorCode))
	b = w.ArrayLen(b, len(m.ApiKeys))
	for i := range m.ApiKeys {
		k := &m.ApiKeys[i]
		b = AppendInt16(b, int16(k.ApiKey))
		b = AppendInt16(b, k.MinVersion)
		b = AppendInt16(b, k.MaxVersion)
		b = w.UnknownTags(b, "ApiKeys.TaggedFields", k.UnknownTags)
	}
	if version >= 1 {
		b = AppendInt32(b, m.ThrottleTimeMs)
	}
	if !w.Flexible() {
		b = w.UnknownTags(b, "TaggedFields", m.UnknownTags)
		return finish(b, &w)
	}
	b = m.appendTags(&w, b)
	return finish(b, &w)
}

// appendTags writes the tag section of v3+: the known tags whose values
// differ from their defaults (Kafka writes no others), merged by tag number
// with the unknown ones.
func (m *ApiVersionsResponse) appendTags(w *Writer, b []byte) []byte {
	var known uint64
	if len(m.SupportedFeatures) > 0 {
		known |= 1 << tagSupportedFeatures
	}
	if m.FinalizedFeaturesEpoch != -1 {
		known |= 1 << tagFinalizedFeaturesEpoch
	}
	if len(m.FinalizedFeatures) > 0 {
		known |= 1 << tagFinalizedFeatures
	}
	if m.ZkMigrationReady {
		known |= 1 << tagZkMigrationReady
	}
	// Unknown tags may not reuse a known tag's number, whether or not that
	// known field is written: a reader would take it for the known field.
	const allKnown = 1<<tagSupportedFeatures | 1<<tagFinalizedFeaturesEpoch | 1<<tagFinalizedFeatures | 1<<tagZkMigrationReady
	if !w.CheckTags("TaggedFields", m.UnknownTags, allKnown) {
		return b
	}
	b = AppendUvarint(b, uint32(len(m.UnknownTags)+bits.OnesCount64(known)))
	unknown := m.UnknownTags
	var scratch []byte
	for tag := uint32(0); tag <= tagZkMigrationReady; tag++ {
		if known&(1<<tag) == 0 {
			continue
		}
		// Known tags are 0-3; unknown ones are above them or in between.
		for len(unknown) > 0 && unknown[0].Tag < tag {
			b = AppendTagHeader(b, unknown[0].Tag, len(unknown[0].Data))
			b = append(b, unknown[0].Data...)
			unknown = unknown[1:]
		}
		switch tag {
		case tagSupportedFeatures:
			// The value goes to scratch first: its size precedes it.
			scratch = w.ArrayLen(scratch[:0], len(m.SupportedFeatures))
			for i := range m.SupportedFeatures {
				f := &m.SupportedFeatures[i]
				scratch = w.String(scratch, "SupportedFeatures.Name", f.Name)
				scratch = AppendInt16(scratch, f.MinVersion)
				scratch = AppendInt16(scratch, f.MaxVersion)
				scratch = w.UnknownTags(scratch, "SupportedFeatures.TaggedFields", f.UnknownTags)
			}
			b = appendTagged(b, tag, scratch)
		case tagFinalizedFeaturesEpoch:
			b = AppendTagHeader(b, tag, 8)
			b = AppendInt64(b, m.FinalizedFeaturesEpoch)
		case tagFinalizedFeatures:
			scratch = w.ArrayLen(scratch[:0], len(m.FinalizedFeatures))
			for i := range m.FinalizedFeatures {
				f := &m.FinalizedFeatures[i]
				scratch = w.String(scratch, "FinalizedFeatures.Name", f.Name)
				scratch = AppendInt16(scratch, f.MaxVersionLevel)
				scratch = AppendInt16(scratch, f.MinVersionLevel)
				scratch = w.UnknownTags(scratch, "FinalizedFeatures.TaggedFields", f.UnknownTags)
			}
			b = appendTagged(b, tag, scratch)
		case tagZkMigrationReady:
			b = AppendTagHeader(b, tag, 1)
			b = AppendBool(b, true)
		}
	}
	return appendTags(b, unknown)
}

// ReadFrom implements Message.
func (m *ApiVersionsResponse) ReadFrom(r *Reader) {
	v := r.Version()
	m.ErrorCode = ErrorCode(r.Int16("ErrorCode"))
	n := r.ArrayLen("ApiKeys", 6, false)
	m.ApiKeys = resize(m.ApiKeys, n)
	for i := range m.ApiKeys {
		k := &m.ApiKeys[i]
		k.ApiKey = APIKey(r.Int16("ApiKeys.ApiKey"))
		k.MinVersion = r.Int16("ApiKeys.MinVersion")
		k.MaxVersion = r.Int16("ApiKeys.MaxVersion")
		k.UnknownTags = nil
		if r.Flexible() {
			k.UnknownTags = r.UnknownTags("ApiKeys.TaggedFields", k.UnknownTags)
		}
	}
	m.ThrottleTimeMs = 0
	if v >= 1 {
		m.ThrottleTimeMs = r.Int32("ThrottleTimeMs")
	}
	// The known tags keep their storage for reuse only while being read;
	// absent or empty they decode to nil, as in a fresh message.
	supported, finalized := m.SupportedFeatures, m.FinalizedFeatures
	m.SupportedFeatures = nil
	m.FinalizedFeaturesEpoch = -1
	m.FinalizedFeatures = nil
	m.ZkMigrationReady = false
	m.UnknownTags = nil
	if !r.Flexible() {
		return
	}
	ts := r.BeginTags("TaggedFields")
	for ts.Next(r) {
		switch ts.Tag {
		case tagSupportedFeatures:
			n := r.ArrayLen("SupportedFeatures", 6, false)
			m.SupportedFeatures = resize(supported, n)
			for i := range m.SupportedFeatures {
				f := &m.SupportedFeatures[i]
				f.Name = r.String("SupportedFeatures.Name", f.Name)
				f.MinVersion = r.Int16("SupportedFeatures.MinVersion")
				f.MaxVersion = r.Int16("SupportedFeatures.MaxVersion")
				f.UnknownTags = r.UnknownTags("SupportedFeatures.TaggedFields", nil)
			}
			ts.EndKnown(r, "SupportedFeatures")
		case tagFinalizedFeaturesEpoch:
			m.FinalizedFeaturesEpoch = r.Int64("FinalizedFeaturesEpoch")
			ts.EndKnown(r, "FinalizedFeaturesEpoch")
		case tagFinalizedFeatures:
			n := r.ArrayLen("FinalizedFeatures", 6, false)
			m.FinalizedFeatures = resize(finalized, n)
			for i := range m.FinalizedFeatures {
				f := &m.FinalizedFeatures[i]
				f.Name = r.String("FinalizedFeatures.Name", f.Name)
				f.MaxVersionLevel = r.Int16("FinalizedFeatures.MaxVersionLevel")
				f.MinVersionLevel = r.Int16("FinalizedFeatures.MinVersionLevel")
				f.UnknownTags = r.UnknownTags("FinalizedFeatures.TaggedFields", nil)
			}
			ts.EndKnown(r, "FinalizedFeatures")
		case tagZkMigrationReady:
			m.ZkMigrationReady = r.Bool("ZkMigrationReady")
			ts.EndKnown(r, "ZkMigrationReady")
		default:
			m.UnknownTags = ts.Keep(r, m.UnknownTags)
		}
	}
	if len(m.UnknownTags) == 0 {
		m.UnknownTags = nil
	}
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
