package opstate

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
)

// maxPositionsFile is the largest positions file ReadPositions reads.
const maxPositionsFile = 64 << 20

// ReadPositions reads positions to set from r, in JSON or CSV (told apart by
// the first character that is not white space: '{' or '[' is JSON):
//   - JSON: what "vfskit checkpoints offsets --json" prints, an object with
//     "positions", or the array alone; an element with "topic" sets that
//     Kafka partition's "offset", one with "split" and "position" sets that
//     split's position;
//   - CSV: rows topic,partition,offset (Kafka) or split,position, with an
//     optional header row naming the columns (topic, partition, offset;
//     split, position; in any order).
//
// A partition or split named twice with different positions is an error.
func ReadPositions(r io.Reader) (Changes, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxPositionsFile+1))
	if err != nil {
		return Changes{}, err
	}
	if len(data) > maxPositionsFile {
		return Changes{}, fmt.Errorf("positions file larger than %d bytes: %w", maxPositionsFile, fs.ErrInvalid)
	}
	var ch Changes
	t := bytes.TrimSpace(data)
	if len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		err = readPositionsJSON(t, &ch)
	} else {
		err = readPositionsCSV(data, &ch)
	}
	if err != nil {
		return Changes{}, err
	}
	return ch, ch.checkDuplicates()
}

type positionRow struct {
	Topic     *string `json:"topic"`
	Partition *int32  `json:"partition"`
	Offset    *int64  `json:"offset"`
	Split     *string `json:"split"`
	Position  *int64  `json:"position"`
}

func readPositionsJSON(data []byte, ch *Changes) error {
	var rows []positionRow
	if data[0] == '{' {
		var doc struct {
			Positions *[]positionRow `json:"positions"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			return fmt.Errorf("positions file: %v: %w", err, fs.ErrInvalid)
		}
		if doc.Positions == nil {
			return fmt.Errorf(`positions file: a JSON object without "positions": %w`, fs.ErrInvalid)
		}
		rows = *doc.Positions
	} else if err := json.Unmarshal(data, &rows); err != nil {
		return fmt.Errorf("positions file: %v: %w", err, fs.ErrInvalid)
	}
	for i, r := range rows {
		switch {
		case r.Topic != nil:
			if r.Partition == nil || r.Offset == nil {
				return fmt.Errorf(`positions file: element %d has a "topic" but no "partition" and "offset": %w`, i, fs.ErrInvalid)
			}
			ch.Offsets = append(ch.Offsets, KafkaOffset{Topic: *r.Topic, Partition: *r.Partition, Offset: *r.Offset})
		case r.Split != nil && r.Position != nil:
			ch.Splits = append(ch.Splits, SplitPosition{ID: *r.Split, Position: *r.Position})
		default:
			return fmt.Errorf(`positions file: element %d has neither "topic", "partition", "offset" nor "split", "position": %w`, i, fs.ErrInvalid)
		}
	}
	return nil
}

func readPositionsCSV(data []byte, ch *Changes) error {
	cr := csv.NewReader(bytes.NewReader(data))
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	cr.Comment = '#'
	var cols map[string]int
	for line := 1; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("positions file: %v: %w", err, fs.ErrInvalid)
		}
		for i := range rec {
			rec[i] = strings.TrimSpace(rec[i])
		}
		if line == 1 && isHeader(rec) {
			cols = map[string]int{}
			for i, c := range rec {
				cols[strings.ToLower(c)] = i
			}
			continue
		}
		field := func(name string, def int) (string, bool) {
			i := def
			if cols != nil {
				var ok bool
				if i, ok = cols[name]; !ok {
					return "", false
				}
			}
			if i >= len(rec) {
				return "", false
			}
			return rec[i], true
		}
		bad := func(what string) error {
			return fmt.Errorf("positions file line %d: %q: %s: %w", line, strings.Join(rec, ","), what, fs.ErrInvalid)
		}
		kafka := (cols == nil && len(rec) == 3) || (cols != nil && hasCol(cols, "topic"))
		if kafka {
			topic, _ := field("topic", 0)
			ps, ok1 := field("partition", 1)
			os, ok2 := field("offset", 2)
			p, err1 := strconv.ParseInt(ps, 10, 32)
			o, err2 := strconv.ParseInt(os, 10, 64)
			if topic == "" || !ok1 || !ok2 || err1 != nil || err2 != nil {
				return bad("expected topic,partition,offset (a partition number and an offset)")
			}
			ch.Offsets = append(ch.Offsets, KafkaOffset{Topic: topic, Partition: int32(p), Offset: o})
			continue
		}
		split, ok1 := field("split", 0)
		ps, ok2 := field("position", 1)
		p, err := strconv.ParseInt(ps, 10, 64)
		if split == "" || !ok1 || !ok2 || err != nil || (cols == nil && len(rec) != 2) {
			return bad("expected topic,partition,offset or split,position")
		}
		ch.Splits = append(ch.Splits, SplitPosition{ID: split, Position: p})
	}
}

func hasCol(cols map[string]int, name string) bool { _, ok := cols[name]; return ok }

func isHeader(rec []string) bool {
	for _, c := range rec {
		switch strings.ToLower(c) {
		case "topic", "split":
			return true
		}
	}
	return false
}

// checkDuplicates refuses a partition or split set to two positions.
func (ch Changes) checkDuplicates() error {
	kafka := map[string]int64{}
	for _, k := range ch.Offsets {
		key := k.Topic + "\x00" + strconv.Itoa(int(k.Partition))
		if o, ok := kafka[key]; ok && o != k.Offset {
			return fmt.Errorf("kafka %s partition %d is set to both %d and %d: %w", k.Topic, k.Partition, o, k.Offset, fs.ErrInvalid)
		}
		kafka[key] = k.Offset
	}
	splits := map[string]int64{}
	for _, s := range ch.Splits {
		if p, ok := splits[s.ID]; ok && p != s.Position {
			return fmt.Errorf("split %q is set to both %d and %d: %w", s.ID, p, s.Position, fs.ErrInvalid)
		}
		splits[s.ID] = s.Position
	}
	return nil
}
