package azuritetest

import (
	"os/exec"
	"syscall"
)

// setDeathSignal makes the kernel send SIGTERM to Azurite when the test process
// dies, so a crashed or killed test binary leaves no server behind.
func setDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
