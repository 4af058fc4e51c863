package impl

// SetObserveState sets the function called with the coordinator after
// every request Handle or HandleHeartbeat serves and every Expire (nil for
// none), for a test that looks at every state a generated sequence
// reaches. It must not be called while a coordinator serves anything.
func SetObserveState(f func(*Coordinator)) { observeState = f }

// CloneWithMutants is Clone with mut planted in the copy instead of c's
// mutants: the mutants a request reads as it is served (a describe's, a
// connection's), in states reached without them.
func (c *Coordinator) CloneWithMutants(clock Clock, mut Mutants) *Coordinator {
	x := c.Clone(clock, nil)
	x.mut, x.cfg.Mutants = mut, mut
	return x
}
