package client

import "github.com/ghostcheck/ghostcheck/codec"

// GetTelemetrySubscriptions builds the client's telemetry subscription
// request at version: at v1 the id travels only in the header; at v0 the
// body carries the client's own id (never zero).
func (c *Client) GetTelemetrySubscriptions(version int16) *codec.GetTelemetrySubscriptionsRequest {
	r := &codec.GetTelemetrySubscriptionsRequest{}
	if version == 0 {
		r.ClientInstanceId = c.ids.instanceID
	}
	return r
}

// PushTelemetry builds a push at version.
func (c *Client) PushTelemetry(version int16, subscriptionID int32, terminating bool, metrics []byte) *codec.PushTelemetryRequest {
	r := &codec.PushTelemetryRequest{SubscriptionId: subscriptionID, Terminating: terminating, Metrics: metrics}
	if version == 0 {
		r.ClientInstanceId = c.ids.instanceID
	}
	return r
}
