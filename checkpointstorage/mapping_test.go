package checkpointstorage_test

import (
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/vfs"
)

func TestParsePathMapping(t *testing.T) {
	m, err := cs.ParsePathMapping("file:/state/checkpoint=s3://bucket/a=b")
	require.NoError(t, err)
	assert.Equal(t, vfs.MustPath("file:///state/checkpoint"), m.Old)
	assert.Equal(t, vfs.MustPath("s3://bucket/a=b"), m.New, "split at the first '='")
	for _, bad := range []string{"", "file:/x", "=s3://b/x", "file:/x=", "relative=s3://b/x", "/state=s3://b/x", "file:/x=relative"} {
		_, err := cs.ParsePathMapping(bad)
		require.ErrorIs(t, err, fs.ErrInvalid, bad)
		assert.Contains(t, err.Error(), `"`+bad+`"`, "the error names the value")
	}
}

func TestPathMappingApply(t *testing.T) {
	m, err := cs.ParsePathMapping("file:/state/checkpoint=s3://bucket/ckpt")
	require.NoError(t, err)
	for in, want := range map[string]string{
		"file:/state/checkpoint/job/shared/x": "s3://bucket/ckpt/job/shared/x",
		"file:///state/checkpoint/a":          "s3://bucket/ckpt/a",
		"file:/state/checkpoint":              "s3://bucket/ckpt",
	} {
		got, ok := m.Apply(vfs.MustPath(in))
		require.True(t, ok, in)
		assert.Equal(t, want, got.String(), in)
	}
	for _, in := range []string{"file:/state/checkpoints/x", "file:/state/x", "hdfs:/state/checkpoint/x", "file://host/state/checkpoint/x", "s3://bucket/ckpt/x"} {
		got, ok := m.Apply(vfs.MustPath(in))
		assert.False(t, ok, in)
		assert.Equal(t, vfs.MustPath(in), got)
	}
}
