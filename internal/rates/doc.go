// Package rates reads fault rates in percent, by fault name, as a --faults
// flag gives them. One grammar serves every command that takes one (run and
// check with the simulated network's fault kinds, package plan; proxy with
// its own): "none" (or nothing), or NAME=PERCENT pairs joined by commas,
// where NAME is a fault or a group that spreads PERCENT over its faults
// ("uniform=10"); a name given twice adds up. A Grammar says which names a
// flag may use and how much they may add up to.
//
// It lives apart from both users so that the proxy, which injects faults
// into a real client's traffic, does not import the driver of simulated
// runs for a hundred lines of parsing.
//
// The files:
//
//   - rates.go: Grammar and its Parse.
//   - rates_test.go: the grammar's table of specs and errors.
package rates
