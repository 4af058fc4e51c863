package impl

// CloneWithMutants is Clone with mut planted in the copy instead of c's
// mutants: the mutants a request reads as it is served (a describe's, a
// connection's), in states reached without them.
func (c *Coordinator) CloneWithMutants(clock Clock, mut Mutants) *Coordinator {
	x := c.Clone(clock, nil)
	x.mut, x.cfg.Mutants = mut, mut
	return x
}
