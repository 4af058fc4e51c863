package driver

import (
	"errors"
	"sync"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// modelTarget is the reference model as a Target, for the driver's own
// tests (internal/targets.ModelTarget, which the rest use, imports this
// package): snapshots, restarts and model-exact, its calls serialized, as
// the model is sequential.
func modelTarget(cfg model.Config) Target {
	c := model.NewCoordinator(cfg)
	var mu sync.Mutex
	locked := func(f func()) {
		mu.Lock()
		defer mu.Unlock()
		f()
	}
	return WithSnapshot(modelParker{Funcs{
		HandleFunc: func(conn Conn, h *codec.RequestHeader, req codec.Message) (resp codec.Message, err error) {
			locked(func() {
				resp, err = c.Handle(model.Conn{ID: conn.ID, Host: conn.Host, Delivery: conn.Delivery}, h, req)
			})
			if errors.Is(err, model.ErrParked) {
				err = ErrParked
			}
			return resp, err
		},
		DisconnectFunc: func(id uint64) { locked(func() { c.Disconnect(id) }) },
		AdvanceFunc:    func(ms int64) error { locked(func() { c.Advance(ms) }); return nil },
		RestartFunc:    func() error { locked(c.Restart); return nil },
		Exact:          true,
	}, func() (out []Release) {
		locked(func() {
			for _, r := range c.Released() {
				out = append(out, Release{Delivery: r.Delivery, Response: r.Response, Dropped: r.Dropped})
			}
		})
		return out
	}}, func() (groups []rules.GroupSnapshot) {
		locked(func() { groups = c.Snapshot() })
		return groups
	})
}

// modelParker is a Funcs target that holds requests, as the model does
// (classic JoinGroup and SyncGroup).
type modelParker struct {
	Funcs
	released func() []Release
}

// Released implements Parker.
func (m modelParker) Released() []Release { return m.released() }
