import { it } from "vitest";
import { validators } from "@jobsight/schemas";
import { bearer, openIntelligenceFixture, storedSpecs, TOKENS, testApp, testService } from "./intelligence-fixture.js";

it("perf", async () => {
  const f = await openIntelligenceFixture("intel-perf", 5000);
  const s = testService(f, { mode: "live" });
  await s.start();
  await s.train({});
  const app = await testApp(f, s);
  const specs = await storedSpecs(f, 1000);
  const reqs = Array.from({ length: 10000 }, (_, i) => ({ spec: specs[i % specs.length] }));
  for (let k = 0; k < 2; k++) {
    let t0 = performance.now();
    await s.predictRaw(reqs);
    console.log("predictRaw", (performance.now() - t0).toFixed(0));
    t0 = performance.now();
    const out = await s.predict(reqs, "x");
    console.log("predict", (performance.now() - t0).toFixed(0));
    t0 = performance.now();
    const body = JSON.stringify({ predictions: out });
    console.log("stringify", (performance.now() - t0).toFixed(0), body.length);
    t0 = performance.now();
    validators.PredictionBatchRequest.validate({ requests: reqs });
    console.log("validate", (performance.now() - t0).toFixed(0));
    t0 = performance.now();
    await app.inject({ method: "POST", url: "/v1/predictions/batch", headers: bearer(TOKENS.platform), payload: { requests: reqs } });
    console.log("inject", (performance.now() - t0).toFixed(0));
    t0 = performance.now();
    await s.flush();
    console.log("flush", (performance.now() - t0).toFixed(0));
  }
  await app.close();
  await s.stop();
  await f.dispose();
}, 600_000);
