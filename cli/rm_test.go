package cli

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/aferofs"
	"github.com/vfskit/vfskit/vfs"
)

// keeper is a file system whose recursive Delete reports success but keeps
// every file whose name contains "keep", as an object store that silently
// failed to delete some keys would.
type keeper struct{ *aferofs.FileSystem }

func (k keeper) Delete(ctx context.Context, p vfs.Path, recursive bool) error {
	kept := false
	_ = vfs.Walk(ctx, k.FileSystem, p, func(st vfs.FileStatus, err error) error {
		kept = kept || err == nil && strings.Contains(st.Name(), "keep")
		return nil
	})
	if !recursive || !kept {
		return k.FileSystem.Delete(ctx, p, recursive)
	}
	return vfs.Walk(ctx, k.FileSystem, p, func(st vfs.FileStatus, err error) error {
		if err != nil || st.IsDir || strings.Contains(st.Name(), "keep") {
			return err
		}
		return k.FileSystem.Delete(ctx, st.Path, false)
	})
}

// keepers are the keeper file systems by authority: every command line of a
// test builds its own registry, and they all reach the same files. Tests
// number their authorities with keeperRuns.
var (
	keepers    sync.Map
	keeperRuns atomic.Int64
)

// keeperFactory serves keeper://AUTHORITY/ (see allSchemes).
func keeperFactory(_ context.Context, u *url.URL) (vfs.FileSystem, error) {
	if k, ok := keepers.Load(u.Host); ok {
		return k.(keeper), nil
	}
	fsys, err := aferofs.New(afero.NewMemMapFs(), aferofs.Options{Scheme: "keeper", Authority: u.Host, Kind: vfs.KindObjectStore})
	if err != nil {
		return nil, err
	}
	k, _ := keepers.LoadOrStore(u.Host, keeper{fsys})
	return k.(keeper), nil
}

// TestRmFailsWhenKeysRemain checks that rm -r lists again after the delete and
// fails, naming what is left, when the store kept anything.
func TestRmFailsWhenKeysRemain(t *testing.T) {
	root := fmt.Sprintf("keeper://%s-%d", strings.ToLower(t.Name()), keeperRuns.Add(1)) // fresh on every run
	t.Cleanup(func() { keepers.Delete(strings.TrimPrefix(root, "keeper://")) })
	writeTo(t, root+"/d/a", "gone")
	writeTo(t, root+"/d/sub/keep-me", "kept")
	writeTo(t, root+"/e/a", "gone")
	msg := fails(t, ExitFailure, "rm", "-r", root+"/d")
	assert.Contains(t, msg, "the delete reported success but 1 files remain ("+root+"/d/sub/keep-me)")
	assert.Equal(t, "sub/\nsub/keep-me\n", ok(t, "ls", "-R", root+"/d"))
	ok(t, "rm", "-r", root+"/e")
	assert.Contains(t, fails(t, ExitFailure, "ls", root+"/e"), "not exist")
}

// TestRmRefusals checks the refusals in-process, where the rest of the
// command line still runs: a refused argument fails (exit 1) and the others
// are removed.
func TestRmRefusals(t *testing.T) {
	root := memRoot(t)
	writeTo(t, root+"/d/a", "a")
	writeTo(t, root+"/x", "x")
	msg := fails(t, ExitFailure, "rm", "-r", root+"/d/..", root+"/x", root+"/", root)
	assert.Contains(t, msg, `refusing to remove '.' or '..' directory: skipping "`+root+`/d/.."`)
	assert.Equal(t, 2, strings.Count(msg, "use --no-preserve-root to override this failsafe"), msg)
	assert.Equal(t, "d/\n", ok(t, "ls", root), "x was removed, the rest refused")
	ok(t, "rm", "-r", "--no-preserve-root", root+"/")
	assert.Empty(t, ok(t, "ls", root), "--no-preserve-root empties the root")
	require.NotContains(t, fails(t, ExitFailure, "rm", "-r", "--no-preserve-root", "."), "no-preserve-root")
}
