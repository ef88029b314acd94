package checkpointstorage_test

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/s3"
	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/internal/azuritetest"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

func TestMain(m *testing.M) {
	code := s3test.Main(m)
	azuritetest.Stop()
	os.Exit(code)
}

// The S3 servers are reached through test schemes registered in vfs's default
// registry with the s3 backend's Factory (the code path of s3://, under another
// name so that each server gets its own endpoint): s3-seaweedfs://bucket/ and
// s3-gofakes3://bucket/.
var (
	seaweedOnce sync.Once
	fakeOnce    sync.Once
	fakeServer  *s3test.Server
	fakeErr     error
)

func s3Options(srv *s3test.Server) s3.Options {
	return s3.Options{
		Endpoint:        srv.Endpoint,
		Region:          srv.Region,
		Credentials:     credentials.NewStaticCredentialsProvider(srv.AccessKeyID, srv.SecretAccessKey, ""),
		RetryMaxBackoff: 100e6, // 100 ms
	}
}

var seaweedBackend = backend{name: "s3-seaweedfs", objectStore: true, base: func(t *testing.T) vfs.Path {
	srv := s3test.SeaweedFS(t) // skips (or fails with VFSKIT_REQUIRE_S3=1) when unavailable
	seaweedOnce.Do(func() { vfs.Register("s3-seaweedfs", s3.Factory(s3Options(srv))) })
	return vfs.MustPath("s3-seaweedfs://" + srv.NewBucket(t) + "/checkpoints")
}}

var gofakes3Backend = backend{name: "s3-gofakes3", objectStore: true, base: func(t *testing.T) vfs.Path {
	fakeOnce.Do(func() {
		fakeServer, fakeErr = s3test.StartGoFakeS3()
		if fakeErr == nil {
			vfs.Register("s3-gofakes3", s3.Factory(s3Options(fakeServer)))
		}
	})
	require.NoError(t, fakeErr)
	return vfs.MustPath("s3-gofakes3://" + fakeServer.NewBucket(t) + "/checkpoints")
}}

func init() { testBackends = append(testBackends, seaweedBackend, gofakes3Backend) }

var _ = context.Background

// TestS3RequestsPerCheckpoint counts the HTTP requests a checkpoint costs on
// both S3 servers: a state stream below the threshold costs none, one above it
// exactly one PutObject, and no state stream sends a HEAD or a LIST, with the
// backend's default options.
func TestS3RequestsPerCheckpoint(t *testing.T) {
	for _, start := range []func(testing.TB) *s3test.Server{s3test.SeaweedFS, s3test.GoFakeS3} {
		srv := start(t)
		t.Run(srv.Name, func(t *testing.T) {
			ctx := t.Context()
			counter := s3test.NewCounter(nil)
			o := s3.Options{Client: srv.Client(counter.HTTPClient())}
			reg := vfs.NewRegistry()
			require.NoError(t, reg.Register("s3", s3.Factory(o)))
			base := vfs.MustPath("s3://" + srv.NewBucket(t) + "/checkpoints")
			s, err := cs.NewFsCheckpointStorage(ctx, cs.NewJobID(), base, vfs.Path{}, 100, 0, cs.WithRegistry(reg))
			require.NoError(t, err)
			loc, err := s.InitializeLocationForCheckpoint(ctx, 1)
			require.NoError(t, err)
			require.Zero(t, counter.Total(), "creating the storage and a location costs no request on S3: %v", counter.Counts())

			var hs []cs.StreamStateHandle
			for i := range 5 {
				hs = append(hs, writeState(t, loc, cs.Exclusive, pattern(100, byte(i)), 10)) // inline
			}
			require.Zero(t, counter.Total(), "inline state costs nothing: %v", counter.Counts())
			for i := range 5 {
				hs = append(hs, writeState(t, loc, cs.Exclusive, pattern(1000, byte(i)), 10))
				hs = append(hs, writeState(t, loc, cs.Shared, pattern(1000, byte(i)), 0))
			}
			require.Equal(t, map[string]int{s3test.OpPutObject: 10}, counter.Counts(), "one PUT per state file, nothing else")

			counter.Reset()
			c, err := cs.FinalizeCheckpoint(ctx, loc, sampleMetadata(s.JobID(), 1, hs...))
			require.NoError(t, err)
			require.Equal(t, map[string]int{s3test.OpPutObject: 1}, counter.Counts(), "the metadata is one PUT")

			m, _, err := cs.LoadCheckpoint(ctx, c.ExternalPointer(), cs.WithRegistry(reg))
			require.NoError(t, err)
			require.Len(t, m.Handles(), 15)
			require.Equal(t, pattern(1000, 4), readHandle(t, m.Handles()[13]))
		})
	}
}
