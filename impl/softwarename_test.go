package impl

import (
	"regexp"
	"testing"

	"pgregory.net/rapid"
)

// validSoftwareName is KIP-511's pattern, checked against the pattern
// itself on drawn names.
func TestValidSoftwareNameIsThePattern(t *testing.T) {
	pattern := regexp.MustCompile(`^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$`)
	for _, s := range []string{"", "a", "-", ".", "a-", "-a", "a.b", "a..b", "kgo", "franz-go", "1.2.3", "v1.0.0-rc1", "a b", "a_b", "é", "a\x00"} {
		if got, want := validSoftwareName(s), pattern.MatchString(s); got != want {
			t.Errorf("validSoftwareName(%q) = %v, the pattern says %v", s, got, want)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.StringOfN(rapid.SampledFrom([]rune("aZ09-._ \x00é")), 0, 6, -1).Draw(t, "s")
		if got, want := validSoftwareName(s), pattern.MatchString(s); got != want {
			t.Fatalf("validSoftwareName(%q) = %v, the pattern says %v", s, got, want)
		}
	})
}
