// Package fuzz holds the native fuzz targets (go test -fuzz) of ghostcheck,
// one package for all of them so that OSS-Fuzz and ClusterFuzzLite can build
// them as they are, and the differential tests against franz-go's kmsg, the
// independent codec the targets compare with (a test-only dependency).
//
// Each Fuzz function states its invariants in its doc comment. Inputs that
// once failed live under testdata/fuzz/<Target>/ and are replayed by every
// plain go test.
package fuzz
