package blobfs

import (
	"errors"
	"sync"
)

// forEachKey calls fn for every key, at most limit calls at once, and returns
// every error fn returned, joined (nil when there was none).
func forEachKey(keys []string, limit int, fn func(k string) error) error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
		sem  = make(chan struct{}, limit)
	)
	for _, k := range keys {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := fn(k); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
