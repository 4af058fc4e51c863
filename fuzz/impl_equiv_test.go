package fuzz

import (
	"math/rand/v2"
	"testing"

	"pgregory.net/rapid"

	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/internal/equivtest"
)

// FuzzImplEquivalence runs the model-versus-impl equivalence property
// (internal/equivtest) on operations decoded from the fuzzer's bytes through
// rapid.MakeFuzz. Invariants, after every operation:
//   - model and impl give byte-identical encoded responses (or refuse the
//     same requests);
//   - their snapshots are equal, pending revocations included, and so is
//     ConsumerGroupDescribe of every group;
//   - impl's internal bookkeeping is consistent and no partition is owned
//     by two members.
//
// Reproduce a failure with: go test ./fuzz -run '^FuzzImplEquivalence$'
func FuzzImplEquivalence(f *testing.F) {
	// rapid reads the input as a stream of uint64 draws and skips inputs
	// that run dry, so the seeds are long runs of pseudo-random bytes.
	for seed := uint64(1); seed <= 4; seed++ {
		r := rand.New(rand.NewPCG(seed, 0x6571756976))
		b := make([]byte, 32<<10)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		f.Add(b)
	}
	f.Fuzz(rapid.MakeFuzz(equivtest.Property(impl.Mutants{})))
}
