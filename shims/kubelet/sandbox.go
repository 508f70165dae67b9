package main

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
)

// devicePluginDir is where the device manager keeps its registration socket
// and checkpoint; upstream fixes the path (pluginapi.KubeletSocket).
const devicePluginDir = "/var/lib/kubelet/device-plugins"

const sandboxEnv = "KUBELET_SHIM_SANDBOXED"

var sandboxed bool

// prepareSandbox re-executes the shim in a private mount namespace with a
// tmpfs over /var/lib, so the device manager's fixed directory belongs to
// this process alone and nothing is written to the host's /var/lib. If no
// namespace can be had, the shim runs as is and admit answers unsupported.
func prepareSandbox() error {
	if os.Getenv(sandboxEnv) == "1" {
		if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
			return fmt.Errorf("making mounts private: %w", err)
		}
		if err := syscall.Mount("tmpfs", "/var/lib", "tmpfs", 0, "size=64m"); err != nil {
			return fmt.Errorf("mounting a private /var/lib: %w", err)
		}
		sandboxed = true
		return nil
	}
	if os.Getenv(sandboxEnv) == "0" {
		return nil
	}
	self, err := os.Executable()
	if err != nil {
		return nil
	}
	for _, flags := range []uintptr{syscall.CLONE_NEWNS, syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS} {
		cmd := exec.Command(self, os.Args[1:]...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
		cmd.Env = append(os.Environ(), sandboxEnv+"=1")
		cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: flags}
		if flags&syscall.CLONE_NEWUSER != 0 {
			cmd.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}}
			cmd.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}}
		}
		if err := cmd.Start(); err != nil {
			continue
		}
		sigs := make(chan os.Signal, 4)
		signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
		go func() {
			for s := range sigs {
				_ = cmd.Process.Signal(s)
			}
		}()
		err := cmd.Wait()
		if exit, ok := err.(*exec.ExitError); ok {
			if st, ok := exit.Sys().(syscall.WaitStatus); ok && st.Signaled() {
				os.Exit(128 + int(st.Signal()))
			}
			os.Exit(exit.ExitCode())
		}
		if err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	fmt.Fprintln(os.Stderr, "kubelet-shim: no private mount namespace; admit cases will be unsupported")
	return nil
}

// resetDevicePluginDir empties the private device-plugins directory.
func resetDevicePluginDir() error {
	if !sandboxed {
		return fmt.Errorf("no private mount namespace could be created")
	}
	if err := os.RemoveAll(devicePluginDir); err != nil {
		return err
	}
	return os.MkdirAll(filepath.Clean(devicePluginDir), 0o750)
}
