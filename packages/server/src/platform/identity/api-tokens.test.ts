import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ValidationError } from "../../errors.js";
import { hashApiToken } from "./api-token-hash.js";
import { type ApiTokenRole, ApiTokens, generateApiToken, InMemoryApiTokenStore } from "./api-tokens.js";

describe("generateApiToken", () => {
  it("makes distinct jst_ tokens of 256 random bits with their prefix and sha256", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const { token, prefix, tokenSha256 } = generateApiToken();
      expect(token).toMatch(/^jst_[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(token.slice(4), "base64url")).toHaveLength(32);
      expect(token.startsWith(prefix)).toBe(true);
      expect(prefix).toHaveLength(12);
      expect(tokenSha256).toBe(createHash("sha256").update(token).digest("hex"));
      expect(tokenSha256).toBe(hashApiToken(token));
      seen.add(token);
    }
    expect(seen.size).toBe(200);
  });
});

describe("ApiTokens", () => {
  it("issues a token shown once and stores only its hash, prefix, role and cluster", async () => {
    const store = new InMemoryApiTokenStore();
    const tokens = new ApiTokens(store, { now: () => new Date("2026-03-01T00:00:00Z") });
    const { token, record } = await tokens.issue({
      role: "collector",
      cluster: "hpc1",
      label: "node collectors",
    });
    expect(JSON.stringify(await store.list())).not.toContain(token);
    expect(JSON.stringify(await store.list())).not.toContain(token.slice(12));
    expect(record).toEqual({
      id: expect.any(String),
      prefix: token.slice(0, 12),
      tokenSha256: hashApiToken(token),
      role: "collector",
      cluster: "hpc1",
      label: "node collectors",
      createdAt: new Date("2026-03-01T00:00:00Z"),
    });
    await expect(store.findByHash(hashApiToken(token))).resolves.toEqual(record);
  });

  it("carries the scheduler's user", async () => {
    const tokens = new ApiTokens(new InMemoryApiTokenStore());
    const { record } = await tokens.issue({ role: "scheduler", cluster: "k8s-a", user: "svc-sched" });
    expect(record).toMatchObject({ role: "scheduler", cluster: "k8s-a", user: "svc-sched" });
  });

  it("revokes once, and lists the revocation", async () => {
    const tokens = new ApiTokens(new InMemoryApiTokenStore());
    const { record } = await tokens.issue({ role: "collector", cluster: "hpc1" });
    expect(await tokens.revoke(record.id)).toBe(true);
    expect(await tokens.revoke(record.id)).toBe(false);
    expect(await tokens.revoke("no-such-token")).toBe(false);
    expect((await tokens.list())[0].revokedAt).toBeInstanceOf(Date);
  });

  it("issues only cluster-bound collector and scheduler tokens", async () => {
    const tokens = new ApiTokens(new InMemoryApiTokenStore());
    await expect(tokens.issue({ role: "platform" as ApiTokenRole, cluster: "hpc1" })).rejects.toThrow(
      ValidationError,
    );
    await expect(tokens.issue({ role: "collector", cluster: "" })).rejects.toThrow(ValidationError);
    expect(await tokens.list()).toEqual([]);
  });

  it("refuses a cluster id clusters cannot be registered with, naming the rule", async () => {
    const tokens = new ApiTokens(new InMemoryApiTokenStore());
    for (const cluster of ["HPC1", "hpc 1", "-hpc1", "hpc1/../x", "x".repeat(64), "hpc1\u0000"]) {
      const refused = tokens.issue({ role: "collector", cluster });
      await expect(refused).rejects.toThrow(ValidationError);
      await expect(refused).rejects.toMatchObject({
        errors: [{ path: "/cluster", message: expect.stringMatching(/is not a cluster id: .*lower-case/) }],
      });
    }
    expect(await tokens.list()).toEqual([]);
  });

  it("with the cluster registry, issues tokens only for registered clusters", async () => {
    const registry = { list: async () => [{ id: "hpc1", name: "HPC 1", scheduler: "slurm" as const }] };
    const tokens = new ApiTokens(new InMemoryApiTokenStore(), { clusters: registry });
    await expect(tokens.issue({ role: "collector", cluster: "hpc2" })).rejects.toMatchObject({
      errors: [
        {
          path: "/cluster",
          message: expect.stringMatching(/hpc2 is not a registered cluster \(registered: hpc1\)/),
        },
      ],
    });
    await expect(tokens.issue({ role: "collector", cluster: "hpc1" })).resolves.toBeDefined();
    expect(await tokens.list()).toHaveLength(1);
  });
});
