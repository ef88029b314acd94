// Package cliazblob adds azblob:// (Azure Blob Storage) to the vfskit command
// line, configured from the environment as gocloud's azureblob is
// (AZURE_STORAGE_CONNECTION_STRING, AZURE_STORAGE_ACCOUNT and its keys or
// identities).
//
//	cli.Main(cli.WithSchemes(cliazblob.Schemes()))
package cliazblob

import (
	"github.com/vfskit/vfskit/backends/azblob"
	"github.com/vfskit/vfskit/cli/clischeme"
	"github.com/vfskit/vfskit/vfs"
)

// Schemes returns the set of the azblob scheme.
func Schemes() clischeme.Set {
	return clischeme.Set{
		Schemes: []clischeme.Scheme{{Name: azblob.Scheme, Example: "azblob://container/blob", What: "Azure Blob Storage"}},
		Query:   azblob.QueryParameters,
		Factory: func(env clischeme.Env) (vfs.Factory, error) {
			return azblob.Factory(azblob.Options{Logger: env.Log}), nil
		},
	}
}
