import { describe, expect, it } from "vitest";
import { splitLines } from "../text-lines.js";
import { editSbatch } from "./edit-sbatch.js";
import { parseSbatch } from "./parse-sbatch.js";

const GiB = 2 ** 30;
const MiB = 2 ** 20;
const ctx = { cluster: "hpc1", user: "alice" };
const requested = (text: string) => parseSbatch(text, ctx).spec.requested;

describe("editSbatch", () => {
  it("replaces values in place, keeping quotes, other options and trailing comments", () => {
    const text =
      '#!/bin/bash\n#SBATCH -J x --mem="64G" -c 8  # sized for v1\n#SBATCH --time 2-00:00:00\nrun\n';
    const { text: out, changes } = editSbatch(text, { memory: 24 * GiB, cores: 4, walltime: 36 * 3600 });
    expect(out).toBe(
      '#!/bin/bash\n#SBATCH -J x --mem="24G" -c 4  # sized for v1\n#SBATCH --time 1-12:00:00\nrun\n',
    );
    expect(changes).toEqual([
      {
        resource: "cores",
        before: '#SBATCH -J x --mem="64G" -c 8  # sized for v1',
        after: '#SBATCH -J x --mem="24G" -c 4  # sized for v1',
        line: 2,
      },
      {
        resource: "memory",
        before: '#SBATCH -J x --mem="64G" -c 8  # sized for v1',
        after: '#SBATCH -J x --mem="24G" -c 4  # sized for v1',
        line: 2,
      },
      {
        resource: "walltime",
        before: "#SBATCH --time 2-00:00:00",
        after: "#SBATCH --time 1-12:00:00",
        line: 3,
      },
    ]);
  });

  it("adds missing options after the last #SBATCH line with the file's CRLF", () => {
    const text = "#!/bin/bash\r\n#SBATCH -J x\r\n\r\n# job\r\nrun\r\n";
    const { text: out, changes } = editSbatch(text, { memory: 1536 * MiB, walltime: 3600, gpus: 2 });
    expect(out).toBe(
      "#!/bin/bash\r\n#SBATCH -J x\r\n#SBATCH --gres=gpu:2\r\n#SBATCH --mem=1536M\r\n#SBATCH --time=01:00:00\r\n\r\n# job\r\nrun\r\n",
    );
    expect(changes.map((c) => [c.resource, c.line, c.before])).toEqual([
      ["gpus", 3, undefined],
      ["memory", 4, undefined],
      ["walltime", 5, undefined],
    ]);
  });

  it("adds directives after the shebang, or at the top, when the script has none", () => {
    expect(editSbatch("#!/bin/sh\nrun\n", { cores: 2 }).text).toBe(
      "#!/bin/sh\n#SBATCH --cpus-per-task=2\nrun\n",
    );
    expect(editSbatch("run\n", { cores: 2 }).text).toBe("#SBATCH --cpus-per-task=2\nrun\n");
    expect(editSbatch("", { cores: 2 }).text).toBe("#SBATCH --cpus-per-task=2\n");
  });

  it("keeps a missing final newline missing", () => {
    const out = editSbatch("#!/bin/bash\n#SBATCH --mem=4G", { memory: 2 * GiB, walltime: 600 }).text;
    expect(out).toBe("#!/bin/bash\n#SBATCH --mem=2G\n#SBATCH --time=00:10:00");
  });

  it("writes memory per node, per CPU or per GPU, as the script expresses it", () => {
    expect(editSbatch("#SBATCH --mem=64G -N 2\n", { memory: 48 * GiB }).text).toBe(
      "#SBATCH --mem=24G -N 2\n",
    );
    expect(editSbatch("#SBATCH --mem-per-cpu=4G -n 2 -c 4\n", { memory: 12 * GiB }).text).toBe(
      "#SBATCH --mem-per-cpu=1536M -n 2 -c 4\n",
    );
    expect(editSbatch("#SBATCH --mem-per-gpu=40G --gpus=2\n", { memory: 20 * GiB }).text).toBe(
      "#SBATCH --mem-per-gpu=10G --gpus=2\n",
    );
  });

  it("never edits a per-CPU amount without a memory target, and says what the job then gets", () => {
    const text = "#SBATCH --mem-per-cpu=2G -c 8\n";
    const { text: out, skipped } = editSbatch(text, { cores: 2 });
    expect(out).toBe("#SBATCH --mem-per-cpu=2G -c 2\n");
    expect(requested(out)).toEqual({ cores: 2, memoryBytes: 4 * GiB });
    expect(skipped).toEqual([
      {
        resource: "memory",
        reason: "--mem-per-cpu=2G kept as written: with 2 CPUs the job gets 4G in all, not 16G",
      },
    ]);
    // With a target the per-CPU amount carries it over the new count.
    expect(editSbatch(text, { cores: 2, memory: 16 * GiB }).text).toBe("#SBATCH --mem-per-cpu=8G -c 2\n");
  });

  it("never edits GPUs per task without a GPU target when the task count moves", () => {
    const { text: out, skipped } = editSbatch("#SBATCH -n 4 --gpus-per-task=1 --mem-per-gpu=10G\n", {
      cores: 2,
    });
    expect(out).toBe("#SBATCH -n 2 --gpus-per-task=1 --mem-per-gpu=10G\n");
    expect(skipped.map((k) => k.reason)).toEqual([
      "--gpus-per-task=1 kept as written: with 2 tasks the job gets 2 in all, not 4",
      "--mem-per-gpu=10G kept as written: with 2 GPUs the job gets 20G in all, not 40G",
    ]);
  });

  it("edits cores in the option the script uses", () => {
    expect(editSbatch("#SBATCH -c8\n", { cores: 3 }).text).toBe("#SBATCH -c3\n");
    expect(editSbatch("#SBATCH --ntasks=16\n", { cores: 6 }).text).toBe("#SBATCH --ntasks=6\n");
    expect(editSbatch("#SBATCH -n 4 -c 8\n", { cores: 8 }).text).toBe("#SBATCH -n 4 -c 2\n");
    expect(editSbatch("#SBATCH -N 2 --ntasks-per-node=8\n", { cores: 4 }).text).toBe(
      "#SBATCH -N 2 --ntasks-per-node=2\n",
    );
  });

  it("edits GPUs keeping the type and the other generic resources", () => {
    expect(editSbatch("#SBATCH --gres=shard:2,gpu:a100:4\n", { gpus: 1 }).text).toBe(
      "#SBATCH --gres=shard:2,gpu:a100:1\n",
    );
    expect(editSbatch("#SBATCH --gres=gpu\n", { gpus: 2 }).text).toBe("#SBATCH --gres=gpu:2\n");
    expect(editSbatch("#SBATCH -G a100:4\n", { gpus: 2 }).text).toBe("#SBATCH -G a100:2\n");
    expect(editSbatch("#SBATCH --gpus-per-node=4 -N 2\n", { gpus: 4 }).text).toBe(
      "#SBATCH --gpus-per-node=2 -N 2\n",
    );
    expect(editSbatch("#SBATCH --gpus-per-task=2 -n 4\n", { gpus: 4 }).text).toBe(
      "#SBATCH --gpus-per-task=1 -n 4\n",
    );
    expect(editSbatch("#SBATCH -c 2\n", { gpus: 0 }).text).toBe("#SBATCH -c 2\n");
  });

  it("refuses to guess which of several GPU types to change", () => {
    const { text, skipped } = editSbatch("#SBATCH --gres=gpu:a100:1,gpu:v100:1\n", { gpus: 1 });
    expect(text).toBe("#SBATCH --gres=gpu:a100:1,gpu:v100:1\n");
    expect(skipped[0].resource).toBe("gpus");
  });

  it("changes nothing when the value is already what the scheduler would take", () => {
    const text = "#SBATCH --mem=65536M --time=120 -c 4\n";
    const result = editSbatch(text, { memory: 64 * GiB, walltime: 7200, cores: 4 });
    expect(result.text).toBe(text);
    expect(result.changes).toEqual([]);
  });

  it("cannot write GPU memory and says so", () => {
    const result = editSbatch("#SBATCH -c 1\n", { gpuMemory: 40 * GiB });
    expect(result.text).toBe("#SBATCH -c 1\n");
    expect(result.skipped).toEqual([{ resource: "gpuMemory", reason: expect.stringContaining("no option") }]);
  });

  it("edits the option in force when it is given twice, and nothing after the first command", () => {
    const text = "#SBATCH --mem=1G\n#SBATCH --mem=2G\nrun\n#SBATCH --mem=3G\n";
    expect(editSbatch(text, { memory: 8 * GiB }).text).toBe(
      "#SBATCH --mem=1G\n#SBATCH --mem=8G\nrun\n#SBATCH --mem=3G\n",
    );
    expect(splitLines(editSbatch(text, { walltime: 60 }).text)[2].text).toBe("#SBATCH --time=00:01:00");
  });
});
