"""Right-size a SLURM job with the ``jobsight`` CLI before submitting it; diagnose it afterwards.

Needs, on the worker: the ``jobsight`` CLI (``npm install -g @jobsight/sdk``), the SLURM client
commands, and ``JOBSIGHT_URL``/``JOBSIGHT_TOKEN`` in the environment (a researcher's token, or one
for the platform team).
"""

from datetime import datetime

from airflow import DAG
from airflow.operators.bash import BashOperator

from slurm_commands import WAIT_FOR_JOB, submit_command

with DAG(
    dag_id="jobsight_sbatch_cli",
    start_date=datetime(2026, 1, 1),
    schedule=None,
    catchup=False,
    params={"script": "/shared/jobs/train.sbatch", "cluster": "hpc1", "user": "alice"},
    tags=["jobsight"],
) as dag:
    job_env = {
        "JOB_SCRIPT": "{{ params.script }}",
        "JOBSIGHT_CLUSTER": "{{ params.cluster }}",
        "JOBSIGHT_USER": "{{ params.user }}",
    }
    # Edits only the #SBATCH resource lines of the script, keeping the original as <script>.bak.
    right_size = BashOperator(
        task_id="right_size",
        bash_command='jobsight predict "$JOB_SCRIPT" --apply',
        env=job_env,
        append_env=True,
    )
    submit = BashOperator(
        task_id="submit",
        bash_command=submit_command(),
        env=job_env,
        append_env=True,
    )
    wait = BashOperator(
        task_id="wait",
        bash_command=WAIT_FOR_JOB,
        env={"JOB_ID": "{{ ti.xcom_pull(task_ids='submit') }}"},
        append_env=True,
    )
    # Runs whether the job passed or failed; exits 1 (task failed) when a finding is an error.
    diagnose = BashOperator(
        task_id="diagnose",
        bash_command='jobsight diagnose "$JOB_ID" --cluster "$JOBSIGHT_CLUSTER" --format markdown',
        env={**job_env, "JOB_ID": "{{ ti.xcom_pull(task_ids='submit') }}"},
        append_env=True,
        trigger_rule="all_done",
    )
    right_size >> submit >> wait >> diagnose
