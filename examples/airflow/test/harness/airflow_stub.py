"""A tiny stand-in for the parts of Airflow the examples touch, for tests on machines without
Airflow: ``airflow.DAG``, ``airflow.models.BaseOperator`` and ``airflow.operators.bash.BashOperator``.

Operators register with the DAG of the enclosing ``with DAG(...)`` block, ``>>`` records
dependencies, and ``render`` fills ``template_fields`` the way Jinja would for the few expressions
the example DAGs use (``params.X``, ``ti.xcom_pull(task_ids='X')`` and an optional ``['key']``);
anything else is an error, so a DAG change the stub cannot follow fails the test.
"""

from __future__ import annotations

import logging
import re
import sys
import types
from typing import Any, Mapping

_current_dag: list = []
_EXPRESSION = re.compile(r"\{\{\s*(.*?)\s*\}\}")
_XCOM = re.compile(r"""^ti\.xcom_pull\(task_ids=['"]([\w.-]+)['"]\)(?:\[['"](\w+)['"]\])?$""")
_PARAM = re.compile(r"^params\.(\w+)$")


class DAG:
    def __init__(self, dag_id: str, params: Mapping[str, Any] | None = None, **kwargs: Any):
        self.dag_id = dag_id
        self.params = dict(params or {})
        self.kwargs = kwargs
        self.tasks: list = []

    def __enter__(self) -> "DAG":
        _current_dag.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        _current_dag.pop()


class BaseOperator:
    template_fields: tuple = ()

    def __init__(self, *, task_id: str, trigger_rule: str = "all_success", **kwargs: Any):
        if kwargs:
            raise TypeError(f"{task_id}: arguments the stub does not know: {sorted(kwargs)}")
        self.task_id = task_id
        self.trigger_rule = trigger_rule
        self.upstream_task_ids: set = set()
        self.log = logging.getLogger(f"airflow.task.{task_id}")
        self.dag = _current_dag[-1] if _current_dag else None
        if self.dag is not None:
            self.dag.tasks.append(self)

    def __rshift__(self, other: "BaseOperator") -> "BaseOperator":
        other.upstream_task_ids.add(self.task_id)
        return other

    def render(self, context: Mapping[str, Any]) -> None:
        for name in self.template_fields:
            setattr(self, name, _render(getattr(self, name), context))

    def execute(self, context: Mapping[str, Any]) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError


class BashOperator(BaseOperator):
    template_fields = ("bash_command", "env")

    def __init__(self, *, bash_command: str, env: Mapping[str, str] | None = None, append_env: bool = False, **kwargs: Any):
        super().__init__(**kwargs)
        self.bash_command = bash_command
        self.env = dict(env) if env is not None else None
        self.append_env = append_env


def _render(value: Any, context: Mapping[str, Any]) -> Any:
    if isinstance(value, str):
        return _EXPRESSION.sub(lambda m: str(_evaluate(m.group(1), context)), value)
    if isinstance(value, dict):
        return {k: _render(v, context) for k, v in value.items()}
    if isinstance(value, list):
        return [_render(v, context) for v in value]
    return value


def _evaluate(expression: str, context: Mapping[str, Any]) -> Any:
    param = _PARAM.match(expression)
    if param:
        return context["params"][param.group(1)]
    xcom = _XCOM.match(expression)
    if xcom:
        pulled = context["xcom"][xcom.group(1)]
        return pulled[xcom.group(2)] if xcom.group(2) else pulled
    raise ValueError(f"the Airflow stub cannot render {{{{ {expression} }}}}")


def install() -> None:
    """Registers the stub as the ``airflow`` package and its submodules."""
    airflow = types.ModuleType("airflow")
    airflow.DAG = DAG
    models = types.ModuleType("airflow.models")
    models.BaseOperator = BaseOperator
    models.DAG = DAG
    operators = types.ModuleType("airflow.operators")
    bash = types.ModuleType("airflow.operators.bash")
    bash.BashOperator = BashOperator
    airflow.models = models
    airflow.operators = operators
    operators.bash = bash
    sys.modules.update(
        {"airflow": airflow, "airflow.models": models, "airflow.operators": operators, "airflow.operators.bash": bash}
    )
