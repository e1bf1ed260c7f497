"""Predict with ``JobsightPredictOperator``, submit with the values it chose, diagnose the result.

Only the Python standard library is needed on the worker (the operators are in ``plugins/``), plus
the SLURM client commands and ``JOBSIGHT_URL``/``JOBSIGHT_TOKEN`` in the environment.
"""

from datetime import datetime

from airflow import DAG
from airflow.operators.bash import BashOperator

from jobsight_operators import JobsightDiagnoseOperator, JobsightPredictOperator
from slurm_commands import WAIT_FOR_JOB, submit_command

GiB = 2**30

with DAG(
    dag_id="jobsight_predict_operator",
    start_date=datetime(2026, 1, 1),
    schedule=None,
    catchup=False,
    tags=["jobsight"],
) as dag:
    predict = JobsightPredictOperator(
        task_id="predict",
        spec={
            "cluster": "hpc1",
            "scheduler": "slurm",
            "user": "alice",
            "account": "acct-alice",
            "partition": "batch",
            "jobName": "train",
            "executable": "train.py",
            "requested": {"memoryBytes": 64 * GiB, "cores": 16, "walltimeSeconds": 24 * 3600, "nodes": 1},
        },
    )
    # --mem and --time from the prediction (the request where the evidence was insufficient).
    submit = BashOperator(
        task_id="submit",
        bash_command=submit_command("{{ ti.xcom_pull(task_ids='predict')['sbatchArgs'] }} --cpus-per-task=16"),
        env={"JOB_SCRIPT": "/shared/jobs/train.sh"},
        append_env=True,
    )
    wait = BashOperator(
        task_id="wait",
        bash_command=WAIT_FOR_JOB,
        env={"JOB_ID": "{{ ti.xcom_pull(task_ids='submit') }}"},
        append_env=True,
    )
    diagnose = JobsightDiagnoseOperator(
        task_id="diagnose",
        job_id="{{ ti.xcom_pull(task_ids='submit') }}",
        cluster="hpc1",
        trigger_rule="all_done",
    )
    predict >> submit >> wait >> diagnose
