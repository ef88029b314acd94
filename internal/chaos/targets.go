package chaos

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/vfskit/vfskit/backends/local"
	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/backends/s3"
	"github.com/vfskit/vfskit/internal/faultproxy"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

// newJob is the job every target runs: four state streams of up to 48 KiB, a
// multipart-sized one (s3.MinPartSize and a bit) every tenth checkpoint (the
// first cycle's included), the
// canaries named every seventh, three checkpoints retained.
func newJob(base vfs.Path, seed uint64, reg *vfs.Registry) *Job {
	j := &Job{Base: base, Seed: seed, Registry: reg, BigEvery: 10, BigSize: s3.MinPartSize}
	j.Defaults()
	return j
}

// MemoryTarget is memory:// (a fresh private authority) behind a FaultFS. Each
// cycle is, at random, clean (two in five), faulted (one in five: 1% of
// operations fail before reaching the store, 1% have their answer lost) or
// crashed (two in five: the store dies after a random number of operations,
// fewer than a whole cycle takes, and comes back at its end with everything it held).
func MemoryTarget(t testing.TB, seed uint64) Target {
	inner := memfs.New()
	authority := inner.URI().Host
	t.Cleanup(func() { memfs.Reset(authority) })
	ffs := NewFaultFS(inner)
	reg := vfs.NewRegistry()
	if err := reg.Register(memfs.Scheme, func(ctx context.Context, u *url.URL) (vfs.FileSystem, error) {
		if u.Host == authority {
			return ffs, nil
		}
		return memfs.Factory(ctx, u)
	}); err != nil {
		t.Fatal(err)
	}
	direct := vfs.NewRegistry()
	if err := direct.Register(memfs.Scheme, memfs.Factory); err != nil {
		t.Fatal(err)
	}
	root := vfs.MustPath("memory://" + authority + "/")
	lastOps := 100 // operations of the last cycle no fault hit
	return Target{
		Name:   "memory",
		Job:    newJob(root.Join("checkpoints"), seed, reg),
		Direct: direct,
		Fault: func(_ context.Context, _ int, rng *rand.Rand) func() bool {
			before := ffs.Counts()
			switch rng.IntN(5) {
			case 2:
				ffs.Set(FSFaults{Fail: 0.01, Lose: 0.01, Seed: rng.Uint64()})
			case 3, 4:
				ffs.CrashAfter(rng.IntN(lastOps))
			}
			return func() bool {
				ffs.Set(FSFaults{})
				ffs.Revive()
				after := ffs.Counts()
				if after.Faulted() == before.Faulted() {
					lastOps = max(after.Ops-before.Ops, 1)
				}
				return after.Faulted() > before.Faulted()
			}
		},
		Race:    ffs,
		RaceDir: root.Join("races"),
		Counts: func(s *Summary) {
			c := ffs.Counts()
			s.Add("store-operations", c.Ops)
			s.Add("store-crashes", c.Crashes)
			s.Add("operations-failed", c.Failed+c.DeadOps)
			s.Add("answers-lost", c.Lost)
		},
		Log: t.Logf,
	}
}

// FileTarget is file:// in a temporary directory, written by a child process
// (ChildRunner: the caller's TestMain must call RunChild) that is killed with
// SIGKILL at a random point of every cycle (some cycles finish first). The
// rename races run in this process, on the local file system.
func FileTarget(t testing.TB, seed uint64) Target {
	dir := t.TempDir()
	root := vfs.MustPath("file://" + filepath.ToSlash(dir))
	direct := vfs.DefaultRegistry()
	job := newJob(root.Join("checkpoints"), seed, direct)
	kills := 0
	run := ChildRunner(job)
	return Target{
		Name:   "file",
		Job:    job,
		Direct: direct,
		Run: func(ctx context.Context, c int, rng *rand.Rand) (CycleResult, bool) {
			r, killed := run(ctx, c, rng)
			if killed {
				kills++
			}
			return r, killed
		},
		Race:    local.New(),
		RaceDir: root.Join("races"),
		Counts:  func(s *Summary) { s.Add("writer-kills", kills) },
		Log:     t.Logf,
	}
}

