"""The pod sets a job integration builds from its object (Job, JobSet,
LeaderWorkerSet), with what its webhook needs to report them: the field path
of each pod set's annotations and the index labels its request carries
(upstream `pkg/controller/jobs/{job,jobset,leaderworkerset}`, `PodSets`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from reference_impl.errors import InvalidInput

from .annotations import NO_INDEX, IndexLabels
from .objects import PodSet, parse_pod_set

JOB = "Job"
JOBSET = "JobSet"
LWS = "LeaderWorkerSet"
KINDS = (JOB, JOBSET, LWS)

ELASTIC_JOB = "kueue.x-k8s.io/elastic-job"
JOB_COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"
JOBSET_JOB_INDEX = "jobset.sigs.k8s.io/job-index"
LWS_WORKER_INDEX = "leaderworkerset.sigs.k8s.io/worker-index"


@dataclass(frozen=True)
class BuiltPodSet:
    pod_set: PodSet
    annotations_path: str        # where the webhook says the annotations are
    index: IndexLabels = NO_INDEX


@dataclass(frozen=True)
class Integration:
    """Pod sets as one integration builds them; `kind` None is the contract's
    own pod set list, validated like a multi-podset integration."""
    kind: str | None
    pod_sets: tuple[BuiltPodSet, ...]
    annotations: Mapping[str, str]   # the object's own metadata.annotations

    @property
    def elastic(self) -> bool:
        return self.annotations.get(ELASTIC_JOB) == "true"


def plain(pod_sets: list[PodSet]) -> Integration:
    return Integration(None, tuple(BuiltPodSet(ps, f"podSets[{ps.name}].annotations") for ps in pod_sets), {})


def _mapping(raw, field: str) -> Mapping:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise InvalidInput(field, "must be a mapping")
    return raw


def _int(raw: Mapping, key: str, field: str, default: int | None) -> int | None:
    value = raw.get(key, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidInput(f"{field}.{key}", "must be a non-negative integer")
    return value


def _job_pods(spec: Mapping, field: str) -> int:
    # upstream: Job podsCount / JobSet PodsCountPerReplica: parallelism
    # (defaulted to 1) capped by completions
    parallelism = _int(spec, "parallelism", field, 1)
    completions = _int(spec, "completions", field, None)
    return parallelism if completions is None else min(parallelism, completions)


def _template(spec: Mapping, key: str, field: str) -> Mapping:
    if key not in spec:
        raise InvalidInput(f"{field}.{key}", "required pod template")
    return _mapping(spec[key], f"{field}.{key}")


def _pod_set(name: str, count: int, template: Mapping, field: str) -> PodSet:
    return parse_pod_set({"name": name, "count": count, "template": template}, field)


def parse(raw, field: str) -> Integration:
    raw = _mapping(raw, field)
    kind = raw.get("kind")
    if kind not in KINDS:
        raise InvalidInput(f"{field}.kind", f"must be one of {', '.join(KINDS)}")
    meta = _mapping(raw.get("metadata"), f"{field}.metadata")
    annotations = _mapping(meta.get("annotations"), f"{field}.metadata.annotations")
    spec = _mapping(raw.get("spec"), f"{field}.spec")
    if kind == JOB:
        template = _template(spec, "template", f"{field}.spec")
        built = (BuiltPodSet(_pod_set("main", _job_pods(spec, f"{field}.spec"), template, f"{field}.spec.template"),
                             "spec.template.metadata.annotations", IndexLabels(JOB_COMPLETION_INDEX)),)
    elif kind == JOBSET:
        jobs = spec.get("replicatedJobs")
        if not isinstance(jobs, list) or not jobs:
            raise InvalidInput(f"{field}.spec.replicatedJobs", "required non-empty list")
        built_list = []
        for i, rj in enumerate(jobs):
            where = f"{field}.spec.replicatedJobs[{i}]"
            rj = _mapping(rj, where)
            if not isinstance(rj.get("name"), str) or not rj["name"]:
                raise InvalidInput(f"{where}.name", "required")
            replicas = _int(rj, "replicas", where, 1)
            job_spec = _mapping(_mapping(rj.get("template"), f"{where}.template").get("spec"),
                                f"{where}.template.spec")
            template = _template(job_spec, "template", f"{where}.template.spec")
            built_list.append(BuiltPodSet(
                _pod_set(rj["name"], replicas * _job_pods(job_spec, f"{where}.template.spec"), template,
                         f"{where}.template.spec.template"),
                f"spec.replicatedJobs[{i}].template.spec.template.metadata.annotations",
                IndexLabels(JOB_COMPLETION_INDEX, JOBSET_JOB_INDEX, replicas)))
        built = tuple(built_list)
    else:
        where = f"{field}.spec.leaderWorkerTemplate"
        lwt = _mapping(spec.get("leaderWorkerTemplate"), where)
        size = _int(lwt, "size", where, 1)
        workers = _template(lwt, "workerTemplate", where)
        base = "spec.leaderWorkerTemplate"
        if lwt.get("leaderTemplate") is not None:
            leader = _template(lwt, "leaderTemplate", where)
            built = (BuiltPodSet(_pod_set("leader", 1, leader, f"{where}.leaderTemplate"),
                                 f"{base}.leaderTemplate.metadata.annotations"),
                     BuiltPodSet(_pod_set("worker", max(size - 1, 0), workers, f"{where}.workerTemplate"),
                                 f"{base}.workerTemplate.metadata.annotations", IndexLabels(LWS_WORKER_INDEX)))
        else:
            built = (BuiltPodSet(_pod_set("main", size, workers, f"{where}.workerTemplate"),
                                 f"{base}.workerTemplate.metadata.annotations", IndexLabels(LWS_WORKER_INDEX)),)
    names = [b.pod_set.name for b in built]
    if len(set(names)) != len(names):
        raise InvalidInput(field, "pod set names must be unique")
    return Integration(kind, built, {str(k): str(v) for k, v in annotations.items()})
