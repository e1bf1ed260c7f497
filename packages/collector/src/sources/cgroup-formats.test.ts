import { describe, expect, it } from "vitest";
import { memoryStatV2 } from "../test-support/cgroup-tree.js";
import {
  flatKey,
  flatKeyedValue,
  flatKeyedValueIn,
  parseCpuMax,
  parseFlatKeyed,
  parseIoStat,
  parseMaxValue,
  parsePressure,
  pressureAvg10,
} from "./cgroup-formats.js";

describe("cgroup file formats", () => {
  it("sums io.stat over devices (kernel documentation example)", () => {
    const text =
      "8:16 rbytes=1459200 wbytes=314773504 rios=192 wios=353 dbytes=0 dios=0\n" +
      "8:0 rbytes=90430464 wbytes=299008000 rios=8950 wios=1252 dbytes=50331648 dios=3021\n";
    expect(parseIoStat(text)).toEqual({ rbytes: 91_889_664, wbytes: 613_781_504, rios: 9142, wios: 1605 });
    expect(parseIoStat("")).toEqual({ rbytes: 0, wbytes: 0, rios: 0, wios: 0 });
  });

  it("parses both PSI lines", () => {
    const p = parsePressure(
      "some avg10=12.34 avg60=5.00 avg300=1.25 total=987654\nfull avg10=3.50 avg60=0.00 avg300=0.00 total=1234\n",
    );
    expect(p.some).toEqual({ avg10: 12.34, avg60: 5, avg300: 1.25, totalUsec: 987654 });
    expect(p.full?.avg10).toBe(3.5);
  });

  it("reads max as unlimited", () => {
    expect(parseMaxValue("max\n")).toBeNull();
    expect(parseMaxValue("2147483648\n")).toBe(2147483648);
    expect(parseCpuMax("max 100000\n")).toBeNull();
    expect(parseCpuMax("150000 100000\n")).toBe(1.5);
  });

  it("parses flat-keyed files whatever the order of their keys", () => {
    const m = parseFlatKeyed("usage_usec 100\nuser_usec 60\nsystem_usec 40\ncore_sched.force_idle_usec 0\n");
    expect(m.get("usage_usec")).toBe(100);
    expect(m.get("core_sched.force_idle_usec")).toBe(0);
    expect(m.size).toBe(4);
  });

  it("looks single keys up without confusing prefixes", () => {
    const stat = memoryStatV2(1000, 2000, 30);
    expect(flatKeyedValue(stat, "anon")).toBe(1000);
    expect(flatKeyedValue(stat, "file")).toBe(2000);
    expect(flatKeyedValue(stat, "shmem")).toBe(30);
    expect(flatKeyedValue(stat, "anon_thp")).toBe(0);
    expect(flatKeyedValue(stat, "nope")).toBeUndefined();
    const bytes = Buffer.from(stat, "latin1");
    for (const key of ["anon", "file", "shmem", "anon_thp", "nope"]) {
      expect(flatKeyedValueIn(bytes, flatKey(key))).toBe(flatKeyedValue(stat, key));
    }
    expect(flatKeyedValueIn(Buffer.from("anon_x 1\nanon 7"), flatKey("anon"))).toBe(7);
    expect(flatKeyedValueIn(Buffer.from("anon \n"), flatKey("anon"))).toBeUndefined();
    const events = "low 0\nhigh 0\nmax 3\noom 2\noom_kill 1\noom_group_kill 0\n";
    expect([flatKeyedValue(events, "oom"), flatKeyedValue(events, "oom_kill")]).toEqual([2, 1]);
    const psi =
      "some avg10=12.34 avg60=5.00 avg300=1.25 total=987654\nfull avg10=3.50 avg60=0.00 avg300=0.00 total=1234\n";
    expect([pressureAvg10(psi, "some"), pressureAvg10(psi, "full")]).toEqual([12.34, 3.5]);
    expect(pressureAvg10("some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", "full")).toBeUndefined();
  });
});
