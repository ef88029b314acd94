//go:build !linux

package azuritetest

import "os/exec"

func setDeathSignal(*exec.Cmd) {}
