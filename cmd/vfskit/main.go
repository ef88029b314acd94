// Command vfskit works with files on any file system vfskit supports (local
// disk, S3 and S3-compatible stores, memory), inspects and cleans up Flink-style
// checkpoints, and runs a demo job that checkpoints, crashes and recovers with
// exactly-once results.
//
// Usage:
//
//	vfskit ls [-l] [-R [-L]] [-b|-N|-Q|--zero|--json] URI...
//	vfskit stat [--json] URI...
//	vfskit cat URI...              ("-" is standard input)
//	vfskit cp [-r [-L]] [-n] SRC DST  ("-" is standard input or output)
//	vfskit mv SRC DST
//	vfskit rm [-r [--no-preserve-root]] URI...
//	vfskit mkdir URI...
//	vfskit checkpoints list DIR
//	vfskit checkpoints inspect [--json] POINTER
//	vfskit checkpoints gc DIR --retain N [--dry-run]
//	vfskit demo [flags]
//	vfskit completion bash|zsh|fish|powershell
//	vfskit --version
//
// On a terminal, names holding control characters are printed shell-quoted,
// as GNU ls prints them; --quoting-style literal|shell-escape|escape|c
// chooses.
//
// Every command has --help. The exit status is 0 on success, 1 when the
// operation failed, 2 for a usage error (no command, unknown command or flag,
// wrong arguments, a bad URI or an unknown scheme) and 130 when interrupted
// with Ctrl-C (143 for SIGTERM).
//
// The command is cli.Main with the s3, gs and azblob schemes enabled; package
// github.com/vfskit/vfskit/cli builds the same command with more schemes.
package main

import "github.com/vfskit/vfskit/cli"

func main() { cli.Main(cli.WithS3(), cli.WithGCS(), cli.WithAzblob()) }
