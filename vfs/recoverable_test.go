package vfs_test

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/vfs"
)

func TestTokenRoundTrip(t *testing.T) {
	tok := vfs.SealToken("test/1", "memory://a/", []byte("payload"))
	got, err := vfs.OpenToken("test/1", "memory://a/", tok)
	require.NoError(t, err)
	require.Equal(t, "payload", string(got))
}

func TestTokenRefusesDamage(t *testing.T) {
	tok := vfs.SealToken("test/1", "memory://a/", []byte("payload"))
	cases := map[string][]byte{
		"empty":       nil,
		"cut short":   tok[:len(tok)-1],
		"one bit":     append(append([]byte{}, tok[:6]...), append([]byte{tok[6] ^ 1}, tok[7:]...)...),
		"not a token": []byte("hello world, this is no token"),
		"header only": tok[:5],
		"another sum": append(append([]byte{}, tok[:len(tok)-1]...), tok[len(tok)-1]^0xff),
	}
	for name, b := range cases {
		_, err := vfs.OpenToken("test/1", "memory://a/", b)
		require.ErrorIs(t, err, fs.ErrInvalid, name)
	}
	_, err := vfs.OpenToken("test/2", "memory://a/", tok)
	require.ErrorIs(t, err, fs.ErrInvalid, "another kind")
	_, err = vfs.OpenToken("test/1", "memory://b/", tok)
	require.ErrorIs(t, err, fs.ErrInvalid, "another owner")
}

func TestNewRecoverableWriterUnsupported(t *testing.T) {
	fsys := memfs.New()
	if _, ok := any(fsys).(vfs.RecoverableWriterFS); ok {
		t.Skip("memory:// has a recoverable writer")
	}
	_, err := vfs.NewRecoverableWriter(fsys)
	require.True(t, errors.Is(err, errors.ErrUnsupported), "%v", err)
}
