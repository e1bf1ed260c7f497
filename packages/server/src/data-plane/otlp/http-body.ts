import { promisify } from "node:util";
import { gunzip, inflate } from "node:zlib";
import { JobsightError, MalformedBodyError, PayloadTooLargeError } from "../../errors.js";

const gunzipAsync = promisify(gunzip);
const inflateAsync = promisify(inflate);

/**
 * The bytes of an OTLP/HTTP body after its `Content-Encoding` (gzip, deflate or identity),
 * never more than `maxBytes` once inflated: a small compressed body cannot blow up into an
 * unbounded buffer (the OTLP specification asks for the limit after decompression).
 *
 * @throws {PayloadTooLargeError} when the inflated body would exceed `maxBytes`;
 *   {@link MalformedBodyError} for corrupt or truncated compressed data; `UNSUPPORTED_MEDIA_TYPE`
 *   for another encoding.
 * @example
 * ```ts
 * const bytes = await inflateOtlpBody(body, request.headers["content-encoding"], 20 * 1024 * 1024);
 * ```
 */
export async function inflateOtlpBody(
  body: Buffer,
  contentEncoding: string | undefined,
  maxBytes: number,
): Promise<Buffer> {
  const encoding = (contentEncoding ?? "identity").trim().toLowerCase();
  if (encoding === "identity" || encoding === "") return body;
  const inflater =
    encoding === "gzip" || encoding === "x-gzip"
      ? gunzipAsync
      : encoding === "deflate"
        ? inflateAsync
        : undefined;
  if (!inflater) {
    throw new JobsightError(
      "UNSUPPORTED_MEDIA_TYPE",
      `Content-Encoding ${JSON.stringify(encoding.slice(0, 40))} is not supported; use gzip, deflate or none`,
    );
  }
  try {
    return await inflater(body, { maxOutputLength: maxBytes });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE")
      throw new PayloadTooLargeError(maxBytes);
    throw new MalformedBodyError(
      `The ${encoding} body is corrupt or truncated: ${(error as Error).message}`,
      error,
    );
  }
}
