package main

import (
	"bytes"
	"testing"

	"github.com/ghostcheck/ghostcheck/peers/librdkafka/mock"
)

func TestParseTopics(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []mock.Topic
		ok   bool
	}{
		{"alpha:6", []mock.Topic{{Name: "alpha", Partitions: 6}}, true},
		{"alpha:6, beta:3", []mock.Topic{{Name: "alpha", Partitions: 6}, {Name: "beta", Partitions: 3}}, true},
		{"alpha", nil, false},
		{"alpha:0", nil, false},
		{":3", nil, false},
		{"alpha:x", nil, false},
		{"alpha:1,alpha:2", nil, false},
	} {
		got, err := parseTopics(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("%q: err %v, want ok %v", tc.in, err, tc.ok)
			continue
		}
		if len(got) != len(tc.want) {
			t.Errorf("%q: %v, want %v", tc.in, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%q: %v, want %v", tc.in, got, tc.want)
			}
		}
	}
}

// Bad usage exits 2 before any cluster is started (so it runs here, in
// the test binary: no mock is made).
func TestUsage(t *testing.T) {
	for _, args := range [][]string{{"extra"}, {"--topics", "alpha"}, {"--brokers", "0"}, {"--no-such-flag"}} {
		var out, errOut bytes.Buffer
		if code := run(args, bytes.NewReader(nil), &out, &errOut); code != 2 || out.Len() != 0 {
			t.Errorf("%v: exit %d, stdout %q, want 2 and nothing on stdout", args, code, out.String())
		}
	}
}
