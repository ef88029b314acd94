package s3_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/s3"
	"github.com/vfskit/vfskit/internal/chaos"
	"github.com/vfskit/vfskit/internal/faultproxy"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

// TestChaosS3 runs cycles of NoOverwrite writes (some multipart) and rename
// races through a proxy that loses 5% of the answers and throttles 20% of the
// requests with 503 SlowDown, and kills and restarts the server during every
// tenth cycle (the second one included). It then checks that every write that
// reported success is there byte for byte, that no write failed spuriously
// outside a kill, that no rename race had two winners or lost a source, and
// that no multipart upload or goroutine was left behind. The short form runs
// under make test; make chaos runs 100 cycles.
func TestChaosS3(t *testing.T) {
	cycles := chaos.Cycles(t, 3)
	srv := s3test.PrivateSeaweedFS(t)
	p, err := faultproxy.Start(srv.Endpoint)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	ctx := t.Context()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	o := optionsFor(srv, nil)
	o.Endpoint, o.PartSize, o.RetryMaxBackoff = p.URL(), s3.MinPartSize, 0 // the SDK's backoff rides out a restart
	o.HTTPClient = &http.Client{Transport: tr}
	faulty, err := s3.New(ctx, srv.Bucket, o)
	require.NoError(t, err)
	dtr := http.DefaultTransport.(*http.Transport).Clone()
	do := optionsFor(srv, nil)
	do.HTTPClient = &http.Client{Transport: dtr}
	direct, err := s3.New(ctx, srv.Bucket, do)
	require.NoError(t, err)
	require.NoError(t, vfs.WriteFile(ctx, faulty, vfs.MustPath("/warm"), []byte("up"), vfs.Overwrite))
	settle := func() int {
		tr.CloseIdleConnections()
		dtr.CloseIdleConnections()
		p.CloseIdleConnections()
		return runtime.NumGoroutine()
	}
	base := settle()

	sum := chaos.NewSummary("s3")
	checked := []string{"spurious-write-failures", "lost-writes", "rename-double-winners", "rename-lost-objects", "multipart-uploads-left", "goroutines-left"}
	for _, what := range checked {
		sum.Add(what, 0) // printed even when zero
	}
	rng := rand.New(rand.NewPCG(1, 2))
	written := map[vfs.Path][]byte{}
	for i := range cycles {
		p.Set(faultproxy.Faults{Drop: 0.05, SlowDown: 0.2, Seed: uint64(i)})
		sum.Add("cycles", 1)
		var killer sync.WaitGroup
		killing := i%10 == 1
		if killing {
			delay := time.Duration(rng.IntN(300)) * time.Millisecond
			killer.Go(func() {
				time.Sleep(delay)
				if assert.NoError(t, srv.Kill()) {
					sum.Add("server-kills", 1)
					assert.NoError(t, srv.Restart(context.Background()))
				}
			})
		}
		for j := range 5 {
			size := 100 + rng.IntN(4000)
			if j == 0 && i%5 == 0 {
				size = s3.MinPartSize + rng.IntN(1000) // multipart
			}
			path := vfs.MustPath(fmt.Sprintf("/c%d/w%d", i, j))
			data := bytes.Repeat([]byte{byte(i*5 + j)}, size)
			sum.Add("writes", 1)
			if err := vfs.WriteFile(ctx, faulty, path, data, vfs.NoOverwrite); err != nil {
				if killing {
					sum.Add("writes-failed-during-kill", 1)
				} else {
					sum.Add("spurious-write-failures", 1)
					t.Errorf("cycle %d: write %s: %v", i, path, err)
				}
				continue
			}
			written[path] = data
		}
		renameRace(t, ctx, faulty, direct, i, sum)
		killer.Wait()
	}
	p.Set(faultproxy.Faults{})

	for path, data := range written {
		got, err := vfs.ReadFile(ctx, direct, path)
		if err != nil || !bytes.Equal(got, data) {
			sum.Add("lost-writes", 1)
			t.Errorf("%s: written with success, now %d bytes, %v", path, len(got), err)
		}
	}
	ups, err := srv.Client(nil).ListMultipartUploads(ctx, &awss3.ListMultipartUploadsInput{Bucket: aws.String(srv.Bucket)})
	require.NoError(t, err)
	sum.Add("multipart-uploads-left", len(ups.Uploads))
	left := settle()
	for range 300 {
		if left <= base {
			break
		}
		time.Sleep(10 * time.Millisecond)
		left = settle()
	}
	sum.Add("goroutines-left", max(0, left-base))
	c := p.Counts()
	sum.Add("requests", c.Requests)
	sum.Add("answers-lost", c.Dropped)
	sum.Add("slowdowns", c.SlowDowns)
	sum.Report(t)

	for _, what := range checked {
		assert.Zero(t, sum.Get(what), what)
	}
}

// renameRace renames four files onto one destination at once: at most one may
// win (exactly one outside a kill), every loser keeps its source, and the
// destination holds the winner's bytes.
func renameRace(t *testing.T, ctx context.Context, faulty, direct vfs.FileSystem, cycle int, sum *chaos.Summary) {
	const racers = 4
	dst := vfs.MustPath(fmt.Sprintf("/c%d/race/dst", cycle))
	src := func(w int) vfs.Path { return vfs.MustPath(fmt.Sprintf("/c%d/race/src-%d", cycle, w)) }
	data := func(w int) []byte { return bytes.Repeat([]byte{byte(w + 1)}, 500+w) }
	for w := range racers {
		if err := vfs.WriteFile(ctx, direct, src(w), data(w), vfs.NoOverwrite); err != nil {
			sum.Add("rename-races-skipped", 1) // the server is down: no race this cycle
			return
		}
	}
	errs := make([]error, racers)
	var wg sync.WaitGroup
	for w := range racers {
		wg.Go(func() { errs[w] = faulty.Rename(ctx, src(w), dst) })
	}
	wg.Wait()
	sum.Add("rename-races", 1)
	winners := 0
	for w, err := range errs {
		if err == nil {
			winners++
			if got, rerr := vfs.ReadFile(ctx, direct, dst); rerr != nil || !bytes.Equal(got, data(w)) {
				sum.Add("rename-lost-objects", 1)
				t.Errorf("cycle %d: rename %d won but %s holds %d bytes (%v)", cycle, w, dst, len(got), rerr)
			}
			continue
		}
		if got, rerr := vfs.ReadFile(ctx, direct, src(w)); rerr != nil || !bytes.Equal(got, data(w)) {
			sum.Add("rename-lost-objects", 1)
			t.Errorf("cycle %d: rename %d failed (%v) and its source is gone (%v)", cycle, w, err, rerr)
		}
	}
	switch {
	case winners > 1:
		sum.Add("rename-double-winners", 1)
		t.Errorf("cycle %d: %d renames onto %s succeeded: %v", cycle, winners, dst, errs)
	case winners == 0:
		sum.Add("rename-races-without-winner", 1)
	}
}
