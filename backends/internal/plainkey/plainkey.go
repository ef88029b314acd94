// Package plainkey tells which object keys gocloud's GCS and Azure drivers
// send as they are, so that a request a backend sends with the SDK itself
// (bypassing the driver) names the same object the driver would.
package plainkey

import "strings"

// Plain reports whether the drivers send key unescaped: no control
// character, none of `\ " # % ?` or DEL, no "../", no trailing "/" and no
// "__0x" (the start of the drivers' escape sequences). Other keys are
// escaped by the drivers in ways a backend should not repeat: it then falls
// back to requests through the driver.
func Plain(key string) bool {
	if key == "" || strings.HasSuffix(key, "/") || strings.Contains(key, "../") || strings.Contains(key, "__0x") {
		return false
	}
	for i := 0; i < len(key); i++ {
		switch c := key[i]; {
		case c < 32, c == 127, c == '\\', c == '"', c == '#', c == '%', c == '?':
			return false
		}
	}
	return true
}

// StatusError carries the HTTP status of an SDK error (as an S3 error does),
// so that a backend's blobfs.ErrorCoder (httpcode.Status) classifies the
// answers to its own requests.
type StatusError struct {
	Code int
	Err  error
}

// Error returns Err's message.
func (e *StatusError) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *StatusError) Unwrap() error { return e.Err }

// HTTPStatusCode returns Code.
func (e *StatusError) HTTPStatusCode() int { return e.Code }
