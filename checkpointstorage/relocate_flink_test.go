package checkpointstorage_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/local"
	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/backends/s3"
	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

const nativeSavepoint = "apache-flink/flink-tests/src/test/resources/new-stateful-broadcast-udf-migration-itcase-flink1.17-rocksdb-savepoint-native"

// countingRegistry is a registry with file://, memory:// and s3:// on
// SeaweedFS through a request counter; it returns the registry, the counter
// and a fresh bucket.
func countingRegistry(t testing.TB) (*vfs.Registry, *s3test.Counter, string) {
	t.Helper()
	srv := s3test.SeaweedFS(t)
	counter := s3test.NewCounter(nil)
	reg := vfs.NewRegistry()
	require.NoError(t, reg.Register("s3", s3.Factory(s3.Options{Client: srv.Client(counter.HTTPClient())})))
	require.NoError(t, reg.Register("file", local.Factory))
	require.NoError(t, reg.Register("memory", memfs.Factory))
	return reg, counter, srv.NewBucket(t)
}

// TestRelocateFlinkSavepoint moves a native RocksDB savepoint Flink wrote from
// file:// to memory:// and to S3 (SeaweedFS): it verifies there, loads with
// LoadCheckpoint, and its _metadata is the same bytes (it has only relative
// references). Verifying on S3 lists the directory once: no request per file.
func TestRelocateFlinkSavepoint(t *testing.T) {
	root, _ := copyFixtures(t, nativeSavepoint)
	src := fileURI(filepath.Join(root, nativeSavepoint))
	orig, err := os.ReadFile(filepath.Join(root, nativeSavepoint, "_metadata"))
	require.NoError(t, err)
	reg, counter, bucket := countingRegistry(t)
	for _, dst := range []vfs.Path{
		memPath("memory://relocate-" + strings.ToLower(t.Name()) + "/savepoints/sp-1"),
		vfs.MustPath("s3://" + bucket + "/savepoints/sp-1"),
	} {
		t.Run(dst.Scheme(), func(t *testing.T) {
			r, err := cs.Relocate(t.Context(), src, dst, cs.WithRegistry(reg))
			require.NoError(t, err)
			assert.Equal(t, 45, r.Files)
			assert.Zero(t, r.Rewritten)
			require.Len(t, r.Verifications, 1)
			assert.True(t, r.Verifications[0].OK())

			counter.Reset()
			v, err := cs.VerifyCheckpoint(t.Context(), dst, cs.WithRegistry(reg))
			require.NoError(t, err)
			require.True(t, v.OK(), v.Problems())
			require.Len(t, v.Files, 44)
			if dst.Scheme() == "s3" {
				assert.Equal(t, 1, counter.Count(s3test.OpListObjectsV2), "one LIST for 44 files: %v", counter.Counts())
				assert.Zero(t, counter.Count(s3test.OpHeadObject), "no HEAD per file: %v", counter.Counts())
			}

			v, err = cs.VerifyCheckpoint(t.Context(), dst.Join("_metadata"), cs.WithRegistry(reg))
			require.NoError(t, err, "a pointer to the _metadata file verifies too")
			require.True(t, v.OK(), v.Problems())
			assert.Equal(t, dst, v.Dir)

			m, loc, err := cs.LoadCheckpoint(t.Context(), dst.String(), cs.WithRegistry(reg))
			require.NoError(t, err)
			assert.Equal(t, "savepoint", m.Type())
			assert.Equal(t, "native", m.SavepointFormat())
			fsys, err := reg.GetPath(t.Context(), dst)
			require.NoError(t, err)
			moved, err := vfs.ReadFile(t.Context(), fsys, loc.MetadataPath())
			require.NoError(t, err)
			assert.True(t, bytes.Equal(orig, moved), "the _metadata is copied unchanged")

			_, err = cs.Relocate(t.Context(), src, dst, cs.WithRegistry(reg))
			require.ErrorIs(t, err, fs.ErrExist, "a second relocation to the same place is refused")
		})
	}
}

