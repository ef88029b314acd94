package limit_test

import (
	"context"
	"io/fs"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/layer/limit"
	"github.com/vfskit/vfskit/vfs"
)

func TestFromConfig(t *testing.T) {
	for _, tc := range []struct {
		conf map[string]string
		want limit.Settings
		ok   bool
		err  string
	}{
		{conf: nil},
		{conf: map[string]string{"fs.s3.limit.total": "0", "fs.s3.limit.timeout": "10"}},
		{conf: map[string]string{"fs.s3.limit.total": "-1"}},
		{conf: map[string]string{"fs.file.limit.total": "5"}},
		{conf: map[string]string{"fs.s3.limit.total": "2"}, want: limit.Settings{Total: 2}, ok: true},
		{conf: map[string]string{"fs.s3.limit.input": "3", "fs.s3.limit.output": "-1", "fs.s3.limit.timeout": "1500", "fs.s3.limit.stream-timeout": "1m"},
			want: limit.Settings{Input: 3, OpenTimeout: 1500 * time.Millisecond, StreamTimeout: time.Minute}, ok: true},
		{conf: map[string]string{"FS.S3.LIMIT.OUTPUT": "4"}, want: limit.Settings{Output: 4}, ok: true},
		{conf: map[string]string{"fs.s3.limit.total": "-2"}, err: `invalid value for 'fs.s3.limit.total': "-2"`},
		{conf: map[string]string{"fs.s3.limit.input": "many"}, err: `'fs.s3.limit.input': "many"`},
		{conf: map[string]string{"fs.s3.limit.total": "1", "fs.s3.limit.timeout": "-5"}, err: `'fs.s3.limit.timeout': "-5"`},
		{conf: map[string]string{"fs.s3.limit.totl": "1"}, err: "unknown option 'fs.s3.limit.totl' (expected one of fs.s3.limit.total,"},
	} {
		s, ok, err := limit.FromConfig(tc.conf, "s3")
		if tc.err != "" {
			require.ErrorIs(t, err, fs.ErrInvalid, "%v", tc.conf)
			require.ErrorContains(t, err, tc.err)
			continue
		}
		require.NoError(t, err, "%v", tc.conf)
		require.Equal(t, tc.ok, ok, "%v", tc.conf)
		require.Equal(t, tc.want, s, "%v", tc.conf)
	}
}

// TestConfigure: the registry hands out limited file systems for the
// configured scheme only, created after Configure (cached ones are dropped).
func TestConfigure(t *testing.T) {
	ctx := t.Context()
	r := vfs.NewRegistry()
	factory := func(_ context.Context, u *url.URL) (vfs.FileSystem, error) { return memfs.New(), nil }
	require.NoError(t, r.Register("memory", factory))
	require.NoError(t, r.Register("other", factory))
	before, err := r.Get(ctx, "memory://a/")
	require.NoError(t, err)

	require.Error(t, limit.Configure(r, map[string]string{"fs.memory.limit.total": "x"}))
	got, err := r.Get(ctx, "memory://a/")
	require.NoError(t, err)
	require.Same(t, before, got, "a failed Configure changes nothing")

	require.NoError(t, limit.Configure(r, map[string]string{"fs.memory.limit.total": "2", "fs.memory.limit.timeout": "100"}))
	got, err = r.Get(ctx, "memory://a/")
	require.NoError(t, err)
	l, ok := got.(*limit.FS)
	require.True(t, ok, "got %T", got)
	require.Equal(t, limit.Settings{Total: 2, OpenTimeout: 100 * time.Millisecond}, l.Settings())
	again, err := r.Get(ctx, "memory://a/b/c")
	require.NoError(t, err)
	require.Same(t, got, again, "cached as before")
	other, err := r.Get(ctx, "other://a/")
	require.NoError(t, err)
	_, limited := other.(*limit.FS)
	require.False(t, limited)

	err = r.AddLayer("nope", func(_ context.Context, _ *url.URL, f vfs.FileSystem) (vfs.FileSystem, error) { return f, nil })
	require.ErrorIs(t, err, vfs.ErrUnsupportedScheme)
	require.ErrorIs(t, r.AddLayer("memory", nil), fs.ErrInvalid)
}
