"""A small client of the Jobsight REST API on the Python standard library alone.

Airflow workers often may not install packages, so this speaks HTTP with ``urllib``. Routes, query
parameters and bodies are those of Jobsight's OpenAPI document
(``packages/schemas/openapi/openapi.json``); a test in the Jobsight repository checks every request
made here against it.

Example::

    api = JobsightApi()  # JOBSIGHT_URL and JOBSIGHT_TOKEN from the environment
    prediction = api.predict({"cluster": "hpc1", "scheduler": "slurm", "user": "alice",
                              "requested": {"memoryBytes": 64 * 2**30}})
"""

from __future__ import annotations

import json
import os
import random
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from typing import Any, Iterable, Mapping, Optional

# 501 and 505 mean the server will never do it; everything else here may pass on a later try.
_RETRYABLE = {408, 429, 500, 502, 503, 504}


class JobsightApiError(Exception):
    """An error answer of the Jobsight API, or no answer at all.

    ``status`` is the HTTP status (0 when the server could not be reached), ``code`` the server's
    stable error code (``VALIDATION_FAILED``, ``NOT_FOUND``, ...) or ``CONNECTION_FAILED``, and
    ``fields`` every offending field as ``{"path": ..., "message": ...}``.
    """

    def __init__(self, status: int, code: str, message: str, fields: list, request: str):
        detail = "; ".join(f"{f.get('path') or '/'}: {f.get('message')}" for f in fields)
        super().__init__(f"{request} failed ({status} {code}): {message}" + (f" ({detail})" if detail else ""))
        self.status = status
        self.code = code
        self.fields = fields
        self.request = request


class JobsightApi:
    """Calls the Jobsight REST API with a bearer token, a deadline per attempt, and retries.

    Reads, and predictions (which carry an idempotency key, so the server records a resend once),
    are retried after 408, 429, 5xx (not 501/505) and connection failures, with exponential
    back-off and jitter, honouring ``Retry-After``.
    """

    def __init__(
        self,
        base_url: Optional[str] = None,
        token: Optional[str] = None,
        timeout: float = 30.0,
        retries: int = 2,
        retry_delay: float = 0.5,
    ):
        url = base_url or os.environ.get("JOBSIGHT_URL", "")
        if not url.startswith(("http://", "https://")):
            raise ValueError("JobsightApi needs base_url or JOBSIGHT_URL, e.g. https://jobsight.example.org")
        self.base_url = url.rstrip("/")
        self.token = token if token is not None else os.environ.get("JOBSIGHT_TOKEN")
        self.timeout = timeout
        self.retries = retries
        self.retry_delay = retry_delay

    def predict(
        self,
        spec: Mapping[str, Any],
        resources: Optional[Iterable[str]] = None,
        idempotency_key: Optional[str] = None,
    ) -> dict:
        """``POST /v1/predictions``: what a job about to be submitted needs (a ``Prediction``)."""
        body: dict = {"spec": dict(spec), "idempotencyKey": idempotency_key or f"py-{uuid.uuid4()}"}
        if resources:
            body["resources"] = list(resources)
        return self._request("POST", "/v1/predictions", body=body, idempotency_key=body["idempotencyKey"])

    def diagnosis(self, job_id: str, cluster: Optional[str] = None) -> dict:
        """``GET /v1/jobs/{jobId}/diagnosis``: why a job failed or ran badly (a ``Diagnosis``)."""
        return self._request("GET", f"/v1/jobs/{_segment(job_id)}/diagnosis", query={"cluster": cluster})

    def diagnosis_markdown(self, job_id: str, cluster: Optional[str] = None) -> str:
        """The same diagnosis rendered as Markdown by the server (``Accept: text/markdown``)."""
        return self._request(
            "GET", f"/v1/jobs/{_segment(job_id)}/diagnosis", query={"cluster": cluster}, accept="text/markdown"
        )

    def _request(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, Any]] = None,
        body: Any = None,
        accept: str = "application/json",
        idempotency_key: Optional[str] = None,
    ) -> Any:
        search = urllib.parse.urlencode({k: v for k, v in (query or {}).items() if v is not None})
        url = f"{self.base_url}{path}" + (f"?{search}" if search else "")
        label = f"{method} {path}"
        headers = {"Accept": accept, "User-Agent": "jobsight-airflow/0.1"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        if idempotency_key:
            headers["Idempotency-Key"] = idempotency_key
        safe_to_resend = method != "POST" or idempotency_key is not None
        attempt = 0
        while True:
            request = urllib.request.Request(url, data=data, headers=headers, method=method)
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    text = response.read().decode("utf-8")
                    received = response.headers.get_content_type()
                    if received != accept:
                        raise JobsightApiError(
                            response.status, "RESPONSE_INVALID", f"asked for {accept}, got {received}", [], label
                        )
                    return text if accept == "text/markdown" else json.loads(text)
            except urllib.error.HTTPError as error:
                failure = _api_error(error, label)
                retry_after = _retry_after(error.headers.get("Retry-After"))
                if not safe_to_resend or error.code not in _RETRYABLE or attempt >= self.retries:
                    raise failure from None
            except (urllib.error.URLError, TimeoutError, ConnectionError) as error:
                reason = getattr(error, "reason", error)
                if not safe_to_resend or attempt >= self.retries:
                    raise JobsightApiError(0, "CONNECTION_FAILED", str(reason), [], label) from None
                retry_after = None
            attempt += 1
            backoff = self.retry_delay * 2 ** (attempt - 1)
            time.sleep(retry_after if retry_after is not None else backoff / 2 + random.random() * backoff / 2)


def _segment(value: str) -> str:
    # Kubernetes job ids are namespace/name: the slash belongs to the id, not to the path.
    return urllib.parse.quote(value, safe="")


def _retry_after(value: Optional[str]) -> Optional[float]:
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def _api_error(error: urllib.error.HTTPError, label: str) -> JobsightApiError:
    raw = error.read().decode("utf-8", "replace")
    try:
        body = json.loads(raw)
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("code"), str):
        return JobsightApiError(error.code, body["code"], str(body.get("message", "")), body.get("errors") or [], label)
    return JobsightApiError(error.code, "HTTP_ERROR", raw[:200] or error.reason, [], label)
