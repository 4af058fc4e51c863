package impl

import (
	"encoding/base64"

	"github.com/ghostcheck/ghostcheck/codec"
)

// Member ids are any non-blank strings, but clients send UUIDs: the
// canonical RFC 4122 text (KIP-1082 clients, 36 characters) or Kafka's
// base64url form (ids a v0 broker makes, 22 characters). Both are kept as
// their 16 bytes and a form tag; anything else is kept as a string.
type idForm uint8

const (
	formNone idForm = iota
	formHex         // 8-4-4-4-12 lowercase hex
	formB64         // 22 characters of unpadded base64url
	formStr         // any other string, kept in group.strIDs
)

// parseID finds the compact form of a member id.
func parseID(s string) (u [16]byte, f idForm) {
	switch len(s) {
	case 36:
		if s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
			return u, formStr
		}
		bad := byte(0)
		for j, i := range hexPos {
			hi, lo := hexVal[s[i]], hexVal[s[i+1]]
			bad |= hi | lo
			u[j] = hi<<4 | lo
		}
		if bad&0xf0 != 0 {
			return [16]byte{}, formStr
		}
		return u, formHex
	case 22:
		var b [22]byte
		copy(b[:], s)
		n, err := base64.RawURLEncoding.Decode(u[:], b[:])
		if err != nil || n != 16 {
			return [16]byte{}, formStr
		}
		// Only the canonical encoding (zero padding bits) is kept compact,
		// so that formatting gives the same string back.
		var e [22]byte
		base64.RawURLEncoding.Encode(e[:], u[:])
		if e != b {
			return [16]byte{}, formStr
		}
		return u, formB64
	}
	return u, formStr
}

// hexPos are the offsets of the 16 byte pairs in the 36-character form.
var hexPos = [16]uint8{0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34}

// hexVal maps a lowercase hex digit to its value, anything else to 0xff.
var hexVal = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = byte(c-'a') + 10
	}
	return t
}()

// appendID appends the text of a compact id.
func appendID(dst []byte, u *[16]byte, f idForm) []byte {
	switch f {
	case formHex:
		return (*codec.UUID)(u).AppendHex(dst)
	case formB64:
		var b [22]byte
		base64.RawURLEncoding.Encode(b[:], u[:])
		return append(dst, b[:]...)
	}
	return dst
}
