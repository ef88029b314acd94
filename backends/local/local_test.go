package local_test

import (
	"context"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/internal/badinput"
	"github.com/vfskit/vfskit/backends/local"
	"github.com/vfskit/vfskit/vfs"
)

// osNames lists the names in dir on disk, hidden temporary files included.
func osNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	names := []string{}
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

func TestRegisteredScheme(t *testing.T) {
	ctx := context.Background()
	fsys, err := vfs.Get(ctx, "file:///tmp")
	require.NoError(t, err)
	assert.Equal(t, "file:///", fsys.URI().String())
	assert.Equal(t, vfs.KindFileSystem, fsys.Kind())
	assert.False(t, fsys.IsDistributed())
	viaDefault, err := vfs.Get(ctx, "/tmp/x")
	require.NoError(t, err)
	assert.Same(t, fsys, viaDefault, "file is the default scheme")
}

func TestFactoryRejectsAuthority(t *testing.T) {
	_, err := local.Factory(context.Background(), &url.URL{Scheme: "file", Host: "host", Path: "/"})
	require.ErrorIs(t, err, fs.ErrInvalid)
	assert.Contains(t, err.Error(), "file://host/")
	_, err = vfs.Get(context.Background(), "file://host/x")
	assert.ErrorIs(t, err, fs.ErrInvalid)
}

func TestDirectories(t *testing.T) {
	fsys := local.New()
	home, err := os.UserHomeDir()
	require.NoError(t, err)
	assert.Equal(t, vfs.MustPath(home).MakeQualified(fsys), fsys.HomeDirectory())

	dir := t.TempDir()
	t.Chdir(dir)
	assert.Equal(t, vfs.MustPath("file://"+filepath.ToSlash(dir)), fsys.WorkingDirectory(), "the working directory follows os.Chdir")
	ctx := context.Background()
	require.NoError(t, vfs.WriteFile(ctx, fsys, vfs.MustPath("rel/x.txt"), []byte("x"), vfs.NoOverwrite))
	data, err := os.ReadFile(filepath.Join(dir, "rel", "x.txt"))
	require.NoError(t, err)
	assert.Equal(t, "x", string(data))
}

func TestPublishLeavesOnlyTheFile(t *testing.T) {
	ctx := context.Background()
	fsys := local.New()
	dir := t.TempDir()
	p := vfs.MustPath(dir).Join("f")
	out, err := fsys.Create(ctx, p, vfs.NoOverwrite)
	require.NoError(t, err)
	_, err = out.Write([]byte("hello"))
	require.NoError(t, err)
	require.NoError(t, out.Sync())
	names := osNames(t, dir)
	require.Len(t, names, 1)
	assert.Regexp(t, `^\.vfskit-tmp-`, names[0], "the bytes go to a hidden temporary file in the same directory")
	_, err = os.Stat(filepath.Join(dir, "f"))
	assert.ErrorIs(t, err, fs.ErrNotExist, "invisible until Close")

	require.NoError(t, out.Close())
	assert.Equal(t, []string{"f"}, osNames(t, dir))
	data, err := os.ReadFile(filepath.Join(dir, "f"))
	require.NoError(t, err)
	assert.Equal(t, "hello", string(data))

	// The file gets the mode os.Create would give it.
	ref := filepath.Join(t.TempDir(), "ref")
	rf, err := os.Create(ref)
	require.NoError(t, err)
	require.NoError(t, rf.Close())
	want, err := os.Stat(ref)
	require.NoError(t, err)
	got, err := os.Stat(filepath.Join(dir, "f"))
	require.NoError(t, err)
	assert.Equal(t, want.Mode(), got.Mode())
}

func TestDiscardLeavesNothing(t *testing.T) {
	ctx := context.Background()
	fsys := local.New()
	for _, how := range []string{"abort", "cancel"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			cctx, cancel := context.WithCancel(ctx)
			defer cancel()
			out, err := fsys.Create(cctx, vfs.MustPath(dir).Join("f"), vfs.Overwrite)
			require.NoError(t, err)
			_, err = out.Write(make([]byte, 3*local.BufferSize))
			require.NoError(t, err)
			if how == "abort" {
				require.NoError(t, out.(vfs.Aborter).Abort())
			} else {
				cancel()
			}
			assert.Error(t, out.Close())
			assert.Equal(t, []string{}, osNames(t, dir))
		})
	}
}

