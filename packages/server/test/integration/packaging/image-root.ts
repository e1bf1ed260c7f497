import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * A temporary folder standing in for the image's filesystem: the image's own absolute paths
 * (`/opt/jobsight`, `/var/lib/jobsight`, `/packs`) live under it, and the build stage's
 * working folder is the repository.
 */
export class ImageRoot {
  readonly #mapped: [string, string][];

  constructor(
    readonly root: string,
    imagePaths: string[],
    buildDir: { image: string; host: string },
  ) {
    // Longest first, so /opt/jobsight/x never matches a shorter prefix.
    const mapped: [string, string][] = imagePaths.map((p) => [p, join(root, p)]);
    mapped.push([buildDir.image, buildDir.host]);
    this.#mapped = mapped.sort((a, b) => b[0].length - a[0].length);
  }

  /** The host path of an absolute image path (unchanged when it is not one of the image's own). */
  path(imagePath: string): string {
    for (const [image, host] of this.#mapped) {
      if (imagePath === image || imagePath.startsWith(`${image}/`))
        return host + imagePath.slice(image.length);
    }
    return imagePath;
  }

  /** A shell command of the Dockerfile with every image path in it moved under the root; throws if one is left. */
  command(line: string): string {
    const mapped = line.replace(
      /(^|[\s"'=:])(\/[\w.*/-]*)/g,
      (_, before: string, path: string) => before + this.path(path),
    );
    // A path left as it was would make a step write to the real /packs or /opt.
    for (const [image, host] of this.#mapped) {
      const left = new RegExp(`(^|[\\s"'=:])${image.replace(/\./g, "\\.")}(?![\\w.-])`);
      if (image !== host && left.test(mapped)) throw new Error(`${image} left unmapped in: ${mapped}`);
    }
    return mapped;
  }

  /** A `PATH`-like value: each entry mapped, `$PATH` replaced by this process's PATH. */
  searchPath(value: string): string {
    return value
      .split(":")
      .map((entry) => (/^\$(PATH|\{PATH\})$/.test(entry) ? (process.env.PATH ?? "") : this.path(entry)))
      .join(":");
  }

  /** Runs a `RUN` line of the Dockerfile (shell form) in `imageDir`, with the stage's environment. */
  async runStep(line: string, imageDir: string, env: Record<string, string>, timeoutMs: number) {
    const command = this.command(line.replace(/^(--\S+\s+)+/, ""));
    return run("sh", ["-c", command], {
      cwd: this.path(imageDir),
      env: { ...process.env, ...env },
      timeout: timeoutMs,
      maxBuffer: 64 * 1024 * 1024,
    });
  }
}
