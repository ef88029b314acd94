package vfs_test

import (
	"context"
	"errors"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

func TestCanonicalWithoutRuleIsThePathAsWritten(t *testing.T) {
	r := vfs.NewRegistry()
	ctx := t.Context()
	for _, s := range []string{"hdfs://nn:8020/a/b", "memory://x/y", "s3a://b/k"} {
		k, err := r.Canonical(ctx, vfs.MustPath(s))
		require.NoError(t, err)
		assert.Equal(t, vfs.MustPath(s), k)
	}
	k, err := r.Canonical(ctx, vfs.MustPath("/tmp/x"))
	require.NoError(t, err)
	assert.Equal(t, vfs.MustPath("file:///tmp/x"), k, "a scheme-less path takes the default scheme")
	same, err := r.SameLocation(ctx, vfs.MustPath("s3://b/k"), vfs.MustPath("s3a://b/k"))
	require.NoError(t, err)
	assert.False(t, same, "without rules, other schemes are other stores")

	_, err = r.Canonical(ctx, vfs.Path{})
	require.ErrorIs(t, err, fs.ErrInvalid)
	_, err = r.Canonical(ctx, vfs.MustPath("rel/x"))
	require.ErrorIs(t, err, fs.ErrInvalid)
}

func TestRegisteredRuleDecidesSameLocation(t *testing.T) {
	r := vfs.NewRegistry()
	ctx := t.Context()
	alias := func(_ context.Context, _ *vfs.Registry, p vfs.Path) (vfs.Path, error) {
		if p.Authority() == "elsewhere" {
			return vfs.Path{}, errors.New("cannot tell")
		}
		return p.WithScheme("main", p.Authority())
	}
	require.NoError(t, r.RegisterIdentity("alias", alias))
	require.ErrorIs(t, r.RegisterIdentity("ALIAS", alias), fs.ErrExist)
	require.ErrorIs(t, r.RegisterIdentity("other", nil), fs.ErrInvalid)

	same, err := r.SameLocation(ctx, vfs.MustPath("alias://b/x/y"), vfs.MustPath("main://b/x/y"))
	require.NoError(t, err)
	assert.True(t, same)
	same, err = r.SameLocation(ctx, vfs.MustPath("alias://b/x/y"), vfs.MustPath("main://b/x/z"))
	require.NoError(t, err)
	assert.False(t, same)
	same, err = r.SameLocation(ctx, vfs.MustPath("alias://elsewhere/x"), vfs.MustPath("main://elsewhere/x"))
	require.Error(t, err, "a rule that cannot tell is an error, not a difference")
	assert.False(t, same)

	r.Unregister("alias")
	k, err := r.Canonical(ctx, vfs.MustPath("alias://b/x"))
	require.NoError(t, err)
	assert.Equal(t, vfs.MustPath("alias://b/x"), k, "Unregister removes the rule")
}

func TestWithScheme(t *testing.T) {
	p, err := vfs.MustPath("abfss://c@a.dfs.core.windows.net/x/y").WithScheme("azblob", "c")
	require.NoError(t, err)
	assert.Equal(t, vfs.MustPath("azblob://c/x/y"), p)
	_, err = p.WithScheme("s3", "a/b")
	require.ErrorIs(t, err, fs.ErrInvalid)
	_, err = p.WithScheme("3x", "b")
	require.ErrorIs(t, err, fs.ErrInvalid)
}
