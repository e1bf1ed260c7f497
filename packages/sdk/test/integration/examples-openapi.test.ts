import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Diagnosis, JobRecord, Prediction } from "@jobsight/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { helpTexts } from "../../src/cli/help.js";
import { createClient, parseSubmission } from "../../src/index.js";
import { cliCalls, curlCalls, pythonCalls, readExampleSources } from "./e2e-example-requests.js";
import { endedJobHistory, neighbourSpecs } from "./e2e-job-history.js";
import { checkCall } from "./e2e-openapi-contract.js";
import { E2E_TOKENS, type RealServer, startRealServer } from "./e2e-real-server.js";
import { type RecordingProxy, startRecordingProxy } from "./e2e-recording-proxy.js";
import { type CliOnPath, jobsightOnPath, runProcess } from "./e2e-run-process.js";

const EXAMPLES = fileURLToPath(new URL("../../../../examples", import.meta.url));
const AIRFLOW = join(EXAMPLES, "airflow");
const RUN_DAG = join(AIRFLOW, "test/harness/run_dag.py");
const CLI_DAG = join(AIRFLOW, "dags/jobsight_sbatch_cli.py");
const OPERATOR_DAG = join(AIRFLOW, "dags/jobsight_predict_operator.py");
const sources = await readExampleSources(EXAMPLES, ["airflow", "argo", "ci-diagnose"]);
const GiB = 2 ** 30;
const OOM_JOB = "300001";

type DagTask = {
  taskId: string;
  operator: string;
  bash_command?: string;
  env?: Record<string, string>;
  spec?: JobRecord["spec"];
};

/** Fills Argo's `{{...}}` tags; an unknown tag is an error, so a template change cannot slip by. */
function renderArgo(text: string, vars: Record<string, string>): string {
  return text.replace(/\{\{\s*([\w.-]+)\s*\}\}/g, (_, name: string) => {
    if (!(name in vars)) throw new Error(`the test does not know the Argo variable ${name}`);
    return vars[name];
  });
}

describe("the requests written in the examples", () => {
  it("finds the Python client's calls, each an operation of the OpenAPI document", () => {
    const calls = sources.flatMap(pythonCalls);
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      const query = Object.fromEntries(call.queryNames.map((name) => [name, null]));
      const result = checkCall({ method: call.method, path: call.path, query, bodyUnknown: call.hasBody });
      expect(result.problems, `${call.example}/${call.file}:${call.line}`).toEqual([]);
    }
  });

  it("checks curl calls to Jobsight and names the others external", () => {
    const calls = sources.flatMap(curlCalls);
    for (const call of calls.filter((c) => c.target === "jobsight")) {
      expect(checkCall({ method: call.method, path: call.path, bodyUnknown: call.hasBody }).problems).toEqual(
        [],
      );
    }
    // The CI example posts its Markdown to GitHub, which is not Jobsight's API.
    expect(calls.filter((c) => c.target === "external").map((c) => `${c.method} ${c.path}`)).toContain(
      "POST /repos/{}/issues/{}/comments",
    );
  });

  it("runs only commands the jobsight CLI has", () => {
    const calls = sources.flatMap(cliCalls);
    expect(new Set(calls.map((c) => c.example))).toEqual(new Set(["airflow", "argo", "ci-diagnose"]));
    for (const call of calls) expect(Object.keys(helpTexts), call.text).toContain(call.command);
  });
});

