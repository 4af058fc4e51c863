// Package race says whether this build has the race detector on, so a
// test that runs in both `make unit` and `make race` can size its sweep:
// full in the plain run, which checks what it computes, and small under
// the race detector, which looks for data races on the same paths and
// runs five to ten times slower. It is not for production code: what a
// program does must not depend on how it was built.
package race
