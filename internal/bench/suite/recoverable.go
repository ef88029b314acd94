package suite

import (
	"context"
	"fmt"

	"github.com/vfskit/vfskit/internal/bench"
	"github.com/vfskit/vfskit/vfs"
)

// s3Recoverable writes c.Big bytes in c.Chunk pieces through s3://'s
// recoverable writer with a Persist after every eighth of the file (every 32
// MiB of 256 MiB), then commits and cleans up its tokens, against Create of
// the same bytes; and records the peak heap of each.
func s3Recoverable(ctx context.Context, c *Config) ([]bench.Result, error) {
	e, err := newS3(ctx, c)
	if err != nil {
		return nil, err
	}
	w, err := vfs.NewRecoverableWriter(e.fsys)
	if err != nil {
		return nil, err
	}
	buf := pattern(c.Chunk)
	every := c.Big / 8
	var oursPeak, basePeak uint64
	var requests, baseRequests map[string]int
	s, err := bench.Interleave(c.Rounds, func() error {
		e.ours.Reset()
		peak, err := heapPeak(func() error { return writeRecoverable(ctx, w, e.path("rw/ours"), buf, c.Big, every) })
		oursPeak, requests = max(oursPeak, peak), e.ours.Counts()
		return err
	}, func() error {
		e.ours.Reset()
		peak, err := heapPeak(func() error { return writeChunks(ctx, e.fsys, e.path("rw/create"), buf, c.Big) })
		basePeak, baseRequests = max(basePeak, peak), e.ours.Counts()
		return err
	})
	if err != nil {
		return nil, err
	}
	got, err := e.fsys.Stat(ctx, e.path("rw/ours"))
	if err != nil {
		return nil, err
	}
	if got.Size != int64(c.Big/len(buf)*len(buf)) {
		return nil, fmt.Errorf("the committed file holds %d bytes, want %d", got.Size, c.Big)
	}
	r := speed(fmt.Sprintf("s3 recoverable writer %d MiB, Persist every %d MiB (vs Create)", c.Big/mib, every/mib), s, float64(c.Big)/mib, "MiB/s", 0.9)
	limit := uint64(e.partSize*e.concur + 16*mib)
	r.Target += fmt.Sprintf(", peak heap ≤ %d MiB", limit/mib)
	r.Met = r.Met && oursPeak <= limit
	r.Requests, r.BaselineRequests = requests, baseRequests
	r.Note = fmt.Sprintf("peak heap %.1f MiB (Create %.1f MiB)", float64(oursPeak)/mib, float64(basePeak)/mib)
	return []bench.Result{r}, nil
}

// writeRecoverable writes size bytes to p through w, buf at a time, persists
// after every every bytes, commits, and cleans up the tokens.
func writeRecoverable(ctx context.Context, w vfs.RecoverableWriter, p vfs.Path, buf []byte, size, every int) error {
	out, err := w.Open(ctx, p)
	if err != nil {
		return err
	}
	var toks []vfs.ResumeRecoverable
	for n := len(buf); n <= size; n += len(buf) {
		if _, err := out.Write(buf); err != nil {
			_ = out.Close()
			return err
		}
		if n%every < len(buf) && n < size {
			tok, err := out.Persist(ctx)
			if err != nil {
				_ = out.Close()
				return err
			}
			toks = append(toks, tok)
		}
	}
	com, err := out.CloseForCommit(ctx)
	if err != nil {
		return err
	}
	if err := com.Commit(ctx); err != nil {
		return err
	}
	for _, tok := range toks {
		if err := w.CleanupRecoverableState(ctx, tok); err != nil {
			return err
		}
	}
	return nil
}
