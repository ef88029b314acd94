package cli

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"time"
	"unicode/utf8"

	"github.com/vfskit/vfskit/vfs"
)

// statusJSON is one file or directory as ls --json and stat --json print it,
// one JSON object per line.
type statusJSON struct {
	// Path is the full URI, with any user info shown as xxxxx.
	Path string `json:"path"`
	// PathBase64 is Path's exact bytes when it is not valid UTF-8 (see
	// nameBytes).
	PathBase64 string `json:"pathBase64,omitempty"`
	// Name is what ls prints for it: the name, or with -R the path relative to
	// the listed directory. stat leaves it out.
	Name string `json:"name,omitempty"`
	// NameBase64 is Name's exact bytes when it is not valid UTF-8.
	NameBase64 string `json:"nameBase64,omitempty"`
	// Type is "file", "dir" or "symlink".
	Type string `json:"type"`
	Size int64  `json:"size"`
	// ModTime is RFC 3339 in UTC; absent when the file system has none.
	ModTime string `json:"modTime,omitempty"`
	// FileSystem and Kind (FileSystem or ObjectStore) are stat's.
	FileSystem string `json:"fileSystem,omitempty"`
	Kind       string `json:"kind,omitempty"`
	// Target and TargetType are stat's for a symbolic link: the path it
	// resolves to (absent when its target is missing) and the target's type,
	// "file", "dir" or "missing".
	Target     string `json:"target,omitempty"`
	TargetType string `json:"targetType,omitempty"`
	// Attributes are stat's for a file on an object store: its
	// Content-Type, Content-Encoding, Cache-Control and user metadata.
	*vfs.Attributes `json:",omitempty"`
}

// newStatusJSON returns st in its JSON form, with name as ls shows it ("" for
// stat).
func newStatusJSON(st vfs.FileStatus, name string) statusJSON {
	j := statusJSON{Path: st.Path.Redacted(), Name: name, Type: "file", Size: st.Size}
	j.PathBase64, j.NameBase64 = nameBytes(j.Path), nameBytes(name)
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

// nameBytes returns the "...Base64" companion of a JSON member that shows a
// name or path as shown: "" (the companion is left out) when shown is valid
// UTF-8, else its exact bytes in standard base64 (RFC 4648, padded).
// encoding/json writes every byte of a string that is not UTF-8 as U+FFFD, so
// "name": "a\ufffdb" cannot name the file a\xffb again; "nameBase64":
// "Yf9i" can (base64 -d gives the name back). Every --json output of the
// command line carries its names and paths this way: ls, stat and
// checkpoints inspect.
func nameBytes(shown string) string {
	if utf8.ValidString(shown) {
		return ""
	}
	return base64.StdEncoding.EncodeToString([]byte(shown))
}
