// Command seedpack turns the Go fuzz corpus (fuzz/testdata/fuzz/<Target>/,
// Go's "go test fuzz v1" format) into libFuzzer seed corpora: one zip of raw
// inputs per target, named <target>_seed_corpus.zip as OSS-Fuzz and
// ClusterFuzzLite expect next to each fuzzer binary.
//
//	go run ./internal/seedpack -in fuzz/testdata/fuzz -out $OUT
//
// Only single-[]byte inputs are packed (every ghostcheck target takes one
// []byte); a file in another shape is reported and skipped.
package main

import (
	"archive/zip"
	"bufio"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

func main() {
	in := flag.String("in", "fuzz/testdata/fuzz", "the Go fuzz corpus: one directory per target")
	out := flag.String("out", ".", "where to write <target>_seed_corpus.zip")
	flag.Parse()
	if err := pack(*in, *out); err != nil {
		fmt.Fprintln(os.Stderr, "seedpack:", err)
		os.Exit(1)
	}
}

func pack(in, out string) error {
	targets, err := os.ReadDir(in)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for _, t := range targets {
		if !t.IsDir() {
			continue
		}
		n, err := packTarget(filepath.Join(in, t.Name()), filepath.Join(out, fuzzerName(t.Name())+"_seed_corpus.zip"))
		if err != nil {
			return fmt.Errorf("%s: %w", t.Name(), err)
		}
		fmt.Printf("%s: %d seeds\n", t.Name(), n)
	}
	return nil
}

// fuzzerName is the binary name build.sh gives a target: FuzzFrame →
// fuzz_frame.
func fuzzerName(target string) string {
	var b strings.Builder
	for i, r := range target {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

func packTarget(dir, zipPath string) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	f, err := os.Create(zipPath)
	if err != nil {
		return 0, err
	}
	zw := zip.NewWriter(f)
	n := 0
	for _, name := range names {
		data, err := readGoSeed(filepath.Join(dir, name))
		if err != nil {
			fmt.Fprintf(os.Stderr, "seedpack: skipping %s: %v\n", name, err)
			continue
		}
		w, err := zw.Create(name)
		if err != nil {
			return n, err
		}
		if _, err := w.Write(data); err != nil {
			return n, err
		}
		n++
	}
	if err := zw.Close(); err != nil {
		return n, err
	}
	return n, f.Close()
}

// readGoSeed reads a "go test fuzz v1" file holding one []byte value.
func readGoSeed(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	if !sc.Scan() || sc.Text() != "go test fuzz v1" {
		return nil, errors.New(`not a "go test fuzz v1" file`)
	}
	var values []string
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			values = append(values, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(values) != 1 || !strings.HasPrefix(values[0], "[]byte(") || !strings.HasSuffix(values[0], ")") {
		return nil, fmt.Errorf("want one []byte value, have %d values", len(values))
	}
	lit := strings.TrimSuffix(strings.TrimPrefix(values[0], "[]byte("), ")")
	s, err := strconv.Unquote(lit)
	if err != nil {
		return nil, fmt.Errorf("bad []byte literal: %w", err)
	}
	return []byte(s), nil
}