// TestRelocateGimralJob moves an incremental RocksDB job whose shared files are
// recorded as file:/state/checkpoint/<job>/shared/...: without a mapping it is
// refused with the list of those references and nothing is written; with it,
// the references are rewritten for the new place (version 3 kept), the job
// verifies there with no mapping, and audit finds every file referenced.
func TestRelocateGimralJob(t *testing.T) {
	root, _ := copyFixtures(t, gimralBase)
	base := filepath.Join(root, gimralBase)
	reg, _, bucket := countingRegistry(t)
	m, err := cs.ParsePathMapping("file:/state/checkpoint=" + fileURI(base).String())
	require.NoError(t, err)
	for job, chk := range gimralJobs {
		src := fileURI(filepath.Join(base, job))
		for _, dst := range []vfs.Path{
			memPath("memory://relocate-gimral/jobs/" + job),
			vfs.MustPath("s3://" + bucket + "/jobs/" + job),
		} {
			_, err := cs.Relocate(t.Context(), src, dst, cs.WithRegistry(reg))
			var foreign *cs.ForeignReferencesError
			require.True(t, errors.As(err, &foreign), "%v", err)
			require.ErrorIs(t, err, fs.ErrInvalid)
			assert.Len(t, foreign.Refs, 3)
			for _, r := range foreign.Refs {
				assert.True(t, strings.HasPrefix(r.Recorded, "file:/state/checkpoint/"+job+"/shared/"), r.Recorded)
			}
			fsys, err := reg.GetPath(t.Context(), dst)
			require.NoError(t, err)
			entries, err := fsys.List(t.Context(), dst)
			if err == nil {
				assert.Empty(t, entries, "a refused relocation writes nothing")
			}

			r, err := cs.Relocate(t.Context(), src, dst, cs.WithRegistry(reg), cs.WithPathMapping(m))
			require.NoError(t, err)
			assert.Equal(t, 3, r.Rewritten)
			assert.Equal(t, 7, r.Files)
			v, err := cs.VerifyCheckpoint(t.Context(), dst.Join(chk), cs.WithRegistry(reg))
			require.NoError(t, err)
			require.True(t, v.OK(), v.Problems())
			assert.Equal(t, 3, v.Metadata.Version)
			assert.Equal(t, metadata.FormatFlink, v.Metadata.Format)
			for _, f := range v.Files {
				if f.Reference == metadata.Absolute {
					assert.Equal(t, dst.Join("shared", f.Path.Name()).String(), f.Recorded)
				}
			}
			a, err := cs.AuditJob(t.Context(), dst, cs.WithRegistry(reg))
			require.NoError(t, err)
			assert.Empty(t, a.Orphans)
			assert.Equal(t, a.Bytes, a.ReferencedBytes+a.MetadataBytes)
			_, _, err = cs.LoadCheckpoint(t.Context(), dst.Join(chk).String(), cs.WithRegistry(reg))
			require.NoError(t, err)
		}
	}
}

// TestRelocateRefusesBadDestinations: into itself, over a file, and onto a
// non-empty directory.
func TestRelocateRefusesBadDestinations(t *testing.T) {
	root, _ := copyFixtures(t, nativeSavepoint)
	src := fileURI(filepath.Join(root, nativeSavepoint))
	_, err := cs.Relocate(t.Context(), src, src.Join("inside"))
	require.ErrorIs(t, err, fs.ErrInvalid)
	_, err = cs.Relocate(t.Context(), src, src.Parent())
	require.ErrorIs(t, err, fs.ErrInvalid)
	_, err = cs.Relocate(t.Context(), src.Join("_metadata"), fileURI(t.TempDir()).Join("x"))
	require.ErrorIs(t, err, vfs.ErrNotDir)
	busy := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(busy, "keep"), []byte("k"), 0o644))
	_, err = cs.Relocate(t.Context(), src, fileURI(busy))
	require.ErrorIs(t, err, fs.ErrExist)
	assert.FileExists(t, filepath.Join(busy, "keep"))
}
