import { validateJobSpec } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { parseSbatch } from "./parse-sbatch.js";

const ctx = { cluster: "hpc1", user: "alice" };
const GiB = 2 ** 30;
const MiB = 2 ** 20;
const read = (body: string) => parseSbatch(`#!/bin/bash\n${body}\nsrun python train.py\n`, ctx);

describe("parseSbatch", () => {
  it("reads a typical GPU training script into a valid JobSpec", () => {
    const { spec, warnings } = parseSbatch(
      [
        "#!/bin/bash",
        "#SBATCH --job-name=train-resnet",
        "#SBATCH --partition=gpu",
        "#SBATCH -A physics",
        "#SBATCH --qos=normal",
        "#SBATCH --nodes=1 --ntasks=1",
        "#SBATCH --cpus-per-task=8",
        "#SBATCH --mem=64G",
        "#SBATCH --gres=gpu:a100:2",
        "#SBATCH --time=1-00:00:00",
        "",
        "module load cuda/12",
        "export OMP_NUM_THREADS=8",
        "python train.py --epochs 10",
      ].join("\n"),
      ctx,
    );
    expect(warnings).toEqual([]);
    expect(validateJobSpec(spec).ok).toBe(true);
    expect(spec).toEqual({
      cluster: "hpc1",
      scheduler: "slurm",
      user: "alice",
      account: "physics",
      partition: "gpu",
      qos: "normal",
      jobName: "train-resnet",
      executable: "python train.py --epochs 10",
      requested: {
        nodes: 1,
        cores: 8,
        memoryBytes: 64 * GiB,
        gpus: 2,
        gpuModel: "a100",
        walltimeSeconds: 86_400,
      },
    });
  });

  it.each([
    ["#SBATCH --cpus-per-task=4", 4],
    ["#SBATCH --cpus-per-task 4", 4],
    ["#SBATCH -c 4", 4],
    ["#SBATCH -c4", 4],
    ['#SBATCH --cpus-per-task="4"', 4],
    ["#SBATCH -n 4 -c 2", 8],
    ["#SBATCH --ntasks=3", 3],
    ["#SBATCH -N 2 --ntasks-per-node=4", 8],
    ["#SBATCH -N 2 --ntasks-per-node=4 --ntasks=5", 5],
    ["#SBATCH -c 2\n#SBATCH -c 6", 6],
  ])("reads cores from %j", (lines, cores) => {
    expect(read(lines).spec.requested.cores).toBe(cores);
  });

  it.each([
    ["#SBATCH --mem=4G", 4 * GiB],
    ["#SBATCH --mem 4096", 4 * GiB],
    ["#SBATCH --mem=4G -N 2", 8 * GiB],
    ["#SBATCH --mem-per-cpu=2G -n 2 -c 3", 12 * GiB],
    ["#SBATCH --mem-per-cpu=500M", 500 * MiB],
    ["#SBATCH --mem-per-gpu=16G --gpus=2", 32 * GiB],
    ["#SBATCH --mem=8G\n#SBATCH --mem-per-cpu=1G -c 4", 4 * GiB],
  ])("reads memory for the whole job from %j", (lines, bytes) => {
    expect(read(lines).spec.requested.memoryBytes).toBe(bytes);
  });

  it.each([
    ["#SBATCH --gres=gpu:2", 2, undefined],
    ["#SBATCH --gres=gpu:v100:2 -N 3", 6, "v100"],
    ["#SBATCH --gpus=4", 4, undefined],
    ["#SBATCH -G a100:4", 4, "a100"],
    ["#SBATCH --gpus-per-node=2 --nodes=2", 4, undefined],
    ["#SBATCH --gpus-per-task=1 --ntasks=8", 8, undefined],
    ["#SBATCH --gres=gpu:1\n#SBATCH --gres=shard:4", 1, undefined],
  ])("reads GPUs from %j", (lines, gpus, model) => {
    const { requested } = read(lines).spec;
    expect(requested.gpus).toBe(gpus);
    expect(requested.gpuModel).toBe(model);
  });

  it.each([
    ["#SBATCH --time=30", 1800],
    ["#SBATCH -t 2:00:00", 7200],
    ["#SBATCH -t2-12", 60 * 3600],
    ["#SBATCH --time=UNLIMITED", undefined],
  ])("reads the time limit from %j", (lines, seconds) => {
    expect(read(lines).spec.requested.walltimeSeconds).toBe(seconds);
  });

  it("reads array jobs, keeping only the shape since nothing is submitted yet", () => {
    expect(read("#SBATCH --array=0-99%10").spec.array).toEqual({ arrayJobId: "unsubmitted", taskCount: 100 });
    expect(read("#SBATCH -a 1,3,5").spec.array?.taskCount).toBe(3);
  });

  it("stops reading at the first command, like sbatch", () => {
    const { spec } = parseSbatch(
      "#!/bin/bash\n#SBATCH --mem=1G\n\n# note\necho start\n#SBATCH --mem=99G\n",
      ctx,
    );
    expect(spec.requested.memoryBytes).toBe(GiB);
  });

  it("ignores comments that are not directives, and comments after options", () => {
    const { spec } = parseSbatch(
      "#!/bin/bash\n# SBATCH --mem=99G\n##SBATCH --mem=98G\n #SBATCH --mem=97G\n#SBATCH --mem=2G # was 4G\n#SBATCH -c 2#3\nrun\n",
      ctx,
    );
    expect(spec.requested).toEqual({ memoryBytes: 2 * GiB, cores: 2 });
  });

  it("reads CRLF scripts", () => {
    const { spec } = parseSbatch("#!/bin/bash\r\n#SBATCH --mem=3G\r\n#SBATCH --time=10\r\nrun\r\n", ctx);
    expect(spec.requested).toEqual({ memoryBytes: 3 * GiB, walltimeSeconds: 600 });
  });

  it("warns about values sbatch would refuse instead of guessing", () => {
    const { spec, warnings } = read("#SBATCH --mem=4GB --time=soon -c x --mem-per-gpu=1G");
    expect(spec.requested).toEqual({});
    expect(warnings).toHaveLength(3);
    expect(warnings.join("\n")).toMatch(/--time=soon/);
  });

  it("names the job by its first real command, skipping set-up lines", () => {
    const { spec } = parseSbatch(
      "#!/bin/bash\n#SBATCH -c 1\nmodule load x\nsource env.sh\n. ./more.sh\nFOO=1\ncd /scratch\n./simulate --n 10  # run\n",
      ctx,
    );
    expect(spec.executable).toBe("./simulate --n 10");
  });
});
