package impl

import (
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
)

// TestOlist: inserts and removes in random order keep the list sorted and
// select by rank agrees with a sorted slice, across chunk splits.
func TestOlist(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	keys := make([]uint32, 5000)
	for i := range keys {
		keys[i] = r.Uint32()
	}
	less := func(a, b uint32) bool { return keys[a] < keys[b] }
	var l olist
	in := map[uint32]bool{}
	for step := 0; step < 20000; step++ {
		x := uint32(r.IntN(len(keys)))
		if in[x] {
			l.remove(x, less)
			delete(in, x)
		} else {
			l.insert(x, less)
			in[x] = true
		}
		if step%97 != 0 {
			continue
		}
		var want []uint32
		for x := range in {
			want = append(want, x)
		}
		sort.Slice(want, func(i, j int) bool { return less(want[i], want[j]) })
		if l.len() != len(want) {
			t.Fatalf("step %d: len %d, want %d", step, l.len(), len(want))
		}
		for i, w := range want {
			if got := l.at(i); got != w {
				t.Fatalf("step %d: at(%d) = %d, want %d", step, i, got, w)
			}
		}
	}
}

// TestParseID: compact forms give the same string back; anything else is
// kept as a string.
func TestParseID(t *testing.T) {
	u := codec.UUID{0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	for _, tc := range []struct {
		in   string
		form idForm
	}{
		{u.Hex(), formHex},
		{u.String(), formB64},
		{"DEADBEEF-0102-0304-0506-0708090a0b0c", formStr}, // upper case
		{"deadbeef-0102-0304-0506-0708090a0b0cx", formStr},
		{"deadbeef+0102-0304-0506-0708090a0b0c", formStr},
		{"3q2-7wECAwQFBgcICQoLDB", formStr}, // non-zero padding bits
		{"ghost", formStr},
		{"", formStr},
	} {
		b, f := parseID(tc.in)
		if f != tc.form {
			t.Errorf("parseID(%q) form %d, want %d", tc.in, f, tc.form)
			continue
		}
		if f != formStr {
			if got := string(appendID(nil, &b, f)); got != tc.in {
				t.Errorf("parseID(%q) formats back as %q", tc.in, got)
			}
		}
	}
}

// TestMemberRecordSize: the member record stays small and pointer-free.
func TestMemberRecordSize(t *testing.T) {
	if n := sizeofMember(); n > 72 {
		t.Fatalf("member record is %d bytes, want at most 72", n)
	}
}
