package main

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	"sigs.k8s.io/kueue/pkg/resources"
	utiltas "sigs.k8s.io/kueue/pkg/util/tas"
	"sigs.k8s.io/kueue/pkg/workload"
)

// podSetInput is a podset as the contract writes it: either the pod
// template, or annotations, per-pod requests, tolerations, nodeSelector and
// affinity.
type podSetInput struct {
	Name               string                  `json:"name"`
	Count              int32                   `json:"count"`
	Annotations        map[string]string       `json:"annotations"`
	Requests           corev1.ResourceList     `json:"requests"`
	Tolerations        []corev1.Toleration     `json:"tolerations"`
	NodeSelector       map[string]string       `json:"nodeSelector"`
	Affinity           *corev1.Affinity        `json:"affinity"`
	Template           *corev1.PodTemplateSpec `json:"template"`
	TopologyAssignment *assignmentJSON         `json:"topologyAssignment"`
}

type assignmentJSON struct {
	Levels  []string     `json:"levels"`
	Domains []domainJSON `json:"domains"`
}

type domainJSON struct {
	Values []string `json:"values"`
	Count  int32    `json:"count"`
}

// podSet builds the kueue.PodSet the job integrations would create: the
// annotations sit on the pod template, the requests on one container.
func (p podSetInput) podSet() kueue.PodSet {
	var tmpl corev1.PodTemplateSpec
	if p.Template != nil {
		tmpl = *p.Template.DeepCopy()
	} else {
		tmpl.ObjectMeta.Annotations = p.Annotations
		tmpl.Spec.Containers = []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: p.Requests}}}
		tmpl.Spec.Tolerations = p.Tolerations
		tmpl.Spec.NodeSelector = p.NodeSelector
		tmpl.Spec.Affinity = p.Affinity
	}
	return kueue.PodSet{Name: kueue.NewPodSetReference(p.Name), Count: p.Count, Template: tmpl}
}

func (p podSetInput) singlePodRequests() resources.Requests {
	ps := p.podSet()
	return resources.NewRequestsFromPodSpec(&ps.Template.Spec)
}

type admittedWorkload struct {
	Name    string        `json:"name"`
	PodSets []podSetInput `json:"podSets"`
}

// domainRequests is the TAS usage of an admitted workload, per assigned
// domain, as workload.Info derives it from the admission.
func (w admittedWorkload) domainRequests() []workload.TopologyDomainRequests {
	var out []workload.TopologyDomainRequests
	for _, ps := range w.PodSets {
		if ps.TopologyAssignment == nil {
			continue
		}
		single := ps.singlePodRequests()
		for _, d := range ps.TopologyAssignment.Domains {
			out = append(out, workload.TopologyDomainRequests{Values: d.Values, SinglePodRequests: single.Clone(), Count: d.Count})
		}
	}
	return out
}

// clusterInput is the part every operation but validate shares.
type clusterInput struct {
	gateInput
	Topology          json.RawMessage    `json:"topology"`
	ResourceFlavor    json.RawMessage    `json:"resourceFlavor"`
	Nodes             []json.RawMessage  `json:"nodes"`
	Pods              []corev1.Pod       `json:"pods"`
	AdmittedWorkloads []admittedWorkload `json:"admittedWorkloads"`
}

// decodeNode reads a Node whose condition times are plain seconds (the
// contract's form), which metav1.Time cannot read; the times are dropped.
func decodeNode(raw json.RawMessage) (*corev1.Node, error) {
	return decodeNodeConditions(raw, func(m map[string]any) error {
		delete(m, "lastTransitionTime")
		delete(m, "lastHeartbeatTime")
		return nil
	})
}

// decodeNodeConditions reads a Node after fix has rewritten each of its
// status conditions as a plain map.
func decodeNodeConditions(raw json.RawMessage, fix func(map[string]any) error) (*corev1.Node, error) {
	var generic map[string]any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return nil, err
	}
	if status, ok := generic["status"].(map[string]any); ok {
		if conds, ok := status["conditions"].([]any); ok {
			for _, c := range conds {
				if m, ok := c.(map[string]any); ok {
					if err := fix(m); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	b, _ := json.Marshal(generic)
	var node corev1.Node
	if err := json.Unmarshal(b, &node); err != nil {
		return nil, err
	}
	return &node, nil
}

func decodeTopology(raw json.RawMessage) (*kueue.Topology, error) {
	var t kueue.Topology
	if len(raw) == 0 {
		return nil, fmt.Errorf("missing")
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, err
	}
	return &t, nil
}

func decodeFlavor(raw json.RawMessage) (*kueue.ResourceFlavor, error) {
	var rf kueue.ResourceFlavor
	if len(raw) == 0 {
		return nil, fmt.Errorf("missing")
	}
	if err := json.Unmarshal(raw, &rf); err != nil {
		return nil, err
	}
	if rf.Name == "" {
		rf.Name = "tas-flavor"
	}
	return &rf, nil
}

func renderAssignment(ta *utiltas.TopologyAssignment) any {
	if ta == nil {
		return nil
	}
	domains := make([]map[string]any, 0, len(ta.Domains))
	for _, d := range ta.Domains {
		values := d.Values
		if values == nil {
			values = []string{}
		}
		domains = append(domains, map[string]any{"values": values, "count": d.Count})
	}
	levels := ta.Levels
	if levels == nil {
		levels = []string{}
	}
	return map[string]any{"levels": levels, "domains": domains}
}

var _ = metav1.Now
