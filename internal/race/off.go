//go:build !race

package race

// Enabled: this build has the race detector off.
const Enabled = false
