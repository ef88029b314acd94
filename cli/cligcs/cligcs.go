// Package cligcs adds gs:// (Google Cloud Storage) to the vfskit command line,
// configured from the environment as gocloud's gcsblob is (Application Default
// Credentials; STORAGE_EMULATOR_HOST for an emulator).
//
//	cli.Main(cli.WithSchemes(cligcs.Schemes()))
package cligcs

import (
	"github.com/vfskit/vfskit/backends/gcs"
	"github.com/vfskit/vfskit/cli/clischeme"
	"github.com/vfskit/vfskit/vfs"
)

// Schemes returns the set of the gs scheme.
func Schemes() clischeme.Set {
	return clischeme.Set{
		Schemes: []clischeme.Scheme{{Name: gcs.Scheme, Example: "gs://bucket/object", What: "Google Cloud Storage", Aliases: []string{"gcs", "google"}}},
		Query:   gcs.QueryParameters,
		Factory: func(env clischeme.Env) (vfs.Factory, error) { return gcs.Factory(gcs.Options{Logger: env.Log}), nil },
	}
}
