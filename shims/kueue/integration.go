package main

import (
	"encoding/json"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	"sigs.k8s.io/kueue/pkg/controller/jobframework"
	"sigs.k8s.io/kueue/pkg/features"
	"sigs.k8s.io/kueue/pkg/workloadslicing"
)

// The integration objects, reduced to the fields the integrations read when
// they build podsets (the LeaderWorkerSet and JobSet API modules are not
// linked; their field names are the same).
type integrationInput struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
	Spec json.RawMessage `json:"spec"`
}

type jobSpecInput struct {
	Parallelism *int32                 `json:"parallelism"`
	Completions *int32                 `json:"completions"`
	Template    corev1.PodTemplateSpec `json:"template"`
}

type jobSetSpecInput struct {
	ReplicatedJobs []struct {
		Name     string `json:"name"`
		Replicas *int32 `json:"replicas"`
		Template struct {
			Spec jobSpecInput `json:"spec"`
		} `json:"template"`
	} `json:"replicatedJobs"`
}

type lwsSpecInput struct {
	LeaderWorkerTemplate struct {
		Size           *int32                  `json:"size"`
		LeaderTemplate *corev1.PodTemplateSpec `json:"leaderTemplate"`
		WorkerTemplate corev1.PodTemplateSpec  `json:"workerTemplate"`
	} `json:"leaderWorkerTemplate"`
}

// builtPodSet is one podset as its integration builds it, with the field
// path of its template metadata the integration's webhook validates.
type builtPodSet struct {
	input         podSetInput
	meta          *field.Path
	podIndexLabel *string
	subGroupLabel *string
	subGroupCount *int32
}

func (b builtPodSet) annotations() *field.Path { return b.meta.Child("annotations") }

// request is the podset's topology request as its integration builds it.
func (b builtPodSet) request() (*kueue.PodSetTopologyRequest, error) {
	ps := b.input.podSet()
	builder := jobframework.NewPodSetTopologyRequest(&ps.Template.ObjectMeta)
	if b.podIndexLabel != nil {
		builder.PodIndexLabel(b.podIndexLabel)
	}
	if b.subGroupLabel != nil || b.subGroupCount != nil {
		builder.SubGroup(b.subGroupLabel, b.subGroupCount)
	}
	return builder.Build()
}

// jobPods is upstream's pods per Job: parallelism capped by completions.
func jobPods(s jobSpecInput) int32 {
	n := ptr.Deref(s.Parallelism, 1)
	if s.Completions != nil && *s.Completions < n {
		n = *s.Completions
	}
	return n
}

func templated(name string, count int32, t corev1.PodTemplateSpec) podSetInput {
	return podSetInput{Name: name, Count: count, Template: t.DeepCopy()}
}

// plainPodSets are the contract's own podset list, named podSets[<name>].
func plainPodSets(in []podSetInput) []builtPodSet {
	out := make([]builtPodSet, len(in))
	for i, p := range in {
		out[i] = builtPodSet{input: p, meta: field.NewPath("podSets").Key(p.Name)}
	}
	return out
}

// build gives the podsets of upstream's PodSets builders of v0.17.0:
// job_controller.go, jobset_controller.go, leaderworkerset_reconciler.go.
func (i integrationInput) build() ([]builtPodSet, error) {
	switch i.Kind {
	case "Job":
		var s jobSpecInput
		if err := json.Unmarshal(i.Spec, &s); err != nil {
			return nil, err
		}
		return []builtPodSet{{input: templated("main", jobPods(s), s.Template),
			meta: field.NewPath("spec", "template", "metadata"), podIndexLabel: ptr.To(batchv1.JobCompletionIndexAnnotation)}}, nil
	case "JobSet":
		var s jobSetSpecInput
		if err := json.Unmarshal(i.Spec, &s); err != nil {
			return nil, err
		}
		var out []builtPodSet
		for idx, rj := range s.ReplicatedJobs {
			replicas := ptr.Deref(rj.Replicas, 1)
			out = append(out, builtPodSet{
				input:         templated(rj.Name, replicas*jobPods(rj.Template.Spec), rj.Template.Spec.Template),
				meta:          field.NewPath("spec", "replicatedJobs").Index(idx).Child("template", "spec", "template", "metadata"),
				podIndexLabel: ptr.To(batchv1.JobCompletionIndexAnnotation),
				subGroupLabel: ptr.To("jobset.sigs.k8s.io/job-index"),
				subGroupCount: ptr.To(replicas),
			})
		}
		return out, nil
	case "LeaderWorkerSet":
		var s lwsSpecInput
		if err := json.Unmarshal(i.Spec, &s); err != nil {
			return nil, err
		}
		lwt := s.LeaderWorkerTemplate
		base := field.NewPath("spec", "leaderWorkerTemplate")
		size := ptr.Deref(lwt.Size, 1)
		workerIndex := ptr.To("leaderworkerset.sigs.k8s.io/worker-index")
		if lwt.LeaderTemplate == nil {
			return []builtPodSet{{input: templated("main", size, lwt.WorkerTemplate),
				meta: base.Child("workerTemplate", "metadata"), podIndexLabel: workerIndex}}, nil
		}
		return []builtPodSet{
			{input: templated("leader", 1, *lwt.LeaderTemplate), meta: base.Child("leaderTemplate", "metadata")},
			{input: templated("worker", size-1, lwt.WorkerTemplate), meta: base.Child("workerTemplate", "metadata"), podIndexLabel: workerIndex},
		}, nil
	}
	return nil, fmt.Errorf("integration.kind: %q is none of Job, JobSet, LeaderWorkerSet", i.Kind)
}

