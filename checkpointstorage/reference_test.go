package checkpointstorage_test

import (
	"io/fs"
	"testing"

	"github.com/stretchr/testify/require"

	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/vfs"
)

func TestLocationReferenceEncoding(t *testing.T) {
	for _, s := range []string{"s3://bucket/savepoints/savepoint-abcdef-0123456789ab", "file:///tmp/x", "memory://a/b", "/plain/path", "relative/dir", "file:///tmp/ünïcödé"} {
		p := vfs.MustPath(s)
		ref := cs.EncodePathAsReference(p)
		require.False(t, ref.IsDefault())
		b := ref.Bytes()
		require.Equal(t, []byte{0x05, 0x5F, 0x3F, 0x18}, b[:4], "Flink's magic number")
		require.Equal(t, p.String(), string(b[4:]), "UTF-8 of the path")
		got, err := cs.DecodePathFromReference(ref)
		require.NoError(t, err)
		require.Equal(t, p, got)

		// bytes travel: a reference rebuilt from them decodes the same
		again, err := cs.NewLocationReference(b)
		require.NoError(t, err)
		require.Equal(t, ref, again)
		b[5] ^= 1
		require.Equal(t, p.String(), string(ref.Bytes()[4:]), "Bytes returns a copy")
	}
}

// TestReferenceKeepsExactNames: a directory whose name has a '\\', '?' or '%'
// (reached by the exact route: a listing, Join) decodes to the same Path.
func TestReferenceKeepsExactNames(t *testing.T) {
	for _, name := range []string{`a\b`, "x?y", "100%", " lead", "__0x41__"} {
		p := vfs.MustPath("s3://bucket/savepoints").Join(name)
		got, err := cs.DecodePathFromReference(cs.EncodePathAsReference(p))
		require.NoError(t, err)
		require.Equal(t, p, got, name)
	}
}

func TestDefaultLocationReference(t *testing.T) {
	var zero cs.LocationReference
	require.True(t, zero.IsDefault())
	require.Equal(t, zero, cs.DefaultLocationReference())
	require.Nil(t, zero.Bytes())
	require.Equal(t, "(default)", zero.String())
	require.Equal(t, "055f3f182f61", cs.EncodePathAsReference(vfs.MustPath("/a")).String())
}

func TestInvalidReferences(t *testing.T) {
	_, err := cs.NewLocationReference(nil)
	require.ErrorIs(t, err, cs.ErrInvalidReference)
	_, err = cs.NewLocationReference([]byte{})
	require.ErrorIs(t, err, cs.ErrInvalidReference)

	for _, tc := range []struct {
		name string
		ref  []byte // nil: the default reference
		msg  string
	}{
		{"default", nil, "Cannot decode default reference"},
		{"magic only", []byte{0x05, 0x5F, 0x3F, 0x18}, "Reference too short. (055f3f18: 4 bytes"},
		{"one byte", []byte{0x05}, "Reference too short. (05: 1 bytes"},
		{"wrong magic", []byte{0x05, 0x5F, 0x3F, 0x19, '/', 'a'}, "Reference starts with the wrong magic number (055f3f19, expected 055f3f18)"},
		{"not utf-8", []byte{0x05, 0x5F, 0x3F, 0x18, 0xff, 0xfe}, `Reference cannot be decoded to a path: invalid UTF-8 in "\xff\xfe"`},
		{"bad path", append([]byte{0x05, 0x5F, 0x3F, 0x18}, "1x://a"...), "Reference cannot be decoded to a path"},
	} {
		ref := cs.DefaultLocationReference()
		if tc.ref != nil {
			var err error
			ref, err = cs.NewLocationReference(tc.ref)
			require.NoError(t, err, tc.name)
		}
		_, err := cs.DecodePathFromReference(ref)
		require.ErrorIs(t, err, cs.ErrInvalidReference, tc.name)
		require.ErrorContains(t, err, tc.msg, tc.name)
	}
}

func TestResolveWithInvalidReference(t *testing.T) {
	s, _ := newFsStorage(t, memoryBackend.base(t), 0, 0)
	ref, err := cs.NewLocationReference([]byte("garbage"))
	require.NoError(t, err)
	_, err = s.ResolveCheckpointStorageLocation(t.Context(), 1, ref)
	require.ErrorIs(t, err, cs.ErrInvalidReference)
	require.ErrorContains(t, err, "Reference starts with the wrong magic number")
}

func TestJobID(t *testing.T) {
	id := cs.NewJobID()
	require.False(t, id.IsZero())
	require.NotEqual(t, id, cs.NewJobID())
	require.Regexp(t, `^[0-9a-f]{32}$`, id.String())
	parsed, err := cs.ParseJobID(id.String())
	require.NoError(t, err)
	require.Equal(t, id, parsed)
	upper, err := cs.ParseJobID("FD72014D4C864993A2E5A9287B4A9C5D")
	require.NoError(t, err)
	require.Equal(t, "fd72014d4c864993a2e5a9287b4a9c5d", upper.String())

	text, err := id.MarshalText()
	require.NoError(t, err)
	var back cs.JobID
	require.NoError(t, back.UnmarshalText(text))
	require.Equal(t, id, back)

	for _, bad := range []string{"", "abc", "fd72014d4c864993a2e5a9287b4a9c5", "fd72014d4c864993a2e5a9287b4a9c5dd", "zz72014d4c864993a2e5a9287b4a9c5d"} {
		_, err := cs.ParseJobID(bad)
		require.ErrorIs(t, err, fs.ErrInvalid, bad)
		require.ErrorContains(t, err, `Cannot parse JobID from "`+bad+`". The expected format is [0-9a-fA-F]{32}`)
		require.Error(t, back.UnmarshalText([]byte(bad)))
	}
	require.True(t, cs.JobID{}.IsZero())
}
