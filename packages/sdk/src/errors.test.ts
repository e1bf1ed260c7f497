import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  HttpStatusError,
  httpStatusError,
  NotFoundError,
  PermissionError,
  RateLimitedError,
  ResponseValidationError,
  ServerError,
  sdkErrorCodes,
  TimeoutError,
} from "./errors.js";

const details = (status: number) => ({ status, rawBody: "", request: "GET /x" });

describe("the error catalogue", () => {
  it("gives every error a catalogued code, each documented in the README", () => {
    const errors = [
      new BadRequestError(details(400)),
      new AuthenticationError(details(401)),
      new PermissionError(details(403)),
      new NotFoundError(details(404)),
      new ConflictError(details(409)),
      new RateLimitedError(details(429)),
      new HttpStatusError(details(418)),
      new ServerError(details(500)),
      new ConnectionError("GET /x", new Error("refused")),
      new TimeoutError("GET /x", 10),
      new ResponseValidationError("GET /x", 200, "", [], "not JSON"),
    ];
    expect(errors.map((e) => e.code).sort()).toEqual(Object.keys(sdkErrorCodes).sort());
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    const documented = [...readme.matchAll(/^\|\s*`([A-Z_]+)`\s*\|\s*`(\w+)`\s*\|/gm)].map((m) => [
      m[1],
      m[2],
    ]);
    expect(documented.sort()).toEqual(errors.map((e) => [e.code, e.name]).sort());
  });

  it("maps statuses to classes", () => {
    expect(httpStatusError(details(422))).toBeInstanceOf(BadRequestError);
    expect(httpStatusError(details(503))).toBeInstanceOf(ServerError);
    expect(httpStatusError(details(451))).toBeInstanceOf(HttpStatusError);
    expect(httpStatusError(details(429)).name).toBe("RateLimitedError");
  });
});
