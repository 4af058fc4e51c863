// Package ghostchecktest holds your own group coordinator to ghostcheck's
// checks from your own go test, in one call:
//
//	func TestMyCoordinator(t *testing.T) {
//		ghostchecktest.Run(t, func(cfg ghostchecktest.Config) ghostchecktest.Target {
//			return mycoord.New(cfg.Topics, cfg.SessionTimeoutMs) // the plan's topics and timeouts
//		}, ghostchecktest.Options{})
//	}
//
// Your coordinator is a Target: three methods (Handle, Disconnect,
// Advance) over the wire vocabulary of package codec, or Funcs of plain
// functions. Optional methods tell more: a Snapshotter shows its whole
// state, a Restarter can restart, a ModelExacter answers exactly as the
// reference coordinator (Reference) does, a Parker answers held requests
// later.
//
// Run runs a plan per seed (or a rapid property), each against a fresh
// target configured by the plan's Config: client processes joining,
// heartbeating and leaving under lost, duplicated and delayed requests and
// responses, crashes, resets, admin removals and a prober. It checks every
// history at the level the target asks for (the observable level unless
// the target declares itself model-exact), and at the first failure
// shrinks the plan, writes the history and its HTML page, and fails the
// test with the rule broken and a command that replays it from your
// package:
//
//	go test example.com/mycoord -run '^TestMyCoordinator$' -ghostcheck.replay=FILE
//
// Two test flags steer it: -ghostcheck.out=DIR keeps the files in DIR (by
// default they go to t.ArtifactDir(), which go test removes after the test
// unless it runs with -artifacts), and -ghostcheck.replay=FILE runs the
// history in FILE again instead of drawing plans: the test passes when the
// target now checks Ok (the bug is fixed) and fails while it does not.
//
// The files:
//
//   - target.go: Target and its optional methods, Config, NewTarget,
//     Reference.
//   - run.go: Run, Options, Outcome, Failure, Level; the seeds' runs,
//     shrinking, the failure's files and message.
//   - rapid.go: the plans drawn from a rapid property (Options.Rapid).
//   - replay.go: a history run again (-ghostcheck.replay).
//   - example_test.go: the examples, and docs/library.md's three coordinators
//     (a correct one passes, one with its own error messages raises no
//     false alarm, a leaky one is caught); ghostchecktest_test.go: the
//     replay from the test binary, rapid's quiet, a panicking target.
package ghostchecktest
