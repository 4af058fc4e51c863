//go:build race

package impl_test

const raceEnabled = true
