//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package wire

import "net"

// peekSocket cannot peek here: PeerClosed reads with a short deadline.
func peekSocket(net.Conn) peerState { return peerUnknown }
