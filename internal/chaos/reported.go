package chaos

import (
	"context"
	"log/slog"
	"sync"

	"github.com/vfskit/vfskit/backends/s3"
	"github.com/vfskit/vfskit/vfs"
)

// leftReports is a slog.Handler that collects the upload markers the s3
// backend reports leaving behind (s3.MarkerLeftMessage: a DELETE that kept
// failing) and passes every record on to next.
type leftReports struct {
	next slog.Handler
	mu   *sync.Mutex
	left *[]vfs.Path
}

// newLeftReports returns a handler passing records on to next.
func newLeftReports(next slog.Handler) leftReports {
	return leftReports{next: next, mu: new(sync.Mutex), left: new([]vfs.Path)}
}

// Enabled is next's, and true at Warn and above, where the reports come.
func (h leftReports) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn || h.next.Enabled(ctx, l)
}

// Handle collects a marker's report and passes r on.
func (h leftReports) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == s3.MarkerLeftMessage {
		var bucket, key string
		r.Attrs(func(a slog.Attr) bool {
			switch a.Key {
			case "bucket":
				bucket = a.Value.String()
			case "key":
				key = a.Value.String()
			}
			return true
		})
		if p, err := vfs.ParsePath("s3://" + bucket + "/" + key); err == nil {
			h.mu.Lock()
			*h.left = append(*h.left, p)
			h.mu.Unlock()
		}
	}
	if !h.next.Enabled(ctx, r.Level) {
		return nil
	}
	return h.next.Handle(ctx, r)
}

// WithAttrs and WithGroup keep collecting into the same list.
func (h leftReports) WithAttrs(as []slog.Attr) slog.Handler {
	return leftReports{next: h.next.WithAttrs(as), mu: h.mu, left: h.left}
}

func (h leftReports) WithGroup(name string) slog.Handler {
	return leftReports{next: h.next.WithGroup(name), mu: h.mu, left: h.left}
}

// take returns the paths reported since the last call.
func (h leftReports) take() []vfs.Path {
	h.mu.Lock()
	defer h.mu.Unlock()
	left := *h.left
	*h.left = nil
	return left
}
