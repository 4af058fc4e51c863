package nettest

import (
	"testing"

	"github.com/ghostcheck/ghostcheck/internal/pki"
)

// NewPKI makes a throwaway certificate authority for one test (package
// pki), its files in the test's temporary directory.
func NewPKI(t testing.TB) *pki.PKI {
	t.Helper()
	p, err := pki.Make(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return p
}
