package blobfs

import (
	"testing"

	"github.com/stretchr/testify/assert"
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