// integrationWebhookErrors runs the integration webhook's TAS checks in its
// order (v0.17.0 validateTopologyRequest of job_webhook.go, jobset_webhook.go,
// leaderworkerset_webhook.go): the same jobframework calls with the
// integration's field paths.
func integrationWebhookErrors(kind string, objAnnotations map[string]string, built []builtPodSet) []validationError {
	if kind == "Job" {
		b := built[0]
		ps := b.input.podSet()
		meta := &ps.Template.ObjectMeta
		if errs := jobframework.ValidateTASPodSetRequest(b.meta, meta); len(errs) > 0 {
			return sortedErrors(b.input.Name, errs)
		}
		job := &batchv1.Job{}
		job.Annotations = objAnnotations
		if features.Enabled(features.ElasticJobsViaWorkloadSlices) && workloadslicing.Enabled(job) {
			// The Job webhook's own refusal, as job_webhook.go writes it.
			for _, mode := range []struct{ key, name string }{
				{kueue.PodSetRequiredTopologyAnnotation, "required"}, {kueue.PodSetPreferredTopologyAnnotation, "preferred"},
			} {
				if _, found := meta.Annotations[mode.key]; found {
					e := field.Forbidden(b.meta.Child("annotations", mode.key), mode.name+" topology is not supported with elastic jobs")
					return sortedErrors(b.input.Name, field.ErrorList{e})
				}
			}
		}
		return sortedErrors(b.input.Name, jobframework.ValidateSliceSizeAnnotationUpperBound(b.meta, meta, &ps))
	}
	// JobSet and LeaderWorkerSet: every template's checks; the upper bounds
	// and the group check when every podset's request builds.
	var podSets []kueue.PodSet
	paths := map[kueue.PodSetReference]*field.Path{}
	builds := true
	for _, b := range built {
		ps := b.input.podSet()
		tr, err := b.request()
		if err != nil {
			builds = false
		}
		ps.TopologyRequest = tr
		podSets = append(podSets, ps)
		paths[ps.Name] = b.annotations()
	}
	byPodSet := map[string]field.ErrorList{}
	for i, b := range built {
		meta := &podSets[i].Template.ObjectMeta
		byPodSet[b.input.Name] = append(byPodSet[b.input.Name], jobframework.ValidateTASPodSetRequest(b.meta, meta)...)
		if builds {
			byPodSet[b.input.Name] = append(byPodSet[b.input.Name], jobframework.ValidateSliceSizeAnnotationUpperBound(b.meta, meta, &podSets[i])...)
		}
	}
	if builds {
		for _, e := range jobframework.ValidatePodSetGroupingTopology(podSets, paths) {
			for _, b := range built {
				if prefixedBy(e.Field, b.annotations().String()) {
					byPodSet[b.input.Name] = append(byPodSet[b.input.Name], e)
				}
			}
		}
	}
	var out []validationError
	for _, b := range built {
		out = append(out, sortedErrors(b.input.Name, dedupe(byPodSet[b.input.Name]))...)
	}
	return out
}

func prefixedBy(path, prefix string) bool {
	return path == prefix || (len(path) > len(prefix) && path[:len(prefix)] == prefix && path[len(prefix)] == '[')
}

// dedupe drops repeated errors as the API server's aggregate does
// (field.ErrorList.ToAggregate keeps one error per distinct text).
func dedupe(errs field.ErrorList) field.ErrorList {
	seen := map[string]bool{}
	var out field.ErrorList
	for _, e := range errs {
		if !seen[e.Error()] {
			seen[e.Error()] = true
			out = append(out, e)
		}
	}
	return out
}
