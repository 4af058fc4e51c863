//go:build race

package race

// Enabled: this build has the race detector on.
const Enabled = true
