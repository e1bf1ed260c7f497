"""Shell snippets the example DAGs run on an Airflow worker that has the SLURM client commands."""


def submit_command(options: str = "") -> str:
    """``sbatch`` of ``$JOB_SCRIPT`` printing only the job id (``--parsable`` gives ``id[;cluster]``),
    so that the task's XCom is the id: ``submit_command("--mem=12288M")``."""
    return " ".join(["sbatch --parsable", *([options] if options else []), '"$JOB_SCRIPT" | cut -d ";" -f 1'])


# Waits for the job to leave the queue, then fails the task unless the allocation COMPLETED.
WAIT_FOR_JOB = """
while squeue --noheader --jobs "$JOB_ID" 2>/dev/null | grep -q .; do sleep 30; done
state=$(sacct --noheader --allocations --parsable2 --format=State --jobs "$JOB_ID" | head -n 1)
echo "job $JOB_ID ended $state"
[ "$state" = COMPLETED ]
"""
