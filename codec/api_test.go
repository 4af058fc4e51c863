package codec_test

import (
	"slices"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
)

// The api table: APIs is what ghostcheck's coordinators serve and
// advertise in ApiVersions (model.AdvertisedVersions and impl build their
// answers from it), so the routing, authentication and classic apis, which
// they do not serve, stay out of it; AllAPIs and Lookup have every api.
func TestAPITable(t *testing.T) {
	keys := func(as []*codec.API) []codec.APIKey {
		var out []codec.APIKey
		for _, a := range as {
			out = append(out, a.Key)
		}
		return out
	}
	checked := []codec.APIKey{13, 18, 68, 69, 71, 72}
	if got := keys(codec.APIs()); !slices.Equal(got, checked) {
		t.Errorf("APIs: %v, want %v", got, checked)
	}
	all := []codec.APIKey{3, 10, 11, 12, 13, 14, 15, 17, 18, 36, 68, 69, 71, 72}
	if got := keys(codec.AllAPIs()); !slices.Equal(got, all) {
		t.Errorf("AllAPIs: %v, want %v", got, all)
	}
	for _, tc := range []struct {
		key            codec.APIKey
		name           string
		min, max, flex int16
		routing, auth  bool
		classic        bool
	}{
		{codec.Metadata, "Metadata", 0, 13, 9, true, false, false},
		{codec.FindCoordinator, "FindCoordinator", 0, 6, 3, true, false, false},
		{codec.SaslHandshake, "SaslHandshake", 0, 1, 0x7fff, false, true, false},
		{codec.SaslAuthenticate, "SaslAuthenticate", 0, 2, 2, false, true, false},
		{codec.JoinGroup, "JoinGroup", 0, 9, 6, false, false, true},
		{codec.Heartbeat, "Heartbeat", 0, 4, 4, false, false, true},
		{codec.SyncGroup, "SyncGroup", 0, 5, 4, false, false, true},
		{codec.DescribeGroups, "DescribeGroups", 0, 6, 5, false, false, true},
	} {
		a := codec.Lookup(tc.key)
		if a == nil {
			t.Errorf("Lookup(%d) = nil", tc.key)
			continue
		}
		if a.Name != tc.name || a.MinVersion != tc.min || a.MaxVersion != tc.max || a.FlexibleFrom != tc.flex ||
			a.Routing != tc.routing || a.Auth != tc.auth || a.Classic != tc.classic {
			t.Errorf("Lookup(%d) = %+v", tc.key, *a)
		}
		if got := a.NewMessage(true); got.Key() != tc.key || !got.IsResponse() {
			t.Errorf("%s: NewMessage(true) is %T", tc.name, got)
		}
	}
}
