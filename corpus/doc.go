// Package corpus is ghostcheck's regression corpus: failing (and passing)
// histories as JSON lines under histories/, replayed by its test. See
// README.md for the format and how a failure becomes an entry.
package corpus
