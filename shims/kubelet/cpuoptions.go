package main

import (
	"regexp"
	"strings"
)

// The CPU manager's topology of sockets, cores and threads is read from the
// node (machine.go) and its policy options reach cpumanager.NewManager as the
// case wrote them; every release from v1.34 has full-pcpus-only and
// distribute-cpus-across-numa.
func init() {
	releaseFeatures = append(releaseFeatures, "kubelet.cpu-topology", "kubelet.cpu-option.full-pcpus-only",
		"kubelet.cpu-option.distribute-cpus-across-numa")
}

var cpuOptionNotAvailable = regexp.MustCompile(`CPU Manager Policy (Alpha|Beta)-level Options not enabled, but option "[^"]*" provided`)

// cpuOptionRefusal names the start-up refusal an error of the static CPU
// policy's option parsing stands for, or "" when the error is something else.
func cpuOptionRefusal(err error) string {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "unknown CPU Manager Policy option:"):
		return "UnknownCPUManagerPolicyOption"
	case cpuOptionNotAvailable.MatchString(msg):
		return "CPUManagerPolicyOptionNotAvailable"
	case strings.Contains(msg, "bad value for option"):
		return "InvalidCPUManagerPolicyOptionValue"
	}
	return ""
}
