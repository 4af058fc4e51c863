//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package wire

import (
	"net"
	"syscall"
)

// peekSocket looks at a TCP socket without reading from it and without
// waiting: recv with MSG_PEEK and MSG_DONTWAIT.
func peekSocket(nc net.Conn) peerState {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return peerUnknown
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return peerUnknown
	}
	var (
		n    int
		rerr error
		b    [1]byte
	)
	if err := rc.Read(func(fd uintptr) bool {
		n, _, rerr = syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		return true // done: never wait for the socket to become readable
	}); err != nil {
		return peerGone // closed on our side
	}
	switch {
	case rerr == syscall.EAGAIN || rerr == syscall.EWOULDBLOCK:
		return peerIdle
	case rerr == syscall.EINTR:
		return peerUnknown
	case rerr != nil:
		return peerGone // reset
	case n == 0:
		return peerGone // EOF
	}
	return peerSent
}
