package driver

import (
	"errors"

	"github.com/ghostcheck/ghostcheck/codec"
)

// ErrParked is what Handle returns when the coordinator holds the request
// instead of answering it now: a classic JoinGroup or SyncGroup waiting
// for its group, or any request behind one on its connection (a broker
// reads no further request from a connection until it has answered the
// current one). Its answer, if any, comes through Parker.Released, named
// by the delivery number Handle got with it (Conn.Delivery).
var ErrParked = errors.New("driver: request parked, its answer comes later")

// Parker is implemented by targets that park requests (ErrParked). After
// every Handle, Advance, Restart and Disconnect the driver drains
// Released: the answers the coordinator gave parked requests since the
// last call, in the order it gave them. A target that parks without
// being a Parker, or never releases what it parked, fails the run as a
// harness error naming the operations.
type Parker interface {
	Released() []Release
}

// Release is the coordinator's answer to a parked request, named by the
// delivery number the request was handled with. Dropped: the coordinator
// will never answer it (its member was removed while its SyncGroup
// waited); Response is then nil.
type Release struct {
	Delivery uint64
	Response codec.Message
	Dropped  bool
}
