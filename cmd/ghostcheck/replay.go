package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/ghostcheck/ghostcheck/internal/targets"
)

func runReplay(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	target := fs.String("target", "", "replay against this target instead of the one each file names ("+fmt.Sprint(targets.Names())+")")
	html := fs.Bool("html", false, "also write each replayed history's report page (NAME.html, with its timeline and history) into --out")
	out := fs.String("out", "out", "directory for the pages --html writes")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: ghostcheck replay [--target T] [--html [--out DIR]] FILE|DIR...")
		fmt.Fprintln(stderr, "Re-runs corpus histories and checks that each reproduces the verdict it stores.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	files, err := targets.CorpusFiles(fs.Args()...)
	if err != nil {
		fmt.Fprintln(stderr, "ghostcheck replay:", err)
		return 2
	}
	if len(files) == 0 {
		fmt.Fprintln(stderr, "ghostcheck replay: no .jsonl histories found")
		return 2
	}
	failed := 0
	for _, f := range files {
		rr, err := targets.ReplayFile(f, *target)
		if err != nil {
			fmt.Fprintf(stdout, "ERROR %s: %v\n", f, err)
			failed++
			continue
		}
		if !printReplay(stdout, f, rr) {
			failed++
		}
		if *html {
			writeReplayPage(rr, *out, stdout, stderr)
		}
	}
	fmt.Fprintf(stdout, "%d of %d histories reproduced their verdict\n", len(files)-failed, len(files))
	if failed > 0 {
		return 1
	}
	return 0
}

// printReplay prints one file's outcome and reports whether it passed.
func printReplay(stdout io.Writer, f string, rr targets.ReplayResult) bool {
	what := rr.Target
	if rr.Mutant != "" {
		what += ", mutant " + rr.Mutant
	}
	if rr.Pass {
		fmt.Fprintf(stdout, "ok    %s (%s): %s %s\n", f, what, rr.Got.Verdict, rr.Got.Rule)
		return true
	}
	fmt.Fprintf(stdout, "FAIL  %s (%s): expected %s %s, got %s %s\n      %s\n", f, what, rr.Expect.Verdict, rr.Expect.Rule, rr.Got.Verdict, rr.Got.Rule, rr.Detail)
	return false
}
