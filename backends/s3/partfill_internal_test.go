package s3

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPartFill checks the part size after a Persist: an interval of fewer
// than Concurrency parts is cut into Concurrency parts (or as many as fit at
// MinPartSize), none smaller than MinPartSize, the last one included, none
// larger than the part size; otherwise the part size stays.
func TestPartFill(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		n, partSize, conc, parts, want int
	}{
		{32 * mib, 8 * mib, 5, 4, (32*mib + 4) / 5},
		{12 * mib, 8 * mib, 5, 1, 6 * mib},
		{16 * mib, 8 * mib, 5, 2, (16*mib + 2) / 3},
		{10 * mib, 8 * mib, 5, 1, 5 * mib},
		{40 * mib, 8 * mib, 5, 5, 0},          // every connection busy already
		{64 * mib, 8 * mib, 5, 8, 0},          // more than that
		{6 * mib, 8 * mib, 5, 1, 0},           // one part: nothing to gain
		{12 * mib, 5 * mib, 5, 2, 0},          // parts of MinPartSize cannot shrink
		{32 * mib, 8 * mib, 5, smallParts, 0}, // late in a large upload
		{5*MinPartSize + 3, 8 * mib, 5, 5, (5*MinPartSize + 3 + 3) / 4},
	} {
		assert.Equal(t, c.want, partFill(c.n, c.partSize, c.conc, c.parts), "%+v", c)
	}
	for n := 0; n <= 64*mib; n += 97 * 1024 {
		for _, conc := range []int{1, 2, 5, 16} {
			fill := partFill(n, 8*mib, conc, 0)
			if fill == 0 {
				continue
			}
			k := (n + fill - 1) / fill
			last := n - (k-1)*fill
			assert.True(t, fill >= MinPartSize && fill < 8*mib && k <= conc && last >= MinPartSize,
				"n %d, concurrency %d: fill %d makes %d parts, the last of %d bytes", n, conc, fill, k, last)
		}
	}
}

// TestSmallPartsOnlyAtFirst: an upload sends parts of its fill only while
// fewer than smallParts were sent, then parts of the part size, however long
// the interval that follows the Persist which set the fill.
func TestSmallPartsOnlyAtFirst(t *testing.T) {
	u := &upload{partSize: 8 << 20, fill: 6 << 20, number: smallParts - 1}
	assert.Equal(t, 6<<20, u.full())
	u.number = smallParts
	assert.Equal(t, 8<<20, u.full())
	u.fill = 0
	u.number = 1
	assert.Equal(t, 8<<20, u.full(), "no fill: the part size")
}
