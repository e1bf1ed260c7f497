import { describe, expect, it } from "vitest";
import { parseQuantity } from "./quantity.js";

describe("parseQuantity", () => {
  it.each([
    ["128974848", 128974848],
    ["129e6", 129e6],
    ["129M", 129e6],
    ["123Mi", 123 * 2 ** 20],
    ["1Gi", 2 ** 30],
    ["16Gi", 16 * 2 ** 30],
    ["1.5Gi", 1.5 * 2 ** 30],
    ["0.5Gi", 2 ** 29],
    ["1G", 1e9],
    ["2G", 2e9],
    ["1k", 1000],
    ["1Ki", 1024],
    ["2Ti", 2 * 2 ** 40],
    ["500m", 0.5],
    ["100m", 0.1],
    ["1.5", 1.5],
    [".5", 0.5],
    [" 2 ", 2],
    [4, 4],
  ])("reads %j", (text, value) => {
    expect(parseQuantity(text)).toBeCloseTo(value, 9);
  });

  it("reads exact values where the arithmetic is exact", () => {
    expect(parseQuantity("123Mi")).toBe(123 * 2 ** 20);
    expect(parseQuantity("129e6")).toBe(129e6);
    expect(parseQuantity("500m")).toBe(0.5);
  });

  it("reads the number nearest the decimal value, not a product of rounded factors", () => {
    expect(parseQuantity("9m")).toBe(0.009);
    expect(parseQuantity("32380m")).toBe(32.38);
    expect(parseQuantity("16.1k")).toBe(16100);
    expect(parseQuantity("0.1k")).toBe(100);
    expect(parseQuantity("1.5e3")).toBe(1500);
    expect(parseQuantity("1E3")).toBe(1000);
    expect(parseQuantity("1.5Gi")).toBe(1.5 * 2 ** 30);
  });

  it("reads zero with either sign as zero", () => {
    expect(Object.is(parseQuantity("-0"), 0)).toBe(true);
    expect(Object.is(parseQuantity(-0), 0)).toBe(true);
    expect(parseQuantity("+2Gi")).toBe(2 * 2 ** 30);
  });

  it.each([
    "",
    "1GB",
    "1gi",
    "abc",
    "{{inputs.parameters.mem}}",
    "1 Gi",
    "-1",
    "-1Gi",
    "1e400",
    null,
    undefined,
    {},
    Number.NaN,
    Number.POSITIVE_INFINITY,
    -4,
  ])("refuses %j", (bad) => {
    expect(parseQuantity(bad)).toBeUndefined();
  });
});
