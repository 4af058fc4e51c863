package main

import (
	"archive/zip"
	"os"
	"path/filepath"
	"testing"
)

func TestPackRoundTrip(t *testing.T) {
	in := t.TempDir()
	dir := filepath.Join(in, "FuzzFrame")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	seed := "go test fuzz v1\n[]byte(\"\\x00\\x00\\x00\\x02ab\\xff\")\n"
	if err := os.WriteFile(filepath.Join(dir, "s1"), []byte(seed), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad"), []byte("go test fuzz v1\nint(3)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := pack(in, out); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.OpenReader(filepath.Join(out, "fuzz_frame_seed_corpus.zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	if len(zr.File) != 1 || zr.File[0].Name != "s1" {
		t.Fatalf("zip holds %d files, want only s1", len(zr.File))
	}
	rc, _ := zr.File[0].Open()
	got := make([]byte, 16)
	n, _ := rc.Read(got)
	if string(got[:n]) != "\x00\x00\x00\x02ab\xff" {
		t.Fatalf("raw seed %q", got[:n])
	}
}

func TestFuzzerName(t *testing.T) {
	for in, want := range map[string]string{"FuzzFrame": "fuzz_frame", "FuzzRequestHeader": "fuzz_request_header", "FuzzImplEquivalence": "fuzz_impl_equivalence"} {
		if got := fuzzerName(in); got != want {
			t.Errorf("%s → %s, want %s", in, got, want)
		}
	}
}
