package blobfs

import (
	"io"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"

	"github.com/vfskit/vfskit/vfs"
)

func TestRecoverableTempNames(t *testing.T) {
	k := RecoverableTempKey("out/part-0", "0123456789abcdef0123456789abcdef", "a1b2c3d4", 7)
	assert.Regexp(t, `^out/\.vfskit-rw-0123456789abcdef0123456789abcdef-a1b2c3d4-7-[0-9a-f]{8}$`, k)
	assert.True(t, IsRecoverableTemp(k))
	assert.True(t, IsRecoverableTemp(RecoverableTempKey("top", "id", "e", 0)), "a target at the root")
	assert.LessOrEqual(t, len(k)-len("out/"), tempKeyRoom+len("part-0"))
	for _, k := range []string{"out/part-0", ".vfskit-rw", "a/.vfskit-rw-x/b", "a/.vfskit-tmp-1",
		"out/.vfskit-rw-notes.txt", "out/.vfskit-rw-0123456789abcdef0123456789abcdef-a1b2c3d4-7",
		k[:len(k)-1] + "x", k + "0", "out/.vfskit-rw--00000000"} {
		assert.False(t, IsRecoverableTemp(k), k)
	}
}

// TestRecoverablePiecesCommitDiedBeforeDeletingThem publishes a stream's
// pieces and stops before deleting them (as a commit killed then would), on
// a bucket without compose (the pieces are concatenated through the
// process). Another writer replaces the target, or its consumer deletes it;
// CommitAfterRecovery writes nothing, fails with fs.ErrNotExist and deletes
// the pieces and the commit marker.
func TestRecoverablePiecesCommitDiedBeforeDeletingThem(t *testing.T) {
	for _, c := range []struct {
		name          string
		existed       bool // the target existed when the commit began
		deletedPieces int  // pieces the commit deleted before it died
		replace       bool // replaced, else deleted
	}{
		{"Replaced", false, 0, true},
		{"ReplacedAfterSomeDeletes", false, 1, true},
		{"DeletedExistedBefore", true, 0, false},
		{"DeletedAfterSomeDeletes", false, 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			b := memblob.OpenBucket(nil)
			f, err := New(b, Options{Scheme: "mem", Authority: "test"})
			require.NoError(t, err)
			t.Cleanup(func() { _ = f.Close() })
			w, err := f.RecoverableWriter()
			require.NoError(t, err)
			p := vfs.MustPath("mem://test/out/part-0")
			var before *blob.Attributes
			if c.existed {
				require.NoError(t, vfs.WriteFile(ctx, f, p, []byte("older"), vfs.Overwrite))
				before, err = b.Attributes(ctx, "out/part-0")
				require.NoError(t, err)
			}
			out, err := w.Open(ctx, p)
			require.NoError(t, err)
			for _, s := range []string{"first piece, ", "second piece"} {
				_, err = out.Write([]byte(s))
				require.NoError(t, err)
				_, err = out.Persist(ctx)
				require.NoError(t, err)
			}
			cl, err := out.CloseForCommit(ctx)
			require.NoError(t, err)
			cm := cl.(*committer)
			require.NoError(t, cm.w.rs.(piecesStore).commit(ctx, cm.body.Key, cm.body, before), "the commit's publishing step")
			got, err := vfs.ReadFile(ctx, f, p)
			require.NoError(t, err)
			require.Equal(t, "first piece, second piece", string(got))
			keys := func() []string {
				var keys []string
				iter := b.List(&blob.ListOptions{Prefix: "out/"})
				for {
					o, err := iter.Next(ctx)
					if err == io.EOF {
						return keys
					}
					require.NoError(t, err)
					keys = append(keys, o.Key)
				}
			}
			require.Len(t, keys(), 4, "the target, two pieces and the commit marker")
			for _, k := range keys() {
				if c.deletedPieces > 0 && IsRecoverableTemp(k) && !isCommitMarker(cm.body.Key, cm.body.ID, k) {
					require.NoError(t, b.Delete(ctx, k))
					c.deletedPieces--
				}
			}

			if c.replace {
				require.NoError(t, vfs.WriteFile(ctx, f, p, []byte("newer"), vfs.Overwrite))
			} else {
				require.NoError(t, f.Delete(ctx, p, false))
			}
			rc, err := w.RecoverForCommit(ctx, cl.Recoverable())
			require.NoError(t, err)
			require.ErrorIs(t, rc.CommitAfterRecovery(ctx), fs.ErrNotExist)
			if c.replace {
				require.Equal(t, []string{"out/part-0"}, keys(), "objects after the recovery")
				got, err = vfs.ReadFile(ctx, f, p)
				require.NoError(t, err)
				require.Equal(t, "newer", string(got))
			} else {
				require.Empty(t, keys(), "objects after the recovery")
			}
		})
	}
}
