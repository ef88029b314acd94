package opstate_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vfskit/vfskit/checkpointstorage/opstate"
)

func TestSplitsRoundTrip(t *testing.T) {
	for _, s := range seedSplits() {
		p, v, err := opstate.EncodeSplit(s)
		require.NoError(t, err)
		got, err := opstate.DecodeSplit(v, p)
		require.NoError(t, err, "%#v", s)
		assert.Equal(t, s, got)
		e, err := opstate.EncodeReaderEntry(v, p)
		require.NoError(t, err)
		re, err := opstate.DecodeReaderEntry(e)
		require.NoError(t, err)
		assert.Equal(t, s, re.Split)
	}
}

func TestEnumeratorsRoundTrip(t *testing.T) {
	for _, e := range seedEnumerators() {
		p, err := opstate.EncodeEnumerator(e.enum)
		require.NoError(t, err)
		got, err := opstate.DecodeEnumerator(e.version, p)
		require.NoError(t, err, "%#v", e.enum)
		assert.Equal(t, e.enum, got)
	}
}

func TestUnknownSerializerStaysBytes(t *testing.T) {
	p, _, err := opstate.EncodeSplit(&opstate.KafkaSplit{Topic: "t", Partition: 1, StartingOffset: 2, StoppingOffset: 3})
	require.NoError(t, err)
	e, err := opstate.EncodeReaderEntry(7, p)
	require.NoError(t, err)
	re, err := opstate.DecodeReaderEntry(e)
	require.NoError(t, err)
	assert.Nil(t, re.Split)
	assert.Equal(t, int32(7), re.Version)
	assert.ErrorIs(t, re.DecodeErr, opstate.ErrUnknownSerializer)
	assert.Equal(t, p, re.Payload)

	c := opstate.DecodeCoordinator([]byte("not a coordinator state"))
	assert.False(t, c.Source)
	assert.ErrorIs(t, c.DecodeErr, fs.ErrInvalid)
}

func TestHostileBytes(t *testing.T) {
	// Counts and lengths that claim more than the bytes hold are refused
	// without allocating for them.
	huge := []byte{0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0}
	for v := int32(0); v <= 3; v++ {
		_, err := opstate.DecodeEnumerator(v, huge)
		assert.ErrorIs(t, err, opstate.ErrUnknownSerializer)
	}
	allocs := testing.AllocsPerRun(10, func() { _, _ = opstate.DecodeEnumerator(0, huge) })
	assert.Less(t, allocs, 20.0)
	_, err := opstate.DecodeReaderEntry([]byte{0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 1, 0x7f, 0xff, 0xff, 0xf7})
	assert.ErrorIs(t, err, fs.ErrInvalid)
	assert.Contains(t, err.Error(), "do not frame it")
	_, err = opstate.DecodeReaderEntry([]byte{1, 2})
	assert.ErrorIs(t, err, fs.ErrInvalid)
	// A Flink string claiming 2^31 characters in a few bytes.
	_, err = opstate.DecodeSplit(1, []byte{0, 1, 'x', 1, 1, 1, 0xff, 0xff, 0xff, 0xff, 0x07})
	assert.True(t, errors.Is(err, opstate.ErrUnknownSerializer))
}

// TestSeedCorpusIsCurrent checks that testdata/fuzz holds what the encoders
// write (the corpus was made by them; regenerate with VFSKIT_WRITE_SEEDS=1).
func TestSeedCorpusIsCurrent(t *testing.T) {
	write := os.Getenv("VFSKIT_WRITE_SEEDS") != ""
	check := func(target string, i int, lines ...string) {
		p := filepath.Join("testdata", "fuzz", target, "seed-"+string(rune('a'+i)))
		want := "go test fuzz v1\n"
		for _, l := range lines {
			want += l + "\n"
		}
		if write {
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, os.WriteFile(p, []byte(want), 0o644))
		}
		got, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.Equal(t, want, string(got), p)
	}
	for i, s := range seedSplits() {
		p, v, err := opstate.EncodeSplit(s)
		require.NoError(t, err)
		e, err := opstate.EncodeReaderEntry(v, p)
		require.NoError(t, err)
		check("FuzzDecodeReaderEntry", i, goBytes(e))
		check("FuzzDecodeSplit", i, "int32("+itoa(int64(v))+")", goBytes(p))
	}
	for i, s := range seedPositionFiles {
		check("FuzzReadPositions", i, goBytes([]byte(s)))
	}
	for i, e := range seedEnumerators() {
		p, err := opstate.EncodeEnumerator(e.enum)
		require.NoError(t, err)
		c, err := opstate.EncodeCoordinator(&opstate.CoordinatorState{Source: true, SerdeVersion: 1, EnumVersion: e.version, Payload: p})
		require.NoError(t, err)
		check("FuzzDecodeCoordinator", i, goBytes(c))
	}
}
