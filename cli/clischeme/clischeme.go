// Package clischeme is the contract between the vfskit command line (package
// cli) and the packages that add URI schemes to it: clis3 (s3://, s3a://,
// s3p://), cligcs (gs://) and cliazblob (azblob://). Each of those packages
// links only its own backend and SDK, so a program built with
//
//	cli.Main(cli.WithSchemes(clis3.Schemes()))
//
// links no Google Cloud or Azure package. An integrator's scheme can be added
// the same way (a Set with flags), or with cli.WithScheme when it needs none.
package clischeme

import (
	"log/slog"

	"github.com/spf13/pflag"

	"github.com/vfskit/vfskit/vfs"
)

// Set is a group of URI schemes served by one backend, with the command-line
// flags that configure it.
type Set struct {
	// Schemes are the URI schemes the set serves, in the order the top-level
	// help shows them.
	Schemes []Scheme
	// Query names the query parameters the factory accepts on a URI
	// ("s3://bucket/x?region=eu-west-1"); see vfs.Registry.DeclareQuery.
	Query []string
	// Flags adds the persistent flags that configure the schemes to fs; nil
	// when the set has none.
	Flags func(fs *pflag.FlagSet)
	// Factory returns the factory of every scheme in the set. The command line
	// calls it once per run, after its flags are parsed and before any URI is
	// resolved; an error (a malformed flag value) is a usage error (exit
	// status 2) and should name the flag and what was expected.
	Factory func(env Env) (vfs.Factory, error)
}

// Scheme is one scheme of a Set, with how the top-level help shows it.
type Scheme struct {
	// Name is the scheme, lower case: "s3".
	Name string
	// Example is a URI of the scheme: "s3://bucket/key".
	Example string
	// What says what the scheme reaches: "Amazon S3 and S3-compatible stores".
	What string
	// Aliases are the names people write for the scheme that are not
	// schemes here ("gcs" for "gs", "azure" for "azblob"): the command line
	// answers a URI with one of them "did you mean gs://?".
	Aliases []string
	// Identity is the scheme's location rule (vfs.Registry.RegisterIdentity):
	// which object a path names, whatever its spelling. Nil compares paths
	// as written.
	Identity vfs.Identity
}

// Env is what the command line gives a Set's factory.
type Env struct {
	// Log is the command line's logger, at the level of its --log-level flag.
	Log *slog.Logger
}
