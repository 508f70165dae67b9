package main

import (
	"regexp"
	"strconv"
	"strings"
)

// The CPU manager's topology of sockets, cores and threads is read from the
// node (machine.go) and its policy options reach cpumanager.NewManager as the
// case wrote them; every release from v1.34 has full-pcpus-only,
// distribute-cpus-across-numa and align-by-socket, so hello leaves none of the
// CPU option features out.

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
	case strings.Contains(msg, "is incompatible with CPUManager align-by-socket policy option"),
		strings.Contains(msg, "Align by socket is not compatible with hardware"):
		return "IncompatibleCPUManagerPolicyOption"
	}
	return ""
}

// alignBySocketOn says whether the options turn align-by-socket on and the
// CPU manager would accept it (the option is alpha in every release, its gate
// off by default). The hidden socket of reserved CPUs (machine.go) would
// change the NUMA nodes per socket by which align-by-socket judges a hint, so
// such a case must reserve its own CPUs.
func alignBySocketOn(options map[string]string, gates map[string]bool) bool {
	on, err := strconv.ParseBool(options["align-by-socket"])
	return err == nil && on && gates["CPUManagerPolicyAlphaOptions"]
}
