//go:build !unix

package aferofs

import "os"

// fileID returns "": files here are identified by size and modification time.
func fileID(os.FileInfo) string { return "" }
