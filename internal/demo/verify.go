package demo

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/vfskit/vfskit/vfs"
)

// OutputReport describes the part files the job wrote and their check.
type OutputReport struct {
	// Dir holds the part files; the zero Path when the job wrote none
	// (Skipped says why).
	Dir     vfs.Path
	Skipped string
	// Files is the number of committed part files, Lines the lines they hold,
	// Commits the commits the job made (after its checkpoints).
	Files   int
	Lines   int64
	Commits int
	// Abandoned counts the other files in Dir: in-progress files of parts the
	// crash cut short after the last checkpoint (their records were replayed
	// into new parts), never committed.
	Abandoned int
	// Problem says how the output breaks exactly-once; "" when every result
	// is in it exactly once.
	Problem string

	fsys vfs.FileSystem
}

// verifyOutput reads every committed part file and checks that it holds each
// result exactly once: for every word counted c times, the lines "word 1" to
// "word c", each once, and nothing else.
func (j *job) verifyOutput(ctx context.Context, expected Counts) error {
	r := &j.report.Output
	if r.Dir.IsZero() {
		return nil
	}
	list, err := r.fsys.List(ctx, r.Dir)
	if err != nil {
		return err
	}
	seen := make(map[string]int, j.cfg.Records)
	var dup, bad []string
	for _, st := range list {
		if st.IsDir || !strings.HasPrefix(st.Name(), "part-") {
			r.Abandoned++
			continue
		}
		r.Files++
		data, err := vfs.ReadFile(ctx, r.fsys, st.Path)
		if err != nil {
			return err
		}
		lines := bufio.NewScanner(bytes.NewReader(data))
		for lines.Scan() {
			line := lines.Text()
			r.Lines++
			word, n, ok := strings.Cut(line, " ")
			k, err := strconv.ParseInt(n, 10, 64)
			switch {
			case !ok || err != nil || k < 1 || k > expected[word]:
				bad = append(bad, line)
			default:
				seen[line]++
				if seen[line] == 2 {
					dup = append(dup, line)
				}
			}
		}
	}
	var missing int64
	for w, c := range expected {
		for k := int64(1); k <= c; k++ {
			if seen[w+" "+strconv.FormatInt(k, 10)] == 0 {
				missing++
			}
		}
	}
	var problems []string
	if len(dup) > 0 {
		problems = append(problems, fmt.Sprintf("%d results written more than once (first %q)", len(dup), dup[0]))
	}
	if missing > 0 {
		problems = append(problems, fmt.Sprintf("%d results missing", missing))
	}
	if len(bad) > 0 {
		problems = append(problems, fmt.Sprintf("%d lines that are no result of the job (first %q)", len(bad), bad[0]))
	}
	if r.Lines != j.cfg.Records && len(problems) == 0 {
		problems = append(problems, fmt.Sprintf("%d lines for %d records", r.Lines, j.cfg.Records))
	}
	r.Problem = strings.Join(problems, "; ")
	return nil
}
