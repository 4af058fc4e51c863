package server

import "time"

// SetHandleDelay slows every request s serves by d: a loaded machine, for
// the drain tests.
func SetHandleDelay(s *Server, d time.Duration) { s.handleDelay = d }