// S3Target is s3:// on a private SeaweedFS server (s3test.PrivateSeaweedFS)
// behind a faultproxy that, in every cycle, loses the answer to 5% of the
// requests and answers 20% with 503 SlowDown; in every fifth cycle (the second
// included) the server is also killed with SIGKILL at a random moment of the
// cycle and restarted on the same data. The client retries with the SDK's
// backoff (capped at 500 ms) up to s3.DefaultMaxAttempts times; requests and
// retries are counted. Multipart uploads left on the server are counted at the
// end. The upload markers the library reports leaving (s3.MarkerLeftMessage)
// are the target's Reported.
func S3Target(t testing.TB, seed uint64) Target {
	srv := s3test.PrivateSeaweedFS(t)
	p, err := faultproxy.Start(srv.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	creds := credentials.NewStaticCredentialsProvider(srv.AccessKeyID, srv.SecretAccessKey, "")
	tr := http.DefaultTransport.(*http.Transport).Clone()
	att := &Attempts{Base: tr}
	reports := newLeftReports(slog.Default().Handler())
	reg := vfs.NewRegistry()
	if err := reg.Register("s3", s3.Factory(s3.Options{
		Endpoint: p.URL(), Region: srv.Region, Credentials: creds,
		HTTPClient: &http.Client{Transport: att}, PartSize: s3.MinPartSize,
		RetryMaxBackoff: 500 * time.Millisecond, Logger: slog.New(reports),
	})); err != nil {
		t.Fatal(err)
	}
	dtr := http.DefaultTransport.(*http.Transport).Clone()
	direct := vfs.NewRegistry()
	if err := direct.Register("s3", s3.Factory(s3.Options{
		Endpoint: srv.Endpoint, Region: srv.Region, Credentials: creds,
		HTTPClient: &http.Client{Transport: dtr}, RetryMaxBackoff: time.Second,
	})); err != nil {
		t.Fatal(err)
	}
	root := vfs.MustPath("s3://" + srv.Bucket + "/")
	race, err := reg.GetPath(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	kills := 0
	cycleTime := time.Second // how long a cycle without a kill takes, smoothed
	return Target{
		Name:   "s3",
		Job:    newJob(root.Join("checkpoints"), seed, reg),
		Direct: direct,
		Fault: func(ctx context.Context, c int, rng *rand.Rand) func() bool {
			p.Set(faultproxy.Faults{Drop: 0.05, SlowDown: 0.2, Seed: rng.Uint64()})
			start := time.Now()
			if c%5 != 1 {
				return func() bool {
					p.Set(faultproxy.Faults{})
					cycleTime = (3*cycleTime + time.Since(start)) / 4
					return false
				}
			}
			delay := time.Duration(rng.Int64N(int64(cycleTime) * 3 / 4))
			stop := make(chan struct{})
			var wg sync.WaitGroup
			var killed bool
			var restartErr error
			wg.Add(1)
			go func() {
				defer wg.Done()
				select {
				case <-stop:
					return
				case <-time.After(delay):
				}
				if err := srv.Kill(); err != nil {
					restartErr = err
					return
				}
				killed = true
				kills++
				restartErr = srv.Restart(context.WithoutCancel(ctx))
			}()
			return func() bool {
				close(stop)
				wg.Wait()
				p.Set(faultproxy.Faults{})
				if restartErr != nil {
					t.Fatalf("chaos s3: restarting SeaweedFS: %v", restartErr)
				}
				return killed
			}
		},
		Race:     race,
		RaceDir:  root.Join("races"),
		Reported: reports.take,
		Settle: func() {
			tr.CloseIdleConnections()
			dtr.CloseIdleConnections()
			p.CloseIdleConnections()
		},
		Uploads: func(ctx context.Context) ([]string, error) {
			out, err := srv.Client(&http.Client{Transport: dtr}).ListMultipartUploads(ctx,
				&awss3.ListMultipartUploadsInput{Bucket: aws.String(srv.Bucket)})
			if err != nil {
				return nil, err
			}
			var ups []string
			for _, u := range out.Uploads {
				ups = append(ups, fmt.Sprintf("%s (upload %s, initiated %s)",
					aws.ToString(u.Key), aws.ToString(u.UploadId), aws.ToTime(u.Initiated).Format(time.RFC3339Nano)))
			}
			return ups, nil
		},
		Counts: func(s *Summary) {
			c := p.Counts()
			s.Add("server-kills", kills)
			s.Add("proxy-requests", c.Requests)
			s.Add("answers-lost", c.Dropped)
			s.Add("slowdowns", c.SlowDowns)
			requests, retries, most, limit := att.Counts()
			s.Add("client-requests", requests)
			s.Add("client-retries", retries)
			s.Add("most-attempts", most)
			s.Add("attempt-limit", limit)
		},
		Log: t.Logf,
	}
}
