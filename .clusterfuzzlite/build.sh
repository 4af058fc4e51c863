#!/bin/bash -eu
# Builds every native Go fuzz target of package fuzz with OSS-Fuzz's
# compile_native_go_fuzzer (libFuzzer), unchanged, and packs the Go seed
# corpus of each target as <fuzzer>_seed_corpus.zip next to it.
cd "$SRC/ghostcheck"
pkg=github.com/ghostcheck/ghostcheck/fuzz
for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' fuzz/*_test.go | sed 's/^func //' | sort -u); do
  name=$(echo "$target" | sed -E 's/([a-z0-9])([A-Z])/\1_\2/g' | tr 'A-Z' 'a-z')
  compile_native_go_fuzzer "$pkg" "$target" "$name"
done
go run ./internal/seedpack -in fuzz/testdata/fuzz -out "$OUT"
