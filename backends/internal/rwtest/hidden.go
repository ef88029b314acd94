package rwtest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/blobfs"
	"github.com/vfskit/vfskit/vfs"
)

// LookAlike is the name of a user's file that looks like a recoverable
// stream's temporary object but is not one: listings show it.
const LookAlike = blobfs.RecoverableTempPrefix + "notes.txt"

// RequireTempsHidden writes a user's look-alike file (named lookAlike) in dir
// and persists a stream to dir/f twice, then requires that keys (the names
// in the store under dir, read through the store's own listing) hold the
// stream's temporaries (isTemp) and that listing dir shows only the
// look-alike; after the commit it shows the look-alike and f.
func RequireTempsHidden(t *testing.T, fsys vfs.FileSystem, dir vfs.Path, lookAlike string, isTemp func(string) bool, keys func() []string) {
	t.Helper()
	ctx := t.Context()
	require.NoError(t, vfs.WriteFile(ctx, fsys, dir.Join(lookAlike), []byte("mine"), vfs.Overwrite))
	w, err := vfs.NewRecoverableWriter(fsys)
	require.NoError(t, err)
	s, err := w.Open(ctx, dir.Join("f"))
	require.NoError(t, err)
	var want []byte
	for i := range 2 {
		p := Data(i, 100)
		want = append(want, p...)
		_, err = s.Write(p)
		require.NoError(t, err)
		_, err = s.Persist(ctx)
		require.NoError(t, err)
	}
	temps := 0
	for _, k := range keys() {
		if isTemp(k) {
			temps++
		}
	}
	require.Positive(t, temps, "no temporary object of the stream in %v", keys())
	requireOnly(t, fsys, dir, lookAlike)
	com, err := s.CloseForCommit(ctx)
	require.NoError(t, err)
	require.NoError(t, com.Commit(ctx))
	requireOnly(t, fsys, dir, lookAlike, "f")
	requireContent(t, fsys, dir.Join("f"), want)
	requireContent(t, fsys, dir.Join(lookAlike), []byte("mine"))
}
