package report

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/ghostcheck/ghostcheck/history"
)

// Pages are written through history.WritePath: the directory is made as
// needed, and a page that fails to render is an error, not a silent
// half-written file.
func TestPagesWrittenThroughWritePath(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run", "out")
	path, err := WriteIndex(dir, Index{Kind: "run", Title: "t", Verdict: "Ok", Headline: "h"})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Size() == 0 || filepath.Dir(path) != dir {
		t.Fatalf("the index at %s: %v, %v", path, st, err)
	}
	broken := errors.New("render failed")
	if err := history.WritePath(filepath.Join(dir, "x.html"), func(io.Writer) error { return broken }); !errors.Is(err, broken) {
		t.Fatalf("a failed render: %v, want it returned", err)
	}
}
