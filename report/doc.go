// Package report draws ghostcheck's results as pages a person can read in
// a browser, from disk, with no network: everything (CSS, SVG, the little
// script) is inline.
//
//   - A failure's page (WriteFailure): the verdict, the rule and what was
//     observed, the replay command, the story of the history in words, a
//     membership timeline per group, the rule's section of
//     docs/PROTOCOL.md, and porcupine's timeline of every operation
//     (WriteTimeline) framed below.
//   - The index of a command (WriteIndex): the summary, links to every
//     failure's page, plots (gonum's plot, rendered to SVG), and for a
//     broker the conformance table and the histories.
//
// Everything here is read off what the runs and checks produce
// (driver.Result, check.Report, conformance results): the package judges
// nothing itself. Only the command, ghostchecktest and tests import it.
//
// The files:
//
//   - analysis.go walks a history once and derives the story (story.go)
//     and the members' lanes (lanes.go), which svg.go draws.
//   - page.go writes the failure page, index.go the index, plots.go the
//     charts, markdown.go renders a docs section; assets/ holds the
//     templates and the stylesheet.
//   - timeline.go writes porcupine's timeline of a history (WriteTimeline:
//     one row per process, each operation labelled with its network fate,
//     a window of a history too large for one page, its search bounded by
//     the check's) and the history file beside it, and Explain says a
//     report in words.
//
// Tests: timeline_test.go (the timeline's bounds and labels, and the
// check's bound it shares),
// size_test.go, hostile_test.go, corpus_test.go, write_test.go and
// browser_test.go (the pages, in a browser too).
package report
