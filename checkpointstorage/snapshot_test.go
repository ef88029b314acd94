package checkpointstorage_test

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// snapshot returns the content of every file under root (root itself when it
// is a file), by qualified path; nil when root does not exist. It reads through
// vfs's default registry.
func snapshot(t *testing.T, root vfs.Path) map[string]string {
	t.Helper()
	fsys := fsOf(t, root)
	var files map[string]string
	err := vfs.Walk(t.Context(), fsys, root, func(st vfs.FileStatus, err error) error {
		if errors.Is(err, fs.ErrNotExist) && (st.Path == root || st.IsDir) {
			// root missing, or a directory that went between the listing of
			// its parent and its own (an object store's directory whose
			// last object was just deleted): no files
			return nil
		}
		if err != nil || st.IsDir {
			return err
		}
		data, err := vfs.ReadFile(t.Context(), fsys, st.Path)
		if err != nil {
			return err
		}
		if files == nil {
			files = map[string]string{}
		}
		files[st.Path.MakeQualified(fsys).String()] = string(data)
		return nil
	})
	require.NoError(t, err)
	return files
}
