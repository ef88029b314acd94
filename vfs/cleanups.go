package vfs

import (
	"context"
	"sync"
)

// cleanups counts the cleanups in flight (see BeginCleanup).
var cleanups struct {
	mu      sync.Mutex
	n       int
	waiters []chan struct{}
}

// BeginCleanup records that a cleanup has started which a program about to
// exit should let finish: a stream whose context ended aborting its multipart
// upload or removing its temporary file, on a goroutine of its own. The
// returned function records its end; call it exactly once (later calls do
// nothing). WaitCleanups waits for every cleanup begun.
func BeginCleanup() (end func()) {
	cleanups.mu.Lock()
	cleanups.n++
	cleanups.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			cleanups.mu.Lock()
			defer cleanups.mu.Unlock()
			cleanups.n--
			if cleanups.n == 0 {
				for _, w := range cleanups.waiters {
					close(w)
				}
				cleanups.waiters = nil
			}
		})
	}
}

// WaitCleanups returns nil once no cleanup recorded by BeginCleanup is in
// flight, or ctx's error when ctx ends first. A program that cancels its work
// on a signal calls it before it exits, so that the uploads its streams were
// aborting are aborted and leave nothing behind on the store.
func WaitCleanups(ctx context.Context) error {
	cleanups.mu.Lock()
	if cleanups.n == 0 {
		cleanups.mu.Unlock()
		return nil
	}
	w := make(chan struct{})
	cleanups.waiters = append(cleanups.waiters, w)
	cleanups.mu.Unlock()
	select {
	case <-w:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
