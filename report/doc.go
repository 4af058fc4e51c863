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
// The files (assets/ holds the templates and the stylesheet):
//
//   - analysis.go: a history walked once, the facts the story and the
//     lanes are derived from.
//   - story.go: the story of a history in words.
//   - lanes.go: the members' lanes over time, per group; svg.go: the
//     lanes drawn.
//   - page.go: the failure page (WriteFailure).
//   - index.go: the index of a run or a check (WriteIndex).
//   - plots.go: the charts (LinePlot, BarPlot).
//   - markdown.go: a docs section rendered as HTML.
//   - timeline.go: porcupine's timeline of a history (WriteTimeline: one
//     row per process, each operation labelled with its network fate, a
//     window of a history too large for one page, its search bounded by
//     the check's) and the history file beside it; Explain, a report in
//     words.
package report
