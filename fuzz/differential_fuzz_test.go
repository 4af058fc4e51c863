package fuzz

import (
	"errors"
	"reflect"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/codec/codectest"
)

// checkedKinds are the message kinds of the apis ghostcheck checks
// (codec.APIs), routingKinds those of the routing apis, authKinds those
// of the authentication apis and classicKinds those of the classic ones;
// both codecs implement them all, each with the versions they share (see
// kmsgMaxVersion). They are separate targets so that the first byte of an
// input saved under testdata/fuzz keeps naming the kind it was found for.
var (
	checkedKinds = kindsOf(codec.APIs())
	routingKinds = kindsOf(apisWhere(func(a *codec.API) bool { return a.Routing }))
	authKinds    = kindsOf(apisWhere(func(a *codec.API) bool { return a.Auth }))
	classicKinds = kindsOf(apisWhere(func(a *codec.API) bool { return a.Classic }))
)

func kindsOf(apis []*codec.API) []codectest.Kind {
	var ks []codectest.Kind
	for _, a := range apis {
		ks = append(ks, codectest.Kind{Key: a.Key}, codectest.Kind{Key: a.Key, Response: true})
	}
	return ks
}

// apisWhere lists the apis of codec.AllAPIs that keep holds for.
func apisWhere(keep func(*codec.API) bool) []*codec.API {
	var out []*codec.API
	for _, a := range codec.AllAPIs() {
		if keep(a) {
			out = append(out, a)
		}
	}
	return out
}

// FuzzDifferentialKmsg decodes the same bytes with this codec (lenient, as
// a broker reads) and with franz-go's kmsg. The first byte picks the
// message kind, the second the version among those both implement.
// Invariants:
//   - both accept or both refuse, and when both accept they give the same
//     value (unknown tags compared as kmsg holds them: ascending, the last
//     of a repeated tag winning);
//   - except where docs/PROTOCOL.md §B2 says Kafka's Java reader and kmsg part
//     ways and this codec follows Java, each pinned by TestDecodeDifferences:
//     a compact string over 0x7fff (we refuse, kmsg reads it); a null
//     length for a non-nullable array or bytes (we refuse, kmsg reads it as
//     empty); a known tagged value shorter than its declared size (we
//     refuse with ErrTagSize, kmsg skips the rest); a five-byte varint whose
//     last byte is 0x08 or more (we drop the high bits and read wrapped
//     lengths as null, kmsg refuses); a nullable struct marker below -1
//     (we read null, kmsg reads the struct).
func FuzzDifferentialKmsg(f *testing.F) { fuzzDifferential(f, checkedKinds) }

// FuzzDifferentialKmsgRouting is FuzzDifferentialKmsg for the routing apis
// (Metadata, FindCoordinator), with the same invariants.
func FuzzDifferentialKmsgRouting(f *testing.F) { fuzzDifferential(f, routingKinds) }

// FuzzDifferentialKmsgAuth is FuzzDifferentialKmsg for the authentication
// apis (SaslHandshake, SaslAuthenticate), with the same invariants.
func FuzzDifferentialKmsgAuth(f *testing.F) { fuzzDifferential(f, authKinds) }

// FuzzDifferentialKmsgClassic is FuzzDifferentialKmsg for the classic
// group protocol's apis (JoinGroup, Heartbeat, SyncGroup, DescribeGroups),
// with the same invariants.
func FuzzDifferentialKmsgClassic(f *testing.F) { fuzzDifferential(f, classicKinds) }

