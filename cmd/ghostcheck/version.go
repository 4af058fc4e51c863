package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

// runVersion prints what the binary was built from, so a report can say
// which ghostcheck found a bug: the module version (a tag for `go install
// ...@vX`, "(devel)" or a pseudo-version for a build in a checkout), the
// commit, its time and whether the tree had changes, when Go recorded them,
// and the Go version.
func runVersion(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: ghostcheck version")
		fmt.Fprintln(stderr, "Prints ghostcheck's module version, the commit it was built from (when known) and its Go version.")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	bi, ok := debug.ReadBuildInfo()
	fmt.Fprint(stdout, versionText(bi, ok))
	return 0
}

// versionText renders build information; ok false means the binary carries
// none (built without module support).
func versionText(bi *debug.BuildInfo, ok bool) string {
	var b strings.Builder
	if !ok || bi == nil {
		fmt.Fprintf(&b, "ghostcheck (no build information)\n  go        %s\n", runtime.Version())
		return b.String()
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	fmt.Fprintf(&b, "ghostcheck %s\n", v)
	if bi.Main.Path != "" {
		fmt.Fprintf(&b, "  module    %s\n", bi.Main.Path)
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	if rev := settings["vcs.revision"]; rev != "" {
		if settings["vcs.modified"] == "true" {
			rev += " (modified)"
		}
		fmt.Fprintf(&b, "  revision  %s\n", rev)
	}
	if t := settings["vcs.time"]; t != "" {
		fmt.Fprintf(&b, "  time      %s\n", t)
	}
	gv := bi.GoVersion
	if gv == "" {
		gv = runtime.Version()
	}
	fmt.Fprintf(&b, "  go        %s\n", gv)
	return b.String()
}
