package demo

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCountsRoundTrip(t *testing.T) {
	for _, c := range []Counts{{}, {"a": 1}, {"kaka": 1 << 40, "lo": 3, "": 0}} {
		var buf bytes.Buffer
		n, err := c.WriteTo(&buf)
		require.NoError(t, err)
		assert.Equal(t, int64(buf.Len()), n)
		got, err := ReadCounts(&buf)
		require.NoError(t, err)
		assert.Equal(t, c, got)
	}
	var a, b bytes.Buffer
	_, _ = Counts{"x": 1, "y": 2, "z": 3}.WriteTo(&a)
	_, _ = Counts{"z": 3, "y": 2, "x": 1}.WriteTo(&b)
	assert.Equal(t, a.Bytes(), b.Bytes(), "equal states give equal bytes")
}

func TestReadCountsRejectsBadInput(t *testing.T) {
	var good bytes.Buffer
	_, _ = Counts{"word": 5}.WriteTo(&good)
	g := good.Bytes()
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "reading header: unexpected EOF"},
		{"bad magic", []byte("XXXX\x01\x00"), "bad header"},
		{"truncated", g[:len(g)-1], "entry 0: unexpected EOF"},
		{"trailing", append(append([]byte{}, g...), 0), "trailing bytes"},
		{"huge key", append(append([]byte{}, stateMagic...), 1, 0xff, 0xff, 0xff, 0x7f), "exceeds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadCounts(bytes.NewReader(tc.data))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestReadCountsKeepsReadError: a read that fails after the last entry is
// reported as that failure (errors.Is works), not as trailing bytes.
func TestReadCountsKeepsReadError(t *testing.T) {
	var good bytes.Buffer
	_, _ = Counts{"word": 5}.WriteTo(&good)
	broken := errors.New("connection reset")
	_, err := ReadCounts(io.MultiReader(&good, iotest.ErrReader(broken)))
	require.ErrorIs(t, err, broken)
	assert.NotContains(t, err.Error(), "trailing bytes")
}

func FuzzReadCounts(f *testing.F) {
	var good bytes.Buffer
	_, _ = Counts{"kaka": 3, "lo": 1}.WriteTo(&good)
	f.Add(good.Bytes())
	f.Add([]byte("WCST\x01\x00"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ReadCounts(bytes.NewReader(data))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		_, err = c.WriteTo(&buf)
		require.NoError(t, err)
		again, err := ReadCounts(&buf)
		require.NoError(t, err)
		require.Equal(t, c, again, "a decoded state re-encodes to the same state")
	})
}

func TestDiff(t *testing.T) {
	assert.Empty(t, Diff(Counts{"a": 1}, Counts{"a": 1}))
	assert.Equal(t, `word "a" counted 2 times, the failure-free run counted 1`, Diff(Counts{"a": 2}, Counts{"a": 1}))
	assert.Equal(t, `word "b" counted 0 times, the failure-free run counted 1 (and 1 more words differ)`, Diff(Counts{"c": 1}, Counts{"b": 1}))
}

func TestStreamIsDeterministic(t *testing.T) {
	a, b := NewStream(1, 1000), NewStream(1, 1000)
	other := NewStream(2, 1000)
	differ := 0
	for i := int64(999); i >= 0; i-- { // any order: the word depends only on i
		require.Equal(t, a.At(i), b.At(i))
		if a.At(i) != other.At(i) {
			differ++
		}
	}
	assert.Greater(t, differ, 500, "another seed is another stream")
	seen := map[string]bool{}
	for k := range 5000 {
		w := wordName(k)
		require.False(t, seen[w], "word %d (%q) is unique", k, w)
		seen[w] = true
	}
}

// TestReadOffset: the source state is exactly 8 bytes; anything else, or a read
// that fails after them, is an error that says so.
func TestReadOffset(t *testing.T) {
	var good bytes.Buffer
	_, err := offsetState(42).WriteTo(&good)
	require.NoError(t, err)
	o, err := readOffset(bytes.NewReader(good.Bytes()))
	require.NoError(t, err)
	assert.Equal(t, offsetState(42), o)

	_, err = readOffset(bytes.NewReader(good.Bytes()[:7]))
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	_, err = readOffset(bytes.NewReader(append(bytes.Clone(good.Bytes()), 0)))
	require.ErrorContains(t, err, "trailing bytes")
	broken := errors.New("connection reset")
	_, err = readOffset(io.MultiReader(bytes.NewReader(good.Bytes()), iotest.ErrReader(broken)))
	require.ErrorIs(t, err, broken)
}
