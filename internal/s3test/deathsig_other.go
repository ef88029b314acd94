//go:build !linux

package s3test

import "os/exec"

// setDeathSignal is a no-op where the kernel has no parent-death signal; Main
// stops the server at the end of the tests.
func setDeathSignal(*exec.Cmd) {}
