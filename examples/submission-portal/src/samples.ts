/** What a researcher might paste: an sbatch script and a Kubernetes Job, each asking for a lot. */
export const samples = {
  sbatch: {
    fileName: "train.sbatch",
    text: `#!/bin/bash
#SBATCH --job-name=train
#SBATCH --account=acct-alice
#SBATCH --partition=batch
#SBATCH --nodes=1
#SBATCH --cpus-per-task=16
#SBATCH --mem=64G
#SBATCH --time=1-00:00:00

# Keep the checkpoints on scratch; they are large.
module load python/3.11
srun python train.py --epochs 40 --checkpoint-dir "$SCRATCH/ckpt"
`,
  },
  manifest: {
    fileName: "train-job.yaml",
    text: `apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: research
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: train
          image: registry.example.org/alice/train:1.4
          args: ["--epochs", "40"]
          resources:
            requests:
              memory: 64Gi   # what we always ask for
              cpu: "16"
            limits:
              memory: 64Gi
`,
  },
} as const;
