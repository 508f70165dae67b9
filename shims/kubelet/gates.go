package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
)

// pristineGates is the process-wide mutable default feature gate as the
// kubelet's packages registered it, before any case touched it.
var pristineGates featuregate.MutableVersionedFeatureGate

func initGates() {
	pristineGates = utilfeature.DefaultMutableFeatureGate.DeepCopy()
}

// gateRefusal is a start-up failure caused by the featureGates map itself.
type gateRefusal struct {
	reason  string
	message string
}

var lockedGate = regexp.MustCompile(`cannot set feature gate \S+ to \S+, feature is locked to`)

// applyGates installs a fresh copy of the default feature gate with the case's
// gates set through SetFromMap, as the kubelet does with
// KubeletConfiguration.featureGates. Every upstream read of
// utilfeature.DefaultFeatureGate then sees exactly this case's gates.
func applyGates(gates map[string]bool) *gateRefusal {
	fg := pristineGates.DeepCopy()
	utilfeature.DefaultMutableFeatureGate = fg
	utilfeature.DefaultFeatureGate = fg
	if len(gates) == 0 {
		return nil
	}
	if err := fg.SetFromMap(gates); err != nil {
		msg := err.Error()
		reason := "InvalidFeatureGates"
		switch {
		case lockedGate.MatchString(msg):
			reason = "FeatureGateLocked"
		case strings.Contains(msg, "unrecognized feature gate"):
			reason = "UnknownFeatureGate"
		}
		// Leave a usable gate behind for the refusal path.
		fresh := pristineGates.DeepCopy()
		utilfeature.DefaultMutableFeatureGate = fresh
		utilfeature.DefaultFeatureGate = fresh
		return &gateRefusal{reason: reason, message: msg}
	}
	return nil
}

var versionRE = regexp.MustCompile(`^v?1\.(\d+)(\.\d+)?$`)

// checkVersion decides whether a case written for Kubernetes `requested`
// can be answered by the linked release. The binary is one kubelet: it cannot
// emulate an older one (option maturity is not versioned upstream), so older
// versions are unsupported; a newer version is answered as this release would
// answer it, since the differences newer versions bring are features this
// release does not list in hello.
func checkVersion(requested string) (string, bool) {
	if requested == "" {
		requested = "1.38"
	}
	m := versionRE.FindStringSubmatch(strings.TrimSpace(requested))
	if m == nil {
		return fmt.Sprintf("kubernetesVersion %q is not of the form 1.N", requested), false
	}
	minor, _ := strconv.Atoi(m[1])
	own := linkedMinor()
	if own > 0 && minor < own {
		return fmt.Sprintf("the case describes Kubernetes 1.%d; this shim links %s and cannot emulate an older kubelet", minor, linkedVersion()), false
	}
	return "", true
}

func linkedMinor() int {
	if n, err := strconv.Atoi(kubernetesMinor); err == nil {
		return n
	}
	version := linkedVersion()
	if upstreamBase != "" {
		version = upstreamBase
	}
	m := regexp.MustCompile(`^v1\.(\d+)\.`).FindStringSubmatch(version)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}
