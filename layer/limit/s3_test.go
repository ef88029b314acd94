package limit_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/s3"
	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/conformance"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/layer/internal/layertest"
	"github.com/vfskit/vfskit/layer/limit"
	"github.com/vfskit/vfskit/vfs"
)

func TestMain(m *testing.M) { os.Exit(s3test.Main(m)) }

// newS3 returns a file system on a fresh bucket of the shared SeaweedFS
// server (the test is skipped without one, unless VFSKIT_REQUIRE_S3=1).
func newS3(t *testing.T) (vfs.FileSystem, string) {
	t.Helper()
	srv := s3test.SeaweedFS(t)
	bucket := srv.NewBucket(t)
	fsys, err := s3.New(t.Context(), bucket, s3.Options{
		Endpoint:        srv.Endpoint,
		Region:          srv.Region,
		Credentials:     credentials.NewStaticCredentialsProvider(srv.AccessKeyID, srv.SecretAccessKey, ""),
		RetryMaxBackoff: 100 * time.Millisecond,
	})
	require.NoError(t, err)
	return fsys, bucket
}

func TestConformanceS3(t *testing.T) {
	inner, bucket := newS3(t)
	f, err := limit.New(inner, limit.Settings{Total: 64, Input: 48, Output: 48, OpenTimeout: time.Minute})
	require.NoError(t, err)
	conformance.Run(t, conformance.Harness{New: func(t *testing.T) (vfs.FileSystem, vfs.Path) {
		dir := vfs.MustPath("s3://" + bucket + "/conformance").Join(t.Name())
		t.Cleanup(func() { _ = inner.Delete(context.Background(), dir, true) })
		return f, dir
	}})
}

// TestCheckpointOverLimitS3: Flink's checkpoint storage over s3:// limited to
// two streams, configured the way Flink is (fs.s3.limit.total through the
// registry). Eight writers per checkpoint and eight readers on restore; the
// streams open below never exceed two, and every state reads back byte for
// byte.
func TestCheckpointOverLimitS3(t *testing.T) {
	ctx := t.Context()
	inner, bucket := newS3(t)
	spy := layertest.NewSpy(inner)
	reg := vfs.NewRegistry()
	require.NoError(t, reg.Register("s3", func(context.Context, *url.URL) (vfs.FileSystem, error) { return spy, nil }))
	require.NoError(t, limit.Configure(reg, map[string]string{"fs.s3.limit.total": "2"}))
	fsys, err := reg.Get(ctx, "s3://"+bucket+"/")
	require.NoError(t, err)
	require.IsType(t, &limit.FS{}, fsys)

	base := vfs.MustPath("s3://" + bucket + "/checkpoints")
	storage, err := cs.NewFsCheckpointStorage(ctx, cs.NewJobID(), base, base.Join("savepoints"), 100, 0, cs.WithRegistry(reg))
	require.NoError(t, err)
	const subtasks = 8
	for id := int64(1); id <= 3; id++ {
		loc, err := storage.InitializeLocationForCheckpoint(ctx, id)
		require.NoError(t, err)
		want := make([][]byte, subtasks)
		handles := make([]cs.StreamStateHandle, subtasks)
		var wg sync.WaitGroup
		errs := make([]error, subtasks)
		for i := range subtasks {
			want[i] = bytes.Repeat([]byte(fmt.Sprintf("chk %d subtask %d;", id, i)), 100*(i+1))
			scope := cs.Exclusive
			if i%2 == 1 {
				scope = cs.Shared
			}
			wg.Go(func() {
				out, err := loc.CreateCheckpointStateOutputStream(ctx, scope)
				if err != nil {
					errs[i] = err
					return
				}
				for chunk := range bytes.SplitAfterSeq(want[i], []byte(";")) {
					if _, err := out.Write(chunk); err != nil {
						errs[i] = err
						return
					}
				}
				handles[i], errs[i] = out.CloseAndGetHandle(ctx)
			})
		}
		wg.Wait()
		for i, err := range errs {
			require.NoError(t, err, "subtask %d", i)
		}
		m := &cs.CheckpointMetadata{JobID: storage.JobID(), CheckpointID: id, Timestamp: time.Now()}
		op := cs.OperatorState{UID: "map", Parallelism: subtasks, MaxParallelism: 128}
		for i, h := range handles {
			op.Subtasks = append(op.Subtasks, cs.SubtaskState{Index: i, Handles: []metadata.Handle{h}})
		}
		m.Operators = []cs.OperatorState{op}
		completed, err := cs.FinalizeCheckpoint(ctx, loc, m)
		require.NoError(t, err)

		// Restore: load the pointer's metadata and read every state, eight
		// at once.
		loaded, _, err := cs.LoadCheckpoint(ctx, completed.ExternalPointer(), cs.WithRegistry(reg))
		require.NoError(t, err)
		hs := loaded.Handles()
		require.Len(t, hs, subtasks)
		got := make([][]byte, subtasks)
		for i, h := range hs {
			sh, ok := h.(cs.StreamStateHandle)
			require.True(t, ok, "%T is not a live state handle", h)
			wg.Go(func() {
				in, err := sh.OpenInputStream(ctx)
				if err != nil {
					errs[i] = err
					return
				}
				got[i], errs[i] = io.ReadAll(in)
				_ = in.Close()
			})
		}
		wg.Wait()
		for i := range subtasks {
			require.NoError(t, errs[i], "restore %d", i)
			require.True(t, bytes.Equal(want[i], got[i]), "checkpoint %d state %d differs", id, i)
		}
	}
	open, peak, _, _ := spy.Streams()
	require.Zero(t, open, "every stream was closed")
	require.LessOrEqual(t, peak, 2, "at most two streams open at any moment")
	require.Equal(t, 2, peak, "the writers did run two at a time")
}
