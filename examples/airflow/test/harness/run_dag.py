"""Loads an example DAG with the Airflow stub and prints its tasks, or runs one task, as JSON.

    python3 run_dag.py describe <dag.py> [--xcom JSON]
    python3 run_dag.py execute <dag.py> <task_id> [--xcom JSON]

The example's ``plugins`` and ``dags`` folders go on ``sys.path`` as Airflow puts them. ``execute``
renders the task's templated fields, calls ``execute(context)`` and prints ``{"result": ...}``, or
``{"error": {...}}`` with exit code 1 when it raised.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import logging
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [HERE, os.path.join(EXAMPLE, "plugins"), os.path.join(EXAMPLE, "dags")]

import airflow_stub  # noqa: E402

airflow_stub.install()


def load_dag(path: str):
    spec = importlib.util.spec_from_file_location("example_dag", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    dags = [v for v in vars(module).values() if isinstance(v, airflow_stub.DAG)]
    if len(dags) != 1:
        raise SystemExit(f"{path}: expected one DAG, found {len(dags)}")
    return dags[0]


def describe(task, context) -> dict:
    if context["xcom"] is not None:
        task.render(context)
    out = {
        "taskId": task.task_id,
        "operator": type(task).__name__,
        "upstream": sorted(task.upstream_task_ids),
        "triggerRule": task.trigger_rule,
    }
    for name in ("bash_command", "env", "append_env", "spec", "resources", "job_id", "cluster", "fail_on_error"):
        if hasattr(task, name):
            out[name] = getattr(task, name)
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=["describe", "execute"])
    parser.add_argument("dag")
    parser.add_argument("task_id", nargs="?")
    parser.add_argument("--xcom", default=None)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(name)s %(levelname)s %(message)s")
    dag = load_dag(args.dag)
    context = {
        "params": dag.params,
        "xcom": json.loads(args.xcom) if args.xcom else None,
        "run_id": "manual__2026-12-02T10:00:00+00:00",
        "map_index": -1,
    }
    if args.command == "describe":
        tasks = [describe(t, context) for t in dag.tasks]
        print(json.dumps({"dagId": dag.dag_id, "params": dag.params, "tasks": tasks}))
        return 0
    task = next((t for t in dag.tasks if t.task_id == args.task_id), None)
    if task is None:
        raise SystemExit(f"{dag.dag_id} has no task {args.task_id}")
    context["xcom"] = context["xcom"] or {}
    task.render(context)
    try:
        result = task.execute(context)
    except Exception as error:  # the test asserts on the error the operator raised
        fields = {k: getattr(error, k) for k in ("status", "code", "fields") if hasattr(error, k)}
        print(json.dumps({"error": {"type": type(error).__name__, "message": str(error), **fields}}))
        return 1
    print(json.dumps({"result": result}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
