//go:build !linux

package local

// renameNoReplace renames oldname to newname unless newname exists, atomically
// for files (link+unlink); the engine falls back to check-then-rename for
// directories and file systems without hard links.
func renameNoReplace(oldname, newname string) error {
	return linkNoReplace(oldname, newname)
}
