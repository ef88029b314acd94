package cli

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/aferofs"
	"github.com/vfskit/vfskit/internal/bigmeta"
	"github.com/vfskit/vfskit/layer/record"
	"github.com/vfskit/vfskit/vfs"
)

// TestInspectVerifyReadsMetadataOnce: "checkpoints inspect --verify" reads
// the _metadata once (it read it twice: to show it, then to verify it), and
// lists the checkpoint directory once, counted by layer/record under a scheme
// of the test's own.
func TestInspectVerifyReadsMetadataOnce(t *testing.T) {
	const subtasks = 4
	chk, _ := bigmeta.Write(t, subtasks)
	store, err := aferofs.New(afero.NewMemMapFs(), aferofs.Options{Scheme: "rec", Authority: "h"})
	require.NoError(t, err)
	rec := record.New(store)
	dir := vfs.MustPath("rec://h/job/chk-1")
	data, err := os.ReadFile(filepath.Join(chk, "_metadata"))
	require.NoError(t, err)
	require.NoError(t, vfs.WriteFile(t.Context(), store, dir.Join("_metadata"), data, vfs.NoOverwrite))
	for i := range subtasks {
		state := make([]byte, 1<<20) // the size bigmeta records
		require.NoError(t, vfs.WriteFile(t.Context(), store, dir.Join(fmt.Sprintf("%036d", i)), state, vfs.NoOverwrite))
	}
	opts := append([]Option{WithScheme("rec", func(context.Context, *url.URL) (vfs.FileSystem, error) { return rec, nil })}, allSchemes...)
	for _, args := range [][]string{{"--verify", "--json"}, {"--verify"}} {
		rec.Reset()
		var out, errOut bytes.Buffer
		code := Run(t.Context(), append(append([]string{"checkpoints", "inspect"}, args...), dir.String()), Stdio{Out: &out, Err: &errOut}, opts...)
		require.Equal(t, ExitOK, code, errOut.String())
		reads, lists := 0, 0
		for _, c := range rec.Calls() {
			switch {
			case c.Path == dir.Join("_metadata") && (c.Op == record.OpOpen || c.Op == record.OpReadFile):
				reads++
			case c.Op == record.OpList && c.Path == dir:
				lists++
			}
		}
		assert.Equal(t, 1, reads, "%q: _metadata reads; every call: %v", args, rec.Counts())
		assert.Equal(t, 1, lists, "%q: listings of the checkpoint directory; every call: %v", args, rec.Counts())
	}
}
