package fuzz

import (
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/codec/codectest"
)

// Seed inputs: valid encodings drawn by codectest's generators with fixed
// seeds, so every target starts from messages of each version that decode,
// and mutation explores the neighbourhood of real ones.

const seedsPerVersion = 4

// bodySeeds returns valid bodies of kind k, each prefixed by the version
// byte the per-message targets read first.
func bodySeeds(k codectest.Kind) [][]byte {
	var out [][]byte
	a := k.API()
	for v := a.MinVersion; v <= a.MaxVersion; v++ {
		for s := 0; s < seedsPerVersion; s++ {
			m := codectest.Message(k, v).Example(s)
			b, err := m.AppendTo([]byte{byte(v)}, v)
			if err != nil {
				panic(err)
			}
			out = append(out, b)
		}
	}
	return out
}

// requestFrameSeeds returns whole request frames (size prefix, header,
// body) for every api and version.
func requestFrameSeeds() [][]byte {
	var out [][]byte
	for s := 0; s < 3*seedsPerVersion; s++ {
		h := codectest.RequestHeader().Example(s)
		body := codectest.Message(codectest.Kind{Key: h.RequestApiKey}, h.RequestApiVersion).Example(s)
		b, err := codec.AppendRequest(nil, &h, body)
		if err != nil {
			panic(err)
		}
		out = append(out, b)
	}
	for _, a := range codec.AllAPIs() {
		for v := a.MinVersion; v <= a.MaxVersion; v++ {
			h := codec.RequestHeader{RequestApiKey: a.Key, RequestApiVersion: v, CorrelationId: 1, ClientId: codec.Str("c")}
			if a.Flexible(v) {
				h.ClientInstanceId = codec.SomeUUID(codec.UUID{1, 2, 3})
			}
			body := codectest.Message(codectest.Kind{Key: a.Key}, v).Example(0)
			b, err := codec.AppendRequest(nil, &h, body)
			if err != nil {
				panic(err)
			}
			out = append(out, b)
		}
	}
	return out
}

func addSeeds(f *testing.F, seeds [][]byte) {
	for _, s := range seeds {
		f.Add(s)
	}
}
