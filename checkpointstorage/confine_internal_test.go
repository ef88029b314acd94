package checkpointstorage

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// TestWithin: inside means the same scheme and authority and a path below the
// directory on a segment boundary; nothing else is.
func TestWithin(t *testing.T) {
	dir := vfs.MustPath("s3://bucket/ckpt/job")
	for p, want := range map[string]bool{
		"s3://bucket/ckpt/job/chk-1/f":  true,
		"s3://bucket/ckpt/job/f":        true,
		"s3://bucket/ckpt/job":          false, // the directory itself
		"s3://bucket/ckpt/jobx/f":       false, // a name prefix, not a parent
		"s3://bucket/ckpt/jo":           false,
		"s3://bucket/ckpt/other/f":      false,
		"s3://other/ckpt/job/f":         false, // another bucket
		"s3a://bucket/ckpt/job/f":       false, // another scheme, even for the same bucket
		"file:///ckpt/job/f":            false,
		"/ckpt/job/f":                   false, // not qualified
		"s3://bucket/ckpt/job/../job/f": true,  // parsed: ".." resolves before the comparison
		"s3://bucket/ckpt/job/../x":     false,
	} {
		require.Equal(t, want, within(dir, vfs.MustPath(p)), p)
	}
	require.False(t, within(dir, vfs.MustPath("s3://bucket/ckpt").Join("job", "..", "x")), "a literal '..' segment")
	require.True(t, within(vfs.MustPath("s3://bucket/"), vfs.MustPath("s3://bucket/x")), "the root holds everything of its bucket")
	require.False(t, within(vfs.MustPath("/ckpt/job"), vfs.MustPath("/ckpt/job/f")), "an unqualified directory holds nothing")
}

// TestEntropyOf: with entropy injection, a file of the checkpoint directory
// with the entropy exactly where the key was is the checkpoint's: without
// WithEntropyBase the key is a whole segment above the job's directory, with
// it the key's own place in the configured path. Entropy inside a segment
// (ckpt2024, ckABCDpt) where the key was not, anywhere else, of another
// length or alphabet, or a file of another checkpoint is not.
func TestEntropyOf(t *testing.T) {
	o, err := buildOptions([]Option{WithEntropyInjection("_entropy_", 4)})
	require.NoError(t, err)
	job := "0123456789abcdef0123456789abcdef"
	dir := vfs.MustPath("s3://bucket/root/ckpt/" + job + "/chk-1")
	for p, want := range map[string]bool{
		"s3://bucket/root/aZ09/ckpt/" + job + "/chk-1/f": true, // key as a whole segment
		"s3://bucket/aZ09/root/ckpt/" + job + "/chk-1/f": true,
		"s3://bucket/root/ckpt/aZ09/" + job + "/chk-1/f": true,
		"s3://bucket/root/ckaZ09pt/" + job + "/chk-1/f":  false, // inside a segment
		"s3://bucket/root/ckABCDpt/" + job + "/chk-1/f":  false,
		"s3://bucket/root/ckpt2024/" + job + "/chk-1/f":  false,
		"s3://bucket/root/2024ckpt/" + job + "/chk-1/f":  false,
		"s3://bucket/root/ckpt/" + job + "aZ09/chk-1/f":  false, // in the job's name
		"s3://bucket/root/ckpt/" + job + "/chk-1aZ09/f":  false,
		"s3://bucket/root/ckpt/" + job + "/aZ09/chk-1/f": false, // below the job's directory
		"s3://bucket/root/aZ09/ckpt/" + job + "/chk-2/f": false, // another checkpoint
		"s3://bucket/root/aZ0/ckpt/" + job + "/chk-1/f":  false, // 3 characters
		"s3://bucket/root/aZ-9/ckpt/" + job + "/chk-1/f": false, // not alphanumeric
		"s3://other/root/aZ09/ckpt/" + job + "/chk-1/f":  false,
		"s3://bucket/root/ckpt/" + job + "/chk-1/f":      false, // inside, no entropy: not this rule's
	} {
		require.Equal(t, want, o.entropyOf(t.Context(), dir, vfs.MustPath(p)), p)
	}
	// With the configured path, only the key's own place.
	exact, err := buildOptions([]Option{WithEntropyInjection("_entropy_", 4), WithEntropyBase(vfs.MustPath("s3://bucket/root/ck_entropy_pt"))})
	require.NoError(t, err)
	for p, want := range map[string]bool{
		"s3://bucket/root/ckaZ09pt/" + job + "/chk-1/f":  true,
		"s3://bucket/root/ckpt2024/" + job + "/chk-1/f":  false,
		"s3://bucket/root/cABCDkpt/" + job + "/chk-1/f":  false,
		"s3://bucket/root/aZ09/ckpt/" + job + "/chk-1/f": false,
	} {
		require.Equal(t, want, exact.entropyOf(t.Context(), dir, vfs.MustPath(p)), p)
	}
	none, err := buildOptions(nil)
	require.NoError(t, err)
	require.False(t, none.entropyOf(t.Context(), dir, vfs.MustPath("s3://bucket/root/aZ09/ckpt/"+job+"/chk-1/f")), "without the option")
}
