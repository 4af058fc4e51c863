package rules

import "github.com/ghostcheck/ghostcheck/codec"

// oneUUID is Kafka's reserved Uuid.ONE_UUID (0, 1).
var oneUUID = codec.UUID{15: 1}

// IsReservedUUID reports whether u is one of Kafka's reserved ids (zero or
// one), which are never valid client instance ids.
func IsReservedUUID(u codec.UUID) bool { return u.IsZero() || u == oneUUID }

// IsZeroUUIDString reports whether s is the zero UUID in canonical
// (8-4-4-4-12) or Kafka (22-character base64url) form.
func IsZeroUUIDString(s string) bool {
	// The zero UUID's first character is 'A' in Kafka's form and '0' in
	// the canonical one: any other first character parses to a non-zero
	// UUID or not at all (the check runs on every member at every
	// observation).
	// The canonical form spells the zero bytes one way only (hex has no
	// case for '0'): compared, not parsed.
	switch {
	case len(s) == 36:
		return s == zeroCanonicalUUID
	case len(s) != 22 || s[0] != 'A':
		return false
	}
	u, err := codec.ParseUUID(s)
	return err == nil && u.IsZero()
}

// zeroCanonicalUUID is the zero UUID in canonical form.
const zeroCanonicalUUID = "00000000-0000-0000-0000-000000000000"
