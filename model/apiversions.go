package model

import (
	"regexp"

	"github.com/ghostcheck/ghostcheck/codec"
)

// softwareNamePattern is what ApiVersions v3+ requires of the client's
// software name and version (§B7.1).
var softwareNamePattern = regexp.MustCompile(`^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$`)

// apiVersions serves ApiVersions v0-v4.
func (c *Coordinator) apiVersions(version int16, r *codec.ApiVersionsRequest) *codec.ApiVersionsResponse {
	resp := codec.NewApiVersionsResponse()
	if version >= 3 && (!softwareNamePattern.MatchString(r.ClientSoftwareName) || !softwareNamePattern.MatchString(r.ClientSoftwareVersion)) {
		c.hit("B7.1/bad-software-name")
		resp.ErrorCode = codec.InvalidRequest
		return resp
	}
	c.hit("B7.1/versions-answered")
	resp.ApiKeys = append([]codec.ApiVersionsKey(nil), c.advertised()...)
	return resp
}

// UnsupportedApiVersionsResponse is the answer to an ApiVersions request of
// a version the broker does not know (KIP-511): encoded at v0, error
// UNSUPPORTED_VERSION, listing at least the ApiVersions range. The body of
// such a request is not parsed, so this is the transport's to send.
func UnsupportedApiVersionsResponse(maxVersions map[codec.APIKey]int16) *codec.ApiVersionsResponse {
	resp := codec.NewApiVersionsResponse()
	resp.ErrorCode = codec.UnsupportedVersion
	for _, k := range AdvertisedVersions(maxVersions) {
		if k.ApiKey == codec.ApiVersions {
			resp.ApiKeys = append(resp.ApiKeys, k)
		}
	}
	return resp
}
