package opstate_test

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vfskit/vfskit/checkpointstorage/opstate"
)

func TestReadPositions(t *testing.T) {
	want := opstate.Changes{
		Offsets: []opstate.KafkaOffset{{Topic: "orders", Partition: 3, Offset: 42}, {Topic: "a,b", Partition: 0, Offset: -2}},
		Splits:  []opstate.SplitPosition{{ID: "1", Position: 500}},
	}
	for name, in := range map[string]string{
		"csv":          "orders,3,42\n\"a,b\",0,-2\n1,500\n",
		"csv header":   "# moved\npartition,topic,offset\n3,orders,42\n0,\"a,b\",-2\n",
		"offsets json": `{"pointer":"x","positions":[{"operator":"o","subtask":0,"kind":"kafka","split":"orders-3","topic":"orders","partition":3,"offset":42},{"kind":"kafka","topic":"a,b","partition":0,"offset":-2},{"kind":"sequence","split":"1","position":500,"to":999}]}`,
		"json array":   `[{"topic":"orders","partition":3,"offset":42},{"topic":"a,b","partition":0,"offset":-2},{"split":"1","position":500}]`,
	} {
		got, err := opstate.ReadPositions(strings.NewReader(in))
		require.NoError(t, err, name)
		w := want
		if name == "csv header" {
			w.Splits = nil
		}
		assert.Equal(t, w, got, name)
	}
	for name, in := range map[string]string{
		"conflict":       "t,1,5\nt,1,6\n",
		"bad partition":  "t,x,5\n",
		"json no offset": `[{"topic":"t","partition":1}]`,
		"json object":    `{"splits":[]}`,
		"one column":     "t\n",
	} {
		_, err := opstate.ReadPositions(strings.NewReader(in))
		assert.ErrorIs(t, err, fs.ErrInvalid, name)
	}
}
