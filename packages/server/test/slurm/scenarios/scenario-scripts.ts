import { existsSync } from "node:fs";

// Debian's own interpreter when present, so a pyenv shim does not add processes to the step.
const PYTHON = existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3";

/**
 * Python run as the batch step itself (`exec`), so the job's process is the one the kernel or the
 * GPU driver names. It writes its pid to `$SCENARIO_DIR/pid-$SLURM_JOB_ID` first: the test plays
 * the node's kernel and driver and needs to know which process they would see.
 */
export function python(body: string[]): string {
  return [
    "#!/bin/bash",
    `exec ${PYTHON} - <<'PY'`,
    "import os, sys, time",
    'here = os.environ["SCENARIO_DIR"]',
    'job = os.environ["SLURM_JOB_ID"]',
    'open(f"{here}/pid-{job}.tmp", "w").write(str(os.getpid()))',
    'os.rename(f"{here}/pid-{job}.tmp", f"{here}/pid-{job}")',
    ...body,
    "PY",
    "",
  ].join("\n");
}

/** Lines that hold `mb` MB resident (every page written) for `seconds`, then exit 0. */
export function holdMemory(mb: number, seconds: number): string[] {
  return [
    `held = [b"x" * (1024 * 1024) for _ in range(${mb})]`,
    `print("holding", len(held), "MB", flush=True)`,
    `time.sleep(${seconds})`,
    'print("done", flush=True)',
  ];
}

/** Lines that hold `startMb` MB for `holdSeconds`, then add `stepMb` MB every `everySeconds` up to `toMb`, then wait. */
export function growMemory(o: {
  startMb: number;
  holdSeconds: number;
  stepMb: number;
  everySeconds: number;
  toMb: number;
}): string[] {
  return [
    `held = [b"x" * (1024 * 1024) for _ in range(${o.startMb})]`,
    `time.sleep(${o.holdSeconds})`,
    `while len(held) < ${o.toMb}:`,
    `    held.extend(b"x" * (1024 * 1024) for _ in range(${o.stepMb}))`,
    `    print("holding", len(held), "MB", flush=True)`,
    `    time.sleep(${o.everySeconds})`,
    "time.sleep(600)",
  ];
}

/**
 * Lines of a GPU training loop (the GPU itself is the generated one): runs until the test, playing
 * the driver, drops `$SCENARIO_DIR/fault-$SLURM_JOB_ID`, then fails the way PyTorch does when a
 * CUDA call returns `error`, and exits 1.
 */
export function trainUntilFault(error: string): string[] {
  return [
    'print("training", flush=True)',
    'while not os.path.exists(f"{here}/fault-{job}"):',
    "    time.sleep(0.1)",
    'print("Traceback (most recent call last):", file=sys.stderr)',
    "print('  File \"train.py\", line 88, in <module>', file=sys.stderr)",
    'print("    loss.backward()", file=sys.stderr)',
    `print("RuntimeError: CUDA error: ${error}", file=sys.stderr)`,
    "sys.exit(1)",
  ];
}

/**
 * Lines of a data loader whose `workers` processes read 1 MiB shards of `$SCENARIO_DIR/dataset.bin`
 * for `seconds` with O_DIRECT (no page cache: every read waits on the disk, in state D), as a
 * loader on slow shared storage does; the main process waits for them.
 */
export function directReadLoader(workers: number, seconds: number): string[] {
  return [
    "import mmap",
    "def worker():",
    '    fd = os.open(f"{here}/dataset.bin", os.O_RDONLY | os.O_DIRECT)',
    "    buf = mmap.mmap(-1, 1 << 20)",
    "    shards = os.fstat(fd).st_size >> 20",
    `    end, i = time.time() + ${seconds}, 0`,
    "    while time.time() < end:",
    "        os.preadv(fd, [buf], ((i * 7919) % shards) << 20)",
    "        i += 1",
    "    os._exit(0)",
    `for _ in range(${workers}):`,
    "    if os.fork() == 0:",
    "        worker()",
    `for _ in range(${workers}):`,
    "    os.wait()",
    'print("epoch done", flush=True)',
  ];
}

/** Lines of a feature script that works for `seconds` and then stops on an uncaught KeyError. */
export function keyErrorAfter(seconds: number): string[] {
  return [
    `time.sleep(${seconds})`,
    'config = {"input": "/data/features.parquet"}',
    'print("loading checkpoint from", config["checkpoint_dir"], flush=True)',
  ];
}

/** A batch script that runs `program` as step 0 with `srun`, then carries on whatever became of it and exits 0. */
export function srunThenCarryOn(program: string[], afterSeconds: number): string {
  return [
    "#!/bin/bash",
    `srun --ntasks=1 ${PYTHON} - <<'PY'`,
    "import time",
    ...program,
    "PY",
    'echo "step ended with $?; carrying on without it"',
    `sleep ${afterSeconds}`,
    "exit 0",
    "",
  ].join("\n");
}
