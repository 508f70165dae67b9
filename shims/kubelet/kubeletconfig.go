package main

import (
	"fmt"
	"strings"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	kubeletconfigv1beta1 "k8s.io/kubelet/config/v1beta1"
	kubeletconfig "k8s.io/kubernetes/pkg/kubelet/apis/config"
	kubeletscheme "k8s.io/kubernetes/pkg/kubelet/apis/config/scheme"
	"k8s.io/kubernetes/pkg/kubelet/apis/config/validation"
	"k8s.io/utils/ptr"
)

// tmConfig is the part of KubeletConfiguration a case sets.
type tmConfig struct {
	TopologyManagerPolicy        string            `json:"topologyManagerPolicy"`
	TopologyManagerScope         string            `json:"topologyManagerScope"`
	TopologyManagerPolicyOptions map[string]string `json:"topologyManagerPolicyOptions"`
	CPUManagerPolicy             string            `json:"cpuManagerPolicy"`
	CPUManagerPolicyOptions      map[string]string `json:"cpuManagerPolicyOptions"`
	MemoryManagerPolicy          string            `json:"memoryManagerPolicy"`
	ReservedSystemCPUs           string            `json:"reservedSystemCPUs"`
}

// defaultedConfig builds the internal KubeletConfiguration the kubelet would
// hold after reading a v1beta1 file carrying only the case's Topology Manager
// fields: upstream defaulting (policy none, scope container) and conversion.
func defaultedConfig(c tmConfig) (*kubeletconfig.KubeletConfiguration, error) {
	scheme, _, err := kubeletscheme.NewSchemeAndCodecs()
	if err != nil {
		return nil, err
	}
	ext := &kubeletconfigv1beta1.KubeletConfiguration{
		TopologyManagerPolicy:        c.TopologyManagerPolicy,
		TopologyManagerScope:         c.TopologyManagerScope,
		TopologyManagerPolicyOptions: c.TopologyManagerPolicyOptions,
		// Validation otherwise inspects the cgroup version of the machine the
		// shim runs on, which has nothing to do with the case.
		FailCgroupV1: ptr.To(false),
	}
	scheme.Default(ext)
	internal := &kubeletconfig.KubeletConfiguration{}
	if err := scheme.Convert(ext, internal, nil); err != nil {
		return nil, err
	}
	return internal, nil
}

// validateTopologyConfig runs the kubelet's own configuration validation. The
// two Topology Manager findings it can raise are an unknown policy and an
// unknown scope; the kubelet checks both before any manager is built, whatever
// the policy. Anything else it reports is not about this case's fields and is
// an error of the shim.
func validateTopologyConfig(kc *kubeletconfig.KubeletConfiguration) (*refusal, error) {
	err := validation.ValidateKubeletConfiguration(kc, utilfeature.DefaultFeatureGate)
	if err == nil {
		return nil, nil
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "topologyManagerPolicy (--topology-manager-policy)"):
		return &refusal{Reason: "UnknownPolicy", Message: msg}, nil
	case strings.Contains(msg, "topologyManagerScope (--topology-manager-scope)"):
		return &refusal{Reason: "UnknownScope", Message: msg}, nil
	}
	return nil, fmt.Errorf("kubelet configuration validation: %s", msg)
}