func fuzzDifferential(f *testing.F, kinds []codectest.Kind) {
	for i, k := range kinds {
		for _, s := range bodySeeds(k) {
			v := int16(s[0])
			if v > kmsgMaxVersion(k.Key) {
				continue
			}
			f.Add(append([]byte{byte(i)}, s...))
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) < 2 {
			return
		}
		k := kinds[int(in[0])%len(kinds)]
		a := k.API()
		v := a.MinVersion + int16(int(in[1])%int(kmsgMaxVersion(k.Key)-a.MinVersion+1))
		b := in[2:]

		ours := a.NewMessage(k.Response)
		oerr := codec.DecodeBody(ours, b, v, lenient)
		km := newKmsg(k.Key, k.Response, v)
		kerr := km.ReadFrom(b)

		switch {
		case oerr == nil && kerr == nil:
			normalizeTags(ours)
			theirs := fromKmsg(km, v)
			if reflect.DeepEqual(ours, theirs) {
				return
			}
			if markerBelowMinusOne(ours, v, b) && onlyAssignmentDiffers(ours, theirs) {
				return
			}
			t.Fatalf("%s v%d: values differ\n ours %#v\n kmsg %#v", k.Name(), v, ours, theirs)
		case oerr != nil && kerr == nil:
			if errors.Is(oerr, codec.ErrStringTooLong) || errors.Is(oerr, codec.ErrTagSize) {
				return
			}
			var ce *codec.Error
			if errors.As(oerr, &ce) && ce.Kind == codec.ErrNegativeLength && arrayOrBytesField[ce.Field] {
				return
			}
			if hasWideVarint(b) {
				// A wrapped length read as negative (non-nullable) by us
				// and as a huge, then null, count by kmsg.
				return
			}
			if markerBelowMinusOne(ours, v, b) {
				// We read the bytes after a null Assignment as the tag
				// section; kmsg reads them as the struct.
				return
			}
			t.Fatalf("%s v%d: we refuse what kmsg accepts: %v", k.Name(), v, oerr)
		case oerr == nil && kerr != nil:
			if hasWideVarint(b) || markerBelowMinusOne(ours, v, b) {
				return
			}
			t.Fatalf("%s v%d: kmsg refuses (%v) what we accept:\n%#v", k.Name(), v, kerr, ours)
		}
	})
}

// arrayOrBytesField names the non-nullable array and bytes fields of the
// messages, as the decoders name them in errors.
var arrayOrBytesField = map[string]bool{
	"Topics": true, "Brokers": true, "Topics.Partitions": true, "Partitions.ReplicaNodes": true,
	"Partitions.IsrNodes": true, "Partitions.OfflineReplicas": true, "CoordinatorKeys": true, "Coordinators": true,
	"ApiKeys": true, "SupportedFeatures": true, "FinalizedFeatures": true,
	"Members": true, "GroupIds": true, "Groups": true,
	"TopicPartitions.Partitions": true, "Assignment.TopicPartitions": true,
	"Members.SubscribedTopicNames": true, "AcceptedCompressionTypes": true,
	"RequestedMetrics": true, "Metrics": true,
	"Mechanisms": true, "AuthBytes": true,
	"Protocols": true, "Protocols.Metadata": true, "Members.Metadata": true,
	"Assignments": true, "Assignments.Assignment": true, "Assignment": true,
	"Members.MemberMetadata": true, "Members.MemberAssignment": true,
}

// hasWideVarint reports whether b holds four continuation bytes followed
// by a byte of 0x08 or more: a five-byte varint of 2^31 or more, or one
// whose last byte has bits above the 32nd.
func hasWideVarint(b []byte) bool {
	for i := 0; i+4 < len(b); i++ {
		if b[i]&0x80 != 0 && b[i+1]&0x80 != 0 && b[i+2]&0x80 != 0 && b[i+3]&0x80 != 0 && b[i+4] >= 0x08 {
			return true
		}
	}
	return false
}

// markerBelowMinusOne reports whether ours is a ConsumerGroupHeartbeat
// response that we read with a null Assignment from a marker byte in
// -128..-2, which kmsg reads as present (and then reads the struct from the
// bytes after it, or fails).
func markerBelowMinusOne(ours codec.Message, v int16, b []byte) bool {
	m, ok := ours.(*codec.ConsumerGroupHeartbeatResponse)
	if !ok || m.Assignment != nil {
		return false
	}
	// Where the marker sits: re-encode the fields before it.
	prefix := *m
	prefix.UnknownTags = nil
	enc, err := prefix.AppendTo(nil, v)
	if err != nil {
		return false
	}
	pos := len(enc) - 2 // the marker, then the empty tag section
	if pos < len(b) && string(b[:pos]) == string(enc[:pos]) {
		return b[pos] >= 0x80 && b[pos] != 0xff
	}
	// A non-minimal varint before the marker moved it; look for any
	// candidate byte.
	for _, c := range b {
		if c >= 0x80 && c != 0xff {
			return true
		}
	}
	return false
}

// onlyAssignmentDiffers: the two responses are equal but for an Assignment
// kmsg read and we did not, and the tags read after it.
func onlyAssignmentDiffers(ours, theirs codec.Message) bool {
	o := *ours.(*codec.ConsumerGroupHeartbeatResponse)
	th := *theirs.(*codec.ConsumerGroupHeartbeatResponse)
	th.Assignment = nil
	th.UnknownTags, o.UnknownTags = nil, nil
	return reflect.DeepEqual(o, th)
}