describe("the examples against the real server", () => {
  let server: RealServer;
  let proxy: RecordingProxy;
  let cli: CliOnPath;
  let scratch: string;
  const ran = new Set<string>();
  let baseEnv: NodeJS.ProcessEnv;

  const dag = async (args: string[], token: string) => {
    const env = { ...baseEnv, JOBSIGHT_URL: proxy.url, JOBSIGHT_TOKEN: token };
    const result = await runProcess("python3", [RUN_DAG, ...args], { env });
    if (!result.stdout) throw new Error(`run_dag.py ${args.join(" ")} printed nothing: ${result.stderr}`);
    return { ...result, json: JSON.parse(result.stdout) };
  };
  /** The DAG's tasks; with `xcom`, their templated fields rendered as Airflow would. */
  const describeDag = async (file: string, xcom?: unknown) =>
    (await dag(["describe", file, ...(xcom ? ["--xcom", JSON.stringify(xcom)] : [])], "")).json
      .tasks as DagTask[];
  const answers = <T>(tag: string, operationId: string) =>
    proxy.calls
      .filter((c) => c.tag === tag && checkCall(c).operationId === operationId)
      .map((c) => c.response as T);

  beforeAll(async () => {
    server = await startRealServer({ prefix: "examples" });
    proxy = await startRecordingProxy(server.url);
    cli = await jobsightOnPath();
    scratch = await mkdtemp(join(tmpdir(), "jobsight-examples-"));
    baseEnv = {
      PATH: `${cli.bin}:${process.env.PATH}`,
      HOME: scratch,
      XDG_CONFIG_HOME: join(scratch, "config"),
      NO_COLOR: "1",
      PYTHONDONTWRITEBYTECODE: "1",
      LANG: "C.UTF-8",
    };
    // History the examples' own jobs can be predicted from: the sbatch script of the CLI DAG, the
    // operator DAG's spec, and the Argo step's pod.
    const script = await readFile(join(AIRFLOW, "jobs/train.sbatch"), "utf8");
    const sbatchSpec = parseSubmission(script, { cluster: "hpc1", user: "alice" }).spec;
    const operatorSpec = (await describeDag(OPERATOR_DAG)).find((t) => t.taskId === "predict")!.spec!;
    const podSpec = parseSubmission(argoPod(), { cluster: "k8s1", user: "alice", format: "kubernetes" }).spec;
    const hpc1 = endedJobHistory({ specs: [sbatchSpec, operatorSpec, ...neighbourSpecs()] });
    const oom: JobRecord = {
      ...hpc1[0],
      jobId: OOM_JOB,
      spec: { ...sbatchSpec, requested: { ...sbatchSpec.requested, memoryBytes: 8 * GiB } },
      outcome: { state: "OUT_OF_MEMORY", signal: 9 },
      peaks: { memoryBytes: 8 * GiB, runTimeSeconds: 1200 },
    };
    await createClient({ baseUrl: server.url, token: E2E_TOKENS.collector }).jobs.ingest([...hpc1, oom]);
    const k8s = endedJobHistory({ specs: [podSpec], jobsPerSpec: 70, firstJobId: 200_000 });
    await createClient({ baseUrl: server.url, token: E2E_TOKENS.platform }).jobs.ingest(k8s);
    await server.service!.refresh();
    expect((await server.service!.train()).accepted).toBe(true);
  });

  afterAll(async () => {
    await proxy?.close();
    await server?.close();
    await cli?.remove();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it("Airflow: JobsightPredictOperator returns the recommendation, once per task run", async () => {
    proxy.tag("airflow-operator");
    const first = await dag(["execute", OPERATOR_DAG, "predict"], E2E_TOKENS.alice);
    expect(first.code, first.stderr).toBe(0);
    const result = first.json.result;
    expect(result.recommended.memoryBytes).toBeLessThan(64 * GiB);
    expect(result.use.memoryBytes).toBe(result.recommended.memoryBytes);
    expect(result.sbatchArgs).toBe(
      `--mem=${Math.ceil(result.use.memoryBytes / 2 ** 20)}M --time=${result.sbatchArgs.match(/--time=(\S+)/)[1]}`,
    );
    // A retried task sends the same idempotency key and gets the recorded prediction back.
    const again = await dag(["execute", OPERATOR_DAG, "predict"], E2E_TOKENS.alice);
    expect(again.json.result.predictionId).toBe(result.predictionId);
    const bodies = proxy.calls
      .filter((c) => c.tag === "airflow-operator")
      .map((c) => c.body as { idempotencyKey: string });
    expect(bodies).toHaveLength(2);
    expect(bodies[0].idempotencyKey).toBe(bodies[1].idempotencyKey);
    ran.add("airflow:python");
  });

  it("Airflow: the operator surfaces the server's field errors", async () => {
    proxy.tag("airflow-operator-refused");
    const refused = await dag(["execute", OPERATOR_DAG, "predict"], E2E_TOKENS.bob);
    expect(refused.code).toBe(1);
    expect(refused.json.error).toMatchObject({ type: "JobsightApiError", status: 403 });
    expect(refused.json.error.fields.map((f: { path: string }) => f.path)).toEqual(["/spec/user"]);
  });

  it("Airflow: JobsightDiagnoseOperator reports an OOM kill", async () => {
    proxy.tag("airflow-operator-diagnose");
    const run = await dag(
      ["execute", OPERATOR_DAG, "diagnose", "--xcom", JSON.stringify({ submit: OOM_JOB })],
      E2E_TOKENS.alice,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.result.findings).toContainEqual(
      expect.objectContaining({ kind: "oom_kill", severity: "error" }),
    );
    expect(run.json.result.markdown).toMatch(new RegExp(`^# Diagnosis of job ${OOM_JOB} on hpc1`));
    expect(
      proxy.calls.filter((c) => c.tag === "airflow-operator-diagnose").map((c) => c.responseType),
    ).toEqual([expect.stringContaining("application/json"), expect.stringContaining("text/markdown")]);
  });

  it("Airflow: the BashOperator tasks right-size the script and diagnose the job", async () => {
    const tasks = await describeDag(CLI_DAG, { submit: OOM_JOB });
    const script = join(scratch, "train.sbatch");
    await copyFile(join(AIRFLOW, "jobs/train.sbatch"), script);
    const original = await readFile(script, "utf8");
    const results: Record<string, { code: number; stdout: string; stderr: string }> = {};
    for (const task of tasks.filter((t) => t.bash_command?.startsWith("jobsight "))) {
      proxy.tag(`airflow-cli-${task.taskId}`);
      const env = {
        ...baseEnv,
        ...task.env,
        JOB_SCRIPT: script,
        JOBSIGHT_URL: proxy.url,
        JOBSIGHT_TOKEN: E2E_TOKENS.alice,
      };
      results[task.taskId] = await runProcess("bash", ["-c", task.bash_command!], { env, cwd: scratch });
    }
    expect(Object.keys(results).sort()).toEqual(["diagnose", "right_size"]);
    expect(results.right_size.code, results.right_size.stderr).toBe(0);
    const edited = await readFile(script, "utf8");
    expect(await readFile(`${script}.bak`, "utf8")).toBe(original);
    const [prediction] = answers<Prediction>("airflow-cli-right_size", "createPrediction");
    const memory = prediction.resources.find((r) => r.resource === "memory");
    expect(memory?.status).toBe("ok");
    const changed = edited.split("\n").filter((line, i) => line !== original.split("\n")[i]);
    expect(changed.length).toBeGreaterThan(0);
    expect(changed.every((line) => /^#SBATCH --(mem|time|cpus-per-task)=/.test(line))).toBe(true);
    expect(edited).not.toContain("#SBATCH --mem=64G");
    // Exit code 1: the job it looked at was killed for memory.
    expect(results.diagnose.code, results.diagnose.stderr).toBe(1);
    expect(results.diagnose.stdout).toMatch(new RegExp(`^# Diagnosis of job ${OOM_JOB} on hpc1`));
    ran.add("airflow:predict").add("airflow:diagnose");
  });

  it("Argo: the predict step hands the recommendation to the training step", async () => {
    proxy.tag("argo");
    const dir = await mkdtemp(join(scratch, "argo-"));
    const { script, vars, env, template } = await argoPredictStep(dir);
    await writeFile(join(dir, "pod.yaml"), argoPod());
    const run = await runProcess("bash", [script], {
      env: { ...baseEnv, ...env, JOBSIGHT_URL: proxy.url },
      cwd: dir,
    });
    expect(run.code, run.stderr).toBe(0);
    const [prediction] = answers<Prediction>("argo", "createPrediction");
    const memory = prediction.resources.find((r) => r.resource === "memory");
    if (memory?.status !== "ok") throw new Error(`no memory recommendation: ${JSON.stringify(prediction)}`);
    const outputs = await argoOutputs(template, vars, dir);
    expect(outputs.memory).toBe(`${Math.ceil(memory.value / 2 ** 20)}Mi`);
    const cores = prediction.resources.find((r) => r.resource === "cores");
    expect(outputs.cpu).toBe(
      cores?.status === "ok" ? `${Math.ceil(cores.value * 1000)}m` : vars["workflow.parameters.cpu"],
    );
    // The training step's podSpecPatch, filled with those outputs, is JSON naming Argo's main container.
    const patch = JSON.parse(argoTrainPatch(outputs));
    expect(patch.containers[0]).toMatchObject({
      name: "main",
      resources: { requests: { memory: outputs.memory } },
    });
    ran.add("argo:predict");
  });

  it("Argo: without Jobsight the step succeeds and the requests stay as they were", async () => {
    const dir = await mkdtemp(join(scratch, "argo-down-"));
    const { script, vars, env, template } = await argoPredictStep(dir);
    await writeFile(join(dir, "pod.yaml"), argoPod());
    const run = await runProcess("bash", [script], {
      env: { ...baseEnv, ...env, JOBSIGHT_URL: "http://127.0.0.1:9" },
      cwd: dir,
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("Jobsight gave no prediction");
    expect(await argoOutputs(template, vars, dir)).toEqual({ memory: "64Gi", cpu: "16" });
  });

  it("CI: diagnose.sh posts the Markdown and fails on an error finding", async () => {
    proxy.tag("ci");
    const comments: { path: string; auth?: string; body: { body: string } }[] = [];
    const github = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      comments.push({
        path: req.url ?? "",
        auth: req.headers.authorization,
        body: JSON.parse(Buffer.concat(chunks).toString()),
      });
      res.writeHead(201, { "content-type": "application/json" }).end("{}");
    });
    await new Promise<void>((resolve) => github.listen(0, "127.0.0.1", resolve));
    const summary = join(scratch, "summary.md");
    const workflow = parseYaml(await readFile(join(EXAMPLES, "ci-diagnose/diagnose-failed-job.yml"), "utf8"));
    const step = workflow.jobs.diagnose.steps.find((s: { run?: string }) => s.run?.includes("diagnose.sh"));
    expect(Object.keys(step.env)).toEqual(
      expect.arrayContaining(["JOBSIGHT_URL", "JOBSIGHT_TOKEN", "JOB_ID", "JOBSIGHT_CLUSTER"]),
    );
    try {
      const run = await runProcess("bash", [join(EXAMPLES, "ci-diagnose/diagnose.sh")], {
        env: {
          ...baseEnv,
          JOBSIGHT_URL: proxy.url,
          JOBSIGHT_TOKEN: E2E_TOKENS.alice,
          JOBSIGHT_CLUSTER: "hpc1",
          JOB_ID: OOM_JOB,
          PR_NUMBER: "17",
          GITHUB_TOKEN: "gh-test-token",
          GITHUB_REPOSITORY: "site/jobs",
          GITHUB_API_URL: `http://127.0.0.1:${(github.address() as AddressInfo).port}`,
          GITHUB_STEP_SUMMARY: summary,
        },
      });
      expect(run.code, run.stderr).toBe(1);
      expect(run.stdout).toBe(await readFile(summary, "utf8"));
    } finally {
      github.close();
    }
    const markdown = await readFile(summary, "utf8");
    expect(markdown).toMatch(new RegExp(`^# Diagnosis of job ${OOM_JOB} on hpc1`));
    expect(comments).toEqual([
      { path: "/repos/site/jobs/issues/17/comments", auth: "Bearer gh-test-token", body: { body: markdown } },
    ]);
    const [diagnosis] = answers<Diagnosis>("ci", "getDiagnosis");
    expect(diagnosis.findings[0]).toMatchObject({ kind: "oom_kill", severity: "error" });
    ran.add("ci-diagnose:diagnose");
  });

  it("made only requests of the OpenAPI document, from every call site", () => {
    expect(proxy.calls.length).toBeGreaterThan(0);
    for (const call of proxy.calls) {
      expect(checkCall(call).problems, `${call.tag}: ${call.method} ${call.path}`).toEqual([]);
    }
    const operatorOps = new Set(
      proxy.calls.filter((c) => c.tag.startsWith("airflow-operator")).map((c) => checkCall(c).template),
    );
    for (const site of sources.flatMap(pythonCalls)) expect(operatorOps).toContain(checkCall(site).template);
    const cliSites = sources.flatMap(cliCalls).map((c) => `${c.example}:${c.command}`);
    for (const site of cliSites) expect(ran, `${site} was never run`).toContain(site);
    expect(ran).toContain("airflow:python");
  });
});

/** The Argo example's WorkflowTemplate. */
async function argoTemplate() {
  return parseYaml(await readFile(join(EXAMPLES, "argo/workflow-template.yaml"), "utf8"));
}

const argoYaml = await argoTemplate();
type ArgoTemplate = {
  name: string;
  inputs?: { artifacts?: { name: string; raw?: { data: string } }[] };
  outputs?: { parameters: { name: string; valueFrom: { default?: string } }[] };
  script?: { source: string; env: { name: string; value?: string }[] };
  podSpecPatch?: string;
};
const argoTemplates = argoYaml.spec.templates as ArgoTemplate[];
const argoParameters: Record<string, string> = Object.fromEntries(
  argoYaml.spec.arguments.parameters.map((p: { name: string; value: string }) => [
    `workflow.parameters.${p.name}`,
    p.value,
  ]),
);

/** The predict step's pod manifest (its raw input artifact) as Argo renders it. */
function argoPod(): string {
  const predict = argoTemplates.find((t) => t.name === "predict")!;
  return renderArgo(predict.inputs!.artifacts!.find((a) => a.name === "pod")!.raw!.data, {
    ...argoParameters,
    "workflow.namespace": "research",
  });
}

/** The predict step's script written to `dir`, rendered with paths inside `dir`, and its env. */
async function argoPredictStep(dir: string) {
  const template = argoTemplates.find((t) => t.name === "predict")!;
  const vars: Record<string, string> = {
    ...argoParameters,
    "workflow.namespace": "research",
    "inputs.artifacts.pod.path": join(dir, "pod.yaml"),
    ...Object.fromEntries(
      template.outputs!.parameters.map((p) => [`outputs.parameters.${p.name}.path`, join(dir, p.name)]),
    ),
  };
  const script = join(dir, "predict.sh");
  await writeFile(script, renderArgo(template.script!.source, vars));
  const env: Record<string, string> = {};
  for (const e of template.script!.env) env[e.name] = e.value !== undefined ? renderArgo(e.value, vars) : "";
  // The Secret the YAML names holds the workflow engine's token (scheduler role, cluster k8s1).
  env.JOBSIGHT_TOKEN = E2E_TOKENS.scheduler;
  return { script, vars, env, template };
}

/** The predict step's output parameters as Argo reads them: the file, or the default when missing. */
async function argoOutputs(template: ArgoTemplate, vars: Record<string, string>, dir: string) {
  const out: Record<string, string> = {};
  for (const p of template.outputs!.parameters) {
    out[p.name] = await readFile(join(dir, p.name), "utf8").catch(() =>
      renderArgo(p.valueFrom.default ?? "", vars),
    );
  }
  return out;
}

/** The training step's podSpecPatch with its input parameters filled in. */
function argoTrainPatch(inputs: Record<string, string>): string {
  const train = argoTemplates.find((t) => t.name === "train")!;
  return renderArgo(
    train.podSpecPatch!,
    Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`inputs.parameters.${k}`, v])),
  );
}