// Writers in separate FileSystem values (so no shared lock: only the kernel's
// renameat2 or link keeps them apart) race to publish one path: exactly one wins
// and its content is intact.
func TestNoOverwriteRaceAcrossInstances(t *testing.T) {
	const writers = 8
	ctx := context.Background()
	dir := t.TempDir()
	p := vfs.MustPath(dir).Join("target")
	outs := make([]vfs.OutputStream, writers)
	for i := range outs {
		out, err := local.New().Create(ctx, p, vfs.NoOverwrite)
		require.NoError(t, err)
		_, err = out.Write([]byte(fmt.Sprintf("writer %d", i)))
		require.NoError(t, err)
		outs[i] = out
	}
	errs := make([]error, writers)
	var wg sync.WaitGroup
	for i, out := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = out.Close()
		}()
	}
	wg.Wait()
	winner := -1
	for i, err := range errs {
		if err == nil {
			assert.Equal(t, -1, winner, "only one writer may win")
			winner = i
		} else {
			assert.ErrorIs(t, err, fs.ErrExist)
		}
	}
	require.NotEqual(t, -1, winner)
	data, err := os.ReadFile(filepath.Join(dir, "target"))
	require.NoError(t, err)
	assert.Equal(t, fmt.Sprintf("writer %d", winner), string(data))
	assert.Equal(t, []string{"target"}, osNames(t, dir), "the losers' temporary files are gone")
}

func TestRenameDirectoryAcrossInstancesNoReplace(t *testing.T) {
	ctx := context.Background()
	dir := vfs.MustPath(t.TempDir())
	fsys := local.New()
	require.NoError(t, vfs.WriteFile(ctx, fsys, dir.Join("a", "x"), []byte("a"), vfs.NoOverwrite))
	require.NoError(t, vfs.WriteFile(ctx, fsys, dir.Join("b", "y"), []byte("b"), vfs.NoOverwrite))
	err := local.New().Rename(ctx, dir.Join("a"), dir.Join("b"))
	require.ErrorIs(t, err, fs.ErrExist)
	require.NoError(t, fsys.Rename(ctx, dir.Join("a"), dir.Join("c", "d")))
	data, err := vfs.ReadFile(ctx, fsys, dir.Join("c", "d", "x"))
	require.NoError(t, err)
	assert.Equal(t, "a", string(data))
}

func TestListFollowsSymlinks(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "real"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(dir, "real"), filepath.Join(dir, "link")))
	require.NoError(t, os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(dir, "dangling")))
	entries, err := local.New().List(ctx, vfs.MustPath(dir))
	require.NoError(t, err)
	require.Len(t, entries, 3)
	assert.Equal(t, "dangling", entries[0].Name())
	assert.False(t, entries[0].IsDir)
	assert.Equal(t, "link", entries[1].Name())
	assert.True(t, entries[1].IsDir, "a link to a directory lists as a directory")

	// Deleting a link to a non-empty directory removes the link only.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "real", "f"), []byte("x"), 0o644))
	require.NoError(t, local.New().Delete(ctx, vfs.MustPath(dir).Join("link"), false))
	_, err = os.Stat(filepath.Join(dir, "real", "f"))
	assert.NoError(t, err)
}

func TestBadInput(t *testing.T) {
	fsys := local.New()
	dir := vfs.MustPath(t.TempDir()).MakeQualified(fsys)
	badinput.Run(t, fsys, dir, vfs.MustPath("memory://other/work/file"))
}

func TestPermissionDenied(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root ignores permissions")
	}
	ctx := context.Background()
	dir := t.TempDir()
	locked := filepath.Join(dir, "locked")
	require.NoError(t, os.Mkdir(locked, 0o500))
	t.Cleanup(func() { _ = os.Chmod(locked, 0o700) })
	_, err := local.New().Create(ctx, vfs.MustPath(locked).Join("f"), vfs.NoOverwrite)
	require.ErrorIs(t, err, fs.ErrPermission)
	assert.Contains(t, err.Error(), "file://"+filepath.ToSlash(locked)+"/f")
	assert.NotContains(t, err.Error(), ".vfskit-tmp-")
}

// On Linux a Windows drive path is just a path under "/C:": it must not crash.
func TestWindowsDrivePathDoesNotCrash(t *testing.T) {
	ctx := context.Background()
	fsys := local.New()
	for _, s := range []string{`C:\vfskit-no-such\x`, "C:/vfskit-no-such/x", "file:///C:/vfskit-no-such/x"} {
		_, err := fsys.Stat(ctx, vfs.MustPath(s))
		if filepath.Separator == '/' {
			assert.ErrorIs(t, err, fs.ErrNotExist, s)
		}
	}
}
