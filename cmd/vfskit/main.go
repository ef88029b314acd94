// Command vfskit works with files on any file system vfskit supports (local
// disk, S3 and S3-compatible stores, Google Cloud Storage, Azure Blob Storage,
// memory), lists, inspects, verifies, moves and cleans up the checkpoints and
// savepoints of Apache Flink and of vfskit's checkpoint storage, and runs a
// demo job that checkpoints, crashes and recovers with exactly-once results.
//
// Usage:
//
//	vfskit ls [-l [-h]] [-a] [-R [-L]] [-b|-N|-Q|--zero|--json] URI...
//	vfskit stat [--json] URI...
//	vfskit cat URI...                  ("-" is standard input)
//	vfskit cp [-r] [-L] [-T] [-n | -u | --update=WHEN] SRC... DST  ("-": standard input or output)
//	vfskit mv [-f | -n] SRC... DST
//	vfskit rm [-r] [-f] [--no-preserve-root] URI...
//	vfskit mkdir [-p] URI...
//	vfskit clean-temp [--older-than 1h] [--dry-run] DIR...
//	vfskit checkpoints list [--json] DIR
//	vfskit checkpoints inspect [--json] [--verify] POINTER
//	vfskit checkpoints verify [--json] PATH [--map OLD=NEW]...
//	vfskit checkpoints audit JOBDIR [--map OLD=NEW]... [--delete] [--json]
//	vfskit checkpoints gc DIR --retain N [--dry-run] [--json]
//	vfskit checkpoints relocate SRC DST [--map OLD=NEW]...
//	vfskit checkpoints state [--operator ID|UID] [--json] POINTER
//	vfskit checkpoints offsets [--operator ID|UID] [--json] POINTER
//	vfskit checkpoints set-offsets SRC DST [--topic T --partition P --offset O]... [--split ID=POSITION]... [--map-topic OLD=NEW]... [--from-file F]
//	vfskit demo [flags]
//	vfskit completion bash|zsh|fish|powershell
//	vfskit help [COMMAND]
//	vfskit --version
//
// URIs name files on any scheme the binary serves: file:// (and plain paths),
// memory://, s3:// (s3a://, s3p://), gs:// and azblob://; vfskit --help lists
// them. On a terminal, names holding control characters are printed
// shell-quoted, as GNU ls prints them; --quoting-style
// literal|shell-escape|escape|c chooses.
//
// Every command has --help. The exit status is 0 on success, 1 when the
// operation failed, 2 for a usage error (no command, unknown command or flag,
// wrong arguments, a bad URI or an unknown scheme) and 130 when interrupted
// with Ctrl-C (143 for SIGTERM).
//
// The command is cli.Main with the s3, gs and azblob schemes enabled; package
// github.com/vfskit/vfskit/cli builds the same command with more schemes.
package main

import (
	"github.com/vfskit/vfskit/cli"
	"github.com/vfskit/vfskit/cli/cliazblob"
	"github.com/vfskit/vfskit/cli/cligcs"
	"github.com/vfskit/vfskit/cli/clis3"
)

// options are the schemes this binary serves beyond file:// and memory://.
var options = []cli.Option{cli.WithSchemes(clis3.Schemes(), cligcs.Schemes(), cliazblob.Schemes())}

func main() { cli.Main(options...) }
