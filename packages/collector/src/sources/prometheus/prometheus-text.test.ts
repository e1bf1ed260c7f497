import { describe, expect, it } from "vitest";
import { parsePrometheusText } from "./prometheus-text.js";

describe("parsePrometheusText", () => {
  it("reads samples with labels, skips comments and ignores timestamps", () => {
    const text = [
      "# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).",
      "# TYPE DCGM_FI_DEV_GPU_UTIL gauge",
      'DCGM_FI_DEV_GPU_UTIL{gpu="0", UUID="GPU-604a"} 87',
      "node_load1 0.52 1712345678000",
      'x{a="q\\"uote\\\\d\\nline"} -1.5e3',
      "y{} +Inf",
    ].join("\n");
    expect(parsePrometheusText(text)).toEqual({
      samples: [
        { name: "DCGM_FI_DEV_GPU_UTIL", labels: { gpu: "0", UUID: "GPU-604a" }, value: 87 },
        { name: "node_load1", labels: {}, value: 0.52 },
        { name: "x", labels: { a: 'q"uote\\d\nline' }, value: -1500 },
        { name: "y", labels: {}, value: Number.POSITIVE_INFINITY },
      ],
      problems: [],
    });
  });

  it("names each bad line and still reads the good ones", () => {
    const text = ['ok{gpu="1"} 3', 'bad{gpu="1} 3', "nov{} twelve", '{gpu="0"} 1', 'c{gpu="0" x="1"} 2'].join(
      "\n",
    );
    const { samples, problems } = parsePrometheusText(text);
    expect(samples).toEqual([{ name: "ok", labels: { gpu: "1" }, value: 3 }]);
    expect(problems.map((p) => p.line)).toEqual([2, 3, 4, 5]);
    expect(problems[1].reason).toBe('bad value "twelve"');
  });
});
