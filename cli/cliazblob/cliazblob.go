// Package cliazblob adds azblob:// (Azure Blob Storage) to the vfskit command
// line, configured from the environment as gocloud's azureblob is
// (AZURE_STORAGE_CONNECTION_STRING, AZURE_STORAGE_ACCOUNT and its keys or
// identities), and Flink's and Hadoop's URIs of the configured account
// (abfs[s]://container@account.dfs.core.windows.net/...,
// wasb[s]://container@account.blob.core.windows.net/...), which name the same
// blobs.
//
//	cli.Main(cli.WithSchemes(cliazblob.Schemes()))
package cliazblob

import (
	"context"
	"net/url"
	"strings"

	"github.com/vfskit/vfskit/backends/azblob"
	"github.com/vfskit/vfskit/cli/clischeme"
	"github.com/vfskit/vfskit/vfs"
)

// Schemes returns the set of the azblob scheme and of Flink's and Hadoop's
// Azure schemes (abfs, abfss, wasb, wasbs: azblob.HadoopSchemes), which open
// the configured account's containers, so a URI Flink logs can be pasted.
func Schemes() clischeme.Set {
	set := clischeme.Set{
		Schemes: []clischeme.Scheme{{Name: azblob.Scheme, Example: "azblob://container/blob", What: "Azure Blob Storage", Identity: azblob.Identity,
			Aliases: []string{"azure", "az", "azureblob", "blob"}}},
		Query: azblob.QueryParameters,
		Factory: func(env clischeme.Env) (vfs.Factory, error) {
			opts := azblob.Options{Logger: env.Log}
			plain, hadoop := azblob.Factory(opts), azblob.HadoopFactory(opts)
			return func(ctx context.Context, uri *url.URL) (vfs.FileSystem, error) {
				if uri.Scheme == azblob.Scheme {
					return plain(ctx, uri)
				}
				return hadoop(ctx, uri)
			}, nil
		},
	}
	for _, s := range azblob.HadoopSchemes {
		host := "dfs"
		if strings.HasPrefix(s, "wasb") {
			host = "blob"
		}
		set.Schemes = append(set.Schemes, clischeme.Scheme{Name: s,
			Example:  s + "://container@account." + host + ".core.windows.net/blob",
			What:     "azblob://container/blob of the configured account (Flink's and Hadoop's name)",
			Identity: azblob.Identity})
	}
	return set
}
