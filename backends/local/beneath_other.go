//go:build !linux

package local

import "os"

// openBeneath is nil here: without openat2, vfs.OpenBeneathFS reports
// errors.ErrUnsupported and tree copies open files by path.
var openBeneath func(dir, rel string) (*os.File, error)
