import { describe, expect, it } from "vitest";
import { PostgresSupervisor, type SupervisedServer } from "./postgres-supervisor.js";

/** A server that dies on demand and fails its next `failures` starts. */
class FakeServer implements SupervisedServer {
  pid: number | undefined;
  starts = 0;
  failures = 0;
  #exit: (() => void) | undefined;
  #exited: Promise<void> | undefined;

  constructor() {
    this.#run();
  }

  exited(): Promise<void> | undefined {
    return this.pid === undefined ? undefined : this.#exited;
  }

  async start(): Promise<void> {
    this.starts++;
    if (this.failures-- > 0) throw new Error("pre-existing shared memory block is still in use\ndetails");
    this.#run();
  }

  die(): void {
    this.pid = undefined;
    this.#exit?.();
  }

  #run(): void {
    this.pid = 1000 + this.starts;
    this.#exited = new Promise((resolve) => {
      this.#exit = resolve;
    });
  }
}

async function until(predicate: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("PostgresSupervisor", () => {
  it("restarts a server that dies and logs the death and the restart", async () => {
    const server = new FakeServer();
    const logs: string[] = [];
    const supervisor = new PostgresSupervisor({ server, initialDelayMs: 10, log: (m) => logs.push(m) });
    supervisor.start();
    server.die();
    await until(() => supervisor.restarts === 1);
    expect(server.pid).toBe(1001);
    expect(logs).toEqual([
      "embedded PostgreSQL (pid 1000) exited unexpectedly; restarting in 10 ms",
      "embedded PostgreSQL restarted (pid 1001)",
    ]);
    server.die();
    await until(() => supervisor.restarts === 2);
    await supervisor.stop();
  });

  it("doubles the wait after each failed restart up to the maximum", async () => {
    const server = new FakeServer();
    server.failures = 3;
    const logs: string[] = [];
    const supervisor = new PostgresSupervisor({
      server,
      initialDelayMs: 5,
      maxDelayMs: 20,
      log: (m) => logs.push(m),
    });
    supervisor.start();
    server.die();
    await until(() => supervisor.restarts === 1);
    expect(server.starts).toBe(4);
    expect(logs.filter((m) => m.includes("failed"))).toEqual([
      "restarting embedded PostgreSQL failed: pre-existing shared memory block is still in use; next attempt in 10 ms",
      "restarting embedded PostgreSQL failed: pre-existing shared memory block is still in use; next attempt in 20 ms",
      "restarting embedded PostgreSQL failed: pre-existing shared memory block is still in use; next attempt in 20 ms",
    ]);
    await supervisor.stop();
  });

  it("starts the wait over after a run that lasted a healthy while", async () => {
    const server = new FakeServer();
    let clock = 0;
    const logs: string[] = [];
    const supervisor = new PostgresSupervisor({
      server,
      initialDelayMs: 5,
      healthyAfterMs: 60_000,
      now: () => clock,
      log: (m) => logs.push(m),
    });
    supervisor.start();
    server.die();
    await until(() => supervisor.restarts === 1);
    server.die(); // at once: the back-off goes on
    await until(() => supervisor.restarts === 2);
    await sleep(5); // let the supervisor take the time the new run started
    clock += 60_000;
    server.die(); // after a healthy minute: back to the first wait
    await until(() => supervisor.restarts === 3);
    expect(logs.filter((m) => m.includes("exited")).map((m) => m.replace(/.*restarting in /, ""))).toEqual([
      "5 ms",
      "10 ms",
      "5 ms",
    ]);
    await supervisor.stop();
  });

  it("never restarts after a deliberate stop, even one during the wait", async () => {
    const server = new FakeServer();
    const supervisor = new PostgresSupervisor({ server, initialDelayMs: 30 });
    supervisor.start();
    server.die();
    await sleep(5);
    await supervisor.stop();
    await sleep(60);
    expect(server.starts).toBe(0);

    const other = new FakeServer();
    const stopped = new PostgresSupervisor({ server: other, initialDelayMs: 1 });
    stopped.start();
    await stopped.stop();
    other.die();
    await sleep(20);
    expect(other.starts).toBe(0);
  });

  it("keeps supervising when the logger throws", async () => {
    const server = new FakeServer();
    server.failures = 1;
    const supervisor = new PostgresSupervisor({
      server,
      initialDelayMs: 1,
      log: () => {
        throw new Error("log sink gone");
      },
    });
    supervisor.start();
    server.die();
    await until(() => supervisor.restarts === 1);
    await expect(supervisor.stop()).resolves.toBeUndefined();
  });
});
