package cli

import (
	"fmt"
	"slices"
	"strings"
)

// schemeUse is how the top-level help shows a scheme vfskit knows: an
// example URI and what it reaches.
type schemeUse struct{ scheme, example, what string }

// schemeUsage lists the schemes vfskit knows, in the order the help shows them.
var schemeUsage = []schemeUse{
	{"file", "file:///tmp/x or a plain path", "local disk"},
	{"s3", "s3://bucket/key", "Amazon S3 and S3-compatible stores (MinIO, SeaweedFS, ...)"},
	{"s3a", "s3a://bucket/key", "the same as s3:// (Flink's and Hadoop's name)"},
	{"s3p", "s3p://bucket/key", "the same as s3:// (Flink's Presto name)"},
	{"gs", "gs://bucket/object", "Google Cloud Storage"},
	{"azblob", "azblob://container/blob", "Azure Blob Storage"},
	{"memory", "memory://name/path", "in-memory (lives only as long as the process)"},
}

// schemeHelp returns one line per scheme in schemes for the top-level help:
// the ones vfskit knows in schemeUsage's order with an example, then the
// others (added with WithScheme) as registered by this program.
func schemeHelp(schemes []string) string {
	var b strings.Builder
	line := func(example, what string) { fmt.Fprintf(&b, "  %-32s %s\n", example, what) }
	for _, u := range schemeUsage {
		if slices.Contains(schemes, u.scheme) {
			line(u.example, u.what)
		}
	}
	for _, s := range schemes {
		if !slices.ContainsFunc(schemeUsage, func(u schemeUse) bool { return u.scheme == s }) {
			line(s+"://...", "added by this program")
		}
	}
	return b.String()
}
