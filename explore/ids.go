package explore

import (
	"math/bits"

	"github.com/ghostcheck/ghostcheck/codec"
)

// Member ids. Every member id of a path is made by the explorer: a
// KIP-1082 process's own (the bytes its client reads from Config.Rand) and
// the ones the coordinator makes for v0 joins (its id source). The n-th id
// made along a path (n from 1) begins with n in two hex digits, in both
// forms ids take: a client's, the UUID's hex string ("0a3f1c..."), and the
// coordinator's, Kafka's base64 string, whose first two characters are
// made the same two digits. So ids sort as they were made, whatever their
// form: a new id sorts after every id that exists.
//
// That is what lets a state rename its ids by their order of appearance
// (ranks, in encode.go) without losing anything: the coordinator compares
// member ids only by their order (the assignor sorts dynamic members by
// id) and for equality, and an id made later sorts after all of them in
// every state, so two states equal but for their ids' spellings, in the
// same order, behave alike. The cost is that the explorer tries one order
// of ids, the order in which they were made: a newcomer always sorts last.
//
// Client instance ids (KIP-1313) ride in headers only; the explorer makes
// them distinct and never zero, and leaves them out of states.

// coordinatorMadeConsumerID reports whether id is a consumer member id the
// coordinator made, for a v0 join: Kafka's base64 form of a UUID (22
// characters), not a KIP-1082 client's UUID text, nor a classic id.
func coordinatorMadeConsumerID(id string) bool {
	if len(id) != base64UUID || idNumber(id) == 0 {
		return false
	}
	_, err := codec.ParseUUID(id)
	return err == nil
}

// base64UUID is the length of a UUID in Kafka's base64 form.
const base64UUID = 22

// idNumber is the number of an id the explorer made (1..255), 0 for any
// other string. A classic member id (prefix, "-", a UUID's text: A6.5)
// carries it at the head of its UUID.
func idNumber(s string) int {
	if p := classicPrefixLen(s); p >= 0 {
		s = s[p:]
	}
	if len(s) < 2 {
		return 0
	}
	hi, ok1 := hexDigit(s[0])
	lo, ok2 := hexDigit(s[1])
	if !ok1 || !ok2 {
		return 0
	}
	return hi<<4 | lo
}

func hexDigit(c byte) (int, bool) {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0'), true
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10, true
	}
	return 0, false
}

// uuidText is the length of a UUID's canonical text.
const uuidText = 36

// classicPrefixLen is the length of a classic member id's prefix and its
// "-" (the client id or the instance id, A6.5), -1 for an id of another
// form. The prefix decides the order of two ids with other prefixes, so
// an id's form writes it before the UUID's number (appendID).
func classicPrefixLen(s string) int {
	if n := len(s) - uuidText; n >= 1 && s[n-1] == '-' && s[n+8] == '-' {
		return n
	}
	return -1
}

// appendID appends an id for the form: a classic id's prefix as it is,
// then the number of the id in one byte, whose place is returned so that
// the caller writes its rank there once every id is known.
func appendID(b []byte, id string) ([]byte, int32, int) {
	if p := classicPrefixLen(id); p >= 0 {
		b = appendString(b, id[:p])
	}
	n := idNumber(id)
	return append(b, byte(n)), int32(len(b)), n
}

// classicID is the classic-form id number n: its canonical text (which a
// classic member id ends with) begins with n's two hex digits.
func classicID(n int) codec.UUID {
	return codec.UUID{0: byte(n), 1: 0xc1, 6: 0x40, 8: 0x80, 15: byte(n)}
}

// clientIDBytes are the 16 bytes a KIP-1082 client reads for its member id
// number n: uuid.NewRandomFromReader keeps the first two bytes, so the hex
// string begins with n's two digits.
func clientIDBytes(n int) [16]byte {
	return [16]byte{0: byte(n), 1: 0x5c, 2: 0x1e, 3: 0x47, 15: byte(n)}
}

// base64Index is the index in Kafka's (URL-safe) base64 alphabet of a hex
// digit's character.
func base64Index(d int) byte {
	if d < 10 {
		return byte(52 + d) // '0'..'9'
	}
	return byte(26 + d - 10) // 'a'..'f'
}

// coordinatorID is the coordinator-made id number n: its base64 string
// (codec.UUID.String) begins with n's two hex digits.
func coordinatorID(n int) codec.UUID {
	i1, i2 := base64Index(n>>4), base64Index(n&15)
	return codec.UUID{0: i1<<2 | i2>>4, 1: (i2&15)<<4 | 0x0c, 2: 0xc0, 6: 0x40, 8: 0x80, 15: byte(n)}
}

// instanceUUID is the client instance id of a slot's inc-th process: never
// zero, never Kafka's reserved 00..01.
func instanceUUID(slot, inc int) codec.UUID {
	return codec.UUID{0: 0xc1, 1: byte(slot), 2: byte(inc), 6: 0x40, 8: 0x80, 15: 0x7f}
}

// idSet is a set of id numbers.
type idSet [4]uint64

func (s *idSet) add(n int)      { s[n>>6] |= 1 << (n & 63) }
func (s *idSet) has(n int) bool { return s[n>>6]&(1<<(n&63)) != 0 }

// rank is n's place among the set's numbers, from 1 (n must be in it); 0
// stays 0, the mark of a string that is not an id.
func (s *idSet) rank(n int) byte {
	if n == 0 {
		return 0
	}
	r := 0
	w := n >> 6
	for i := 0; i < w; i++ {
		r += bits.OnesCount64(s[i])
	}
	r += bits.OnesCount64(s[w] & (1<<(n&63) - 1))
	return byte(r + 1)
}

// idReader is the random source of one client process: the 16 bytes of
// its client instance id, then those of its member id.
type idReader struct {
	buf [32]byte
	off int
}

func newIDReader(instance codec.UUID, member [16]byte) *idReader {
	r := &idReader{}
	copy(r.buf[:16], instance[:])
	copy(r.buf[16:], member[:])
	return r
}

func (r *idReader) Read(p []byte) (int, error) {
	n := copy(p, r.buf[r.off:])
	r.off += n
	if n < len(p) {
		return n, errIDsRunDry
	}
	return n, nil
}

var errIDsRunDry = errorString("explore: a client read more ids than the explorer made for it")

type errorString string

func (e errorString) Error() string { return string(e) }
