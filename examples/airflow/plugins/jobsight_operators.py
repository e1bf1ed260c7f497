"""Airflow operators that ask Jobsight before a job runs and after it ended.

Put this folder on the workers' ``plugins`` path (or ``PYTHONPATH``); nothing needs installing.

- ``JobsightPredictOperator`` predicts what a job about to be submitted needs and pushes the
  values to use (the recommendation where there is one, the job's own request where the evidence
  is insufficient) to XCom, ready for an ``sbatch`` or a ``KubernetesPodOperator`` downstream.
- ``JobsightDiagnoseOperator`` fetches the diagnosis of a job that ended, logs its Markdown, and
  can fail the task when a finding has severity ``error``.
"""

from __future__ import annotations

import hashlib
import math
from typing import Any, Iterable, Mapping, Optional

from airflow.models import BaseOperator

from jobsight_api import JobsightApi

# Prediction resource name -> the JobSpec.requested field holding the same quantity.
REQUEST_FIELDS = {
    "memory": "memoryBytes",
    "cores": "cores",
    "gpus": "gpus",
    "gpuMemory": "gpuMemoryBytes",
    "walltime": "walltimeSeconds",
}


class JobsightFindingsError(RuntimeError):
    """The diagnosed job has at least one finding of severity error (the task fails on purpose)."""


def slurm_memory(num_bytes: float) -> str:
    """``--mem`` in whole MiB, rounded up: ``slurm_memory(12 * 2**30) == "12288M"``."""
    return f"{math.ceil(num_bytes / 2**20)}M"


def slurm_time(seconds: float) -> str:
    """``--time`` as ``[D-]HH:MM:SS``, rounded up to the minute: ``slurm_time(8400) == "02:20:00"``."""
    minutes = math.ceil(seconds / 60)
    days, minutes = divmod(minutes, 24 * 60)
    hours, minutes = divmod(minutes, 60)
    clock = f"{hours:02d}:{minutes:02d}:00"
    return f"{days}-{clock}" if days else clock


def _idempotency_key(context: Mapping[str, Any], task_id: str) -> str:
    # A retried task instance asks again with the same key and gets the first answer back, so the
    # server records one prediction per task run however often Airflow retries it.
    run = f"{context.get('dag_run_id') or context.get('run_id')}|{task_id}|{context.get('map_index', -1)}"
    return "airflow-" + hashlib.sha256(run.encode("utf-8")).hexdigest()[:40]


class JobsightPredictOperator(BaseOperator):
    """Predict a job's resources before it is submitted.

    :param spec: the job as a Jobsight ``JobSpec`` (``cluster``, ``scheduler``, ``user``,
        ``requested``, and ideally ``executable``/``jobName``/``account``); templated.
    :param resources: resources to predict (``memory``, ``cores``, ``gpus``, ``gpuMemory``,
        ``walltime``); default all.
    :param jobsight_url: server URL; default ``JOBSIGHT_URL``.
    :param jobsight_token: bearer token; default ``JOBSIGHT_TOKEN``.

    Returns (as XCom) ``predictionId``, ``mode``, ``modelVersion``, ``recommended`` (only what has a
    recommendation), ``use`` (the values to submit with: recommended, else requested),
    ``insufficientEvidence`` (resource -> reason), ``sbatchArgs`` (``--mem``/``--time`` of ``use``)
    and ``notice``.
    """

    template_fields = ("spec",)

    def __init__(
        self,
        *,
        spec: Mapping[str, Any],
        resources: Optional[Iterable[str]] = None,
        jobsight_url: Optional[str] = None,
        jobsight_token: Optional[str] = None,
        timeout: float = 30.0,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        self.spec = spec
        self.resources = list(resources) if resources else None
        self.jobsight_url = jobsight_url
        self.jobsight_token = jobsight_token
        self.timeout = timeout

    def execute(self, context: Mapping[str, Any]) -> dict:
        api = JobsightApi(self.jobsight_url, self.jobsight_token, timeout=self.timeout)
        prediction = api.predict(self.spec, self.resources, _idempotency_key(context, self.task_id))
        requested = dict(self.spec.get("requested", {}))
        recommended: dict = {}
        insufficient: dict = {}
        for item in prediction["resources"]:
            field = REQUEST_FIELDS[item["resource"]]
            if item["status"] == "ok":
                recommended[field] = item["value"]
                self.log.info(
                    "%s: recommend %s (asked %s, confidence %.0f%%, %s past jobs)",
                    item["resource"], item["value"], requested.get(field), 100 * item["confidence"],
                    item["evidence"]["jobs"],
                )
            else:
                insufficient[item["resource"]] = item["reason"]
        use = {**requested, **recommended}
        sbatch_args = []
        if "memoryBytes" in use:
            sbatch_args.append(f"--mem={slurm_memory(use['memoryBytes'])}")
        if "walltimeSeconds" in use:
            sbatch_args.append(f"--time={slurm_time(use['walltimeSeconds'])}")
        if prediction.get("notice"):
            self.log.warning("Jobsight: %s", prediction["notice"])
        return {
            "predictionId": prediction["id"],
            "mode": prediction["mode"],
            "modelVersion": prediction["modelVersion"],
            "recommended": recommended,
            "use": use,
            "insufficientEvidence": insufficient,
            "sbatchArgs": " ".join(sbatch_args),
            "notice": prediction.get("notice"),
        }


class JobsightDiagnoseOperator(BaseOperator):
    """Diagnose a job that ended, log the diagnosis as Markdown, and return a summary.

    :param job_id: the scheduler's job id (templated, e.g. from the submitting task's XCom).
    :param cluster: the job's cluster, when the id alone is ambiguous; templated.
    :param fail_on_error: fail the task when a finding has severity ``error``.
    """

    template_fields = ("job_id", "cluster")

    def __init__(
        self,
        *,
        job_id: str,
        cluster: Optional[str] = None,
        fail_on_error: bool = False,
        jobsight_url: Optional[str] = None,
        jobsight_token: Optional[str] = None,
        timeout: float = 30.0,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        self.job_id = job_id
        self.cluster = cluster
        self.fail_on_error = fail_on_error
        self.jobsight_url = jobsight_url
        self.jobsight_token = jobsight_token
        self.timeout = timeout

    def execute(self, context: Mapping[str, Any]) -> dict:
        api = JobsightApi(self.jobsight_url, self.jobsight_token, timeout=self.timeout)
        diagnosis = api.diagnosis(self.job_id, self.cluster)
        markdown = api.diagnosis_markdown(self.job_id, self.cluster)
        self.log.info("%s", markdown)
        findings = [
            {"kind": f["kind"], "severity": f["severity"], "claim": f["claim"]} for f in diagnosis["findings"]
        ]
        if self.fail_on_error and any(f["severity"] == "error" for f in findings):
            kinds = ", ".join(f["kind"] for f in findings if f["severity"] == "error")
            raise JobsightFindingsError(f"job {self.job_id} has findings of severity error: {kinds}")
        return {"jobId": diagnosis["jobId"], "state": diagnosis.get("state"), "findings": findings, "markdown": markdown}
