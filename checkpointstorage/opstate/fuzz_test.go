package opstate_test

import (
	"bytes"
	"errors"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/vfskit/vfskit/checkpointstorage/opstate"
)

// The fuzz targets check that no input makes a decoder panic or fail to give
// back exactly what it accepted, and that what it accepts encodes to the
// same bytes. Their seed corpora (testdata/fuzz) were written by this
// package's encoders.

func FuzzDecodeReaderEntry(f *testing.F) {
	for _, s := range seedSplits() {
		p, v, err := opstate.EncodeSplit(s)
		require.NoError(f, err)
		e, err := opstate.EncodeReaderEntry(v, p)
		require.NoError(f, err)
		f.Add(e)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := opstate.DecodeReaderEntry(b)
		if err != nil {
			return
		}
		if !bytes.Equal(b[12:], e.Payload) {
			t.Fatalf("payload %x of %x", e.Payload, b)
		}
		again, err := opstate.EncodeReaderEntry(e.Version, e.Payload)
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("entry %x encodes to %x (%v)", b, again, err)
		}
		if e.Split != nil {
			p, v, err := opstate.EncodeSplit(e.Split)
			if err != nil || v != e.Version || !bytes.Equal(p, e.Payload) {
				t.Fatalf("split %#v encodes to %x version %d (%v), read from %x", e.Split, p, v, err, e.Payload)
			}
		}
	})
}

func FuzzDecodeSplit(f *testing.F) {
	for _, s := range seedSplits() {
		p, v, err := opstate.EncodeSplit(s)
		require.NoError(f, err)
		f.Add(v, p)
	}
	f.Fuzz(func(t *testing.T, v int32, b []byte) {
		s, err := opstate.DecodeSplit(v, b)
		if err != nil {
			return
		}
		p, v2, err := opstate.EncodeSplit(s)
		if err != nil || v2 != v || !bytes.Equal(p, b) {
			t.Fatalf("split %#v encodes to %x version %d (%v), read from %x version %d", s, p, v2, err, b, v)
		}
	})
}

func FuzzDecodeCoordinator(f *testing.F) {
	for _, e := range seedEnumerators() {
		p, err := opstate.EncodeEnumerator(e.enum)
		require.NoError(f, err)
		c, err := opstate.EncodeCoordinator(&opstate.CoordinatorState{Source: true, SerdeVersion: 1, EnumVersion: e.version, Payload: p})
		require.NoError(f, err)
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c := opstate.DecodeCoordinator(b)
		if !bytes.Equal(c.Bytes, b) {
			t.Fatal("bytes not kept")
		}
		if !c.Source {
			return
		}
		again, err := opstate.EncodeCoordinator(c)
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("coordinator state %x encodes to %x (%v)", b, again, err)
		}
	})
}

// seedPositionFiles are positions files of every form ReadPositions reads.
var seedPositionFiles = []string{
	"orders,3,42\n\"a,b\",0,-2\n1,500\n",
	"# moved\npartition,topic,offset\n3,orders,42\n",
	`{"positions":[{"kind":"kafka","topic":"t","partition":1,"offset":5},{"kind":"sequence","split":"2","position":9,"to":10}]}`,
	`[{"split":"0000000001","position":4096}]`,
}

func FuzzReadPositions(f *testing.F) {
	for _, s := range seedPositionFiles {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ch, err := opstate.ReadPositions(bytes.NewReader(b))
		if err != nil {
			if !errors.Is(err, fs.ErrInvalid) {
				t.Fatalf("error %v does not wrap fs.ErrInvalid", err)
			}
			return
		}
		if len(ch.Offsets)+len(ch.Splits) > len(b) {
			t.Fatalf("%d positions from %d bytes", len(ch.Offsets)+len(ch.Splits), len(b))
		}
	})
}
