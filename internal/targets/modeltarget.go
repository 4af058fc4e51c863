package targets

import (
	"errors"
	"sync"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// ModelTarget is the reference model as a Target, and a driver.Parker (the
// model holds classic JoinGroups and SyncGroups). It serializes calls,
// since the model is sequential.
type ModelTarget struct {
	mu sync.Mutex
	c  *model.Coordinator
}

// NewModelTarget returns the model coordinator configured by cfg.
func NewModelTarget(cfg model.Config) *ModelTarget {
	return &ModelTarget{c: model.NewCoordinator(cfg)}
}

// Handle implements Target.
func (t *ModelTarget) Handle(conn driver.Conn, h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	resp, err := t.c.Handle(model.Conn{ID: conn.ID, Host: conn.Host, Delivery: conn.Delivery}, h, req)
	if errors.Is(err, model.ErrParked) {
		err = driver.ErrParked
	}
	return resp, err
}

// Released implements driver.Parker.
func (t *ModelTarget) Released() []driver.Release {
	t.mu.Lock()
	defer t.mu.Unlock()
	return driverReleases(t.c.Released())
}

// driverReleases is the model's or impl's answers to held requests as the
// driver takes them (nil for none).
func driverReleases[R model.Release | impl.Release](rel []R) []driver.Release {
	if len(rel) == 0 {
		return nil
	}
	out := make([]driver.Release, len(rel))
	for i, r := range rel {
		out[i] = driver.Release(r)
	}
	return out
}

// Disconnect implements Target.
func (t *ModelTarget) Disconnect(connID uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.c.Disconnect(connID)
}

// Advance implements Target.
func (t *ModelTarget) Advance(nowMs int64) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.c.Advance(nowMs)
	return nil
}

// Restart implements Restarter.
func (t *ModelTarget) Restart() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.c.Restart()
	return nil
}

// ModelExact implements ModelExacter: the model is the yardstick itself.
func (t *ModelTarget) ModelExact() bool { return true }

// Snapshot implements Snapshotter.
func (t *ModelTarget) Snapshot() []rules.GroupSnapshot {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.c.Snapshot()
}
