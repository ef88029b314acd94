package cli

import (
	"encoding/json"
	"io"
	"time"

	"github.com/vfskit/vfskit/vfs"
)

// statusJSON is one file or directory as ls --json and stat --json print it,
// one JSON object per line.
type statusJSON struct {
	// Path is the full URI, with any user info shown as xxxxx.
	Path string `json:"path"`
	// Name is what ls prints for it: the name, or with -R the path relative to
	// the listed directory. stat leaves it out.
	Name string `json:"name,omitempty"`
	// Type is "file", "dir" or "symlink".
	Type string `json:"type"`
	Size int64  `json:"size"`
	// ModTime is RFC 3339 in UTC; absent when the file system has none.
	ModTime string `json:"modTime,omitempty"`
	// FileSystem and Kind (FileSystem or ObjectStore) are stat's.
	FileSystem string `json:"fileSystem,omitempty"`
	Kind       string `json:"kind,omitempty"`
}

// newStatusJSON returns st in its JSON form, with name as ls shows it ("" for
// stat).
func newStatusJSON(st vfs.FileStatus, name string) statusJSON {
	j := statusJSON{Path: st.Path.Redacted(), Name: name, Type: "file", Size: st.Size}
	switch {
	case st.Symlink:
		j.Type = "symlink"
	case st.IsDir:
		j.Type = "dir"
	}
	if !st.ModTime.IsZero() {
		j.ModTime = st.ModTime.UTC().Format(time.RFC3339Nano)
	}
	return j
}

// writeJSONLine writes v as one line of JSON.
func writeJSONLine(w io.Writer, v any) error {
	return json.NewEncoder(w).Encode(v)
}
