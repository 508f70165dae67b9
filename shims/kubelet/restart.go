package main

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
)

// restart is a kubelet restart on the same machine (docs/operations/kubelet.md,
// admit, `restart` events): the device manager stops, a new Topology
// Manager starts from the same configuration, new device, CPU and memory
// managers start on the same state directory and device-plugin directory and
// restore their assignments from the checkpoints the previous ones wrote, the
// device plugins register again, and every pod still running is admitted
// again in the order it was first admitted and its containers added, as the
// kubelet does with the pods it finds when it comes back.
func (n *node) restart(in admitInput, spec *nodeSpec) *answer {
	if n.dev != nil {
		_ = stopDeviceManager(n.ctx, n.dev)
	}
	sm, r, a := startTopologyManager(in.commonInput, n.cfg, n.machine.info.Topology)
	if a != nil {
		return a
	}
	if r != nil {
		f := failure("the kubelet did not start again", fmt.Errorf("%s: %s", r.Reason, r.Message))
		return &f
	}
	n.tm = sm.manager
	// The baseline pods of node.allocated stay pinned to their NUMA nodes.
	n.store.mu.Lock()
	n.store.tm = sm.manager
	n.store.mu.Unlock()
	if a := n.startManagers(spec, false); a != nil {
		return a
	}
	req0, err0 := admissionCounters()
	defer func() {
		req1, err1 := admissionCounters()
		n.readmitRequests += req1 - req0
		n.readmitErrors += err1 - err0
	}()
	running := n.activePods()
	for i, pod := range running {
		n.reached = nil
		res := tmAdmit(n.ctx, n.tm, pod, running[:i])
		if !res.Admit {
			f := failure(fmt.Sprintf("after the restart the kubelet rejects running pod %s", pod.Name), fmt.Errorf("%s: %s", res.Reason, res.Message))
			return &f
		}
		all := append(append([]v1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...)
		for ci := range all {
			id := string(pod.UID) + "/" + all[ci].Name
			tmAddContainer(n.ctx, n.tm, pod, &all[ci], id)
			cpuAddContainer(n.ctx, n.cpu, pod, &all[ci], id)
			memAddContainer(n.ctx, n.mem, pod, &all[ci], id)
		}
	}
	return nil
}
