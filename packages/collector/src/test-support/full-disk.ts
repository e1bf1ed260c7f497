import * as fsp from "node:fs/promises";
import type { SpoolFs } from "../spool/spool-fs.js";

const fail = (code: string, syscall: string) =>
  Object.assign(new Error(`${code}: injected failure, ${syscall}`), { code, syscall });

/**
 * A file system that fills up like a real disk, for the spool: writes go to the real files until
 * `spaceLeft` bytes are used; the write that crosses it is short (as `write(2)` is on a full disk),
 * the next one fails with ENOSPC (or `errorCode`, e.g. EDQUOT). Deleting or replacing a file gives
 * its size back; deletions can be made to fail too.
 *
 * @example
 * ```ts
 * const disk = new FullDisk();
 * const spool = await DiskSpool.open({ dir, fs: disk.fs });
 * disk.spaceLeft = 0; // the disk is full
 * ```
 */
export class FullDisk {
  /** Bytes that can still be written. */
  spaceLeft = Number.POSITIVE_INFINITY;
  /** The error of a write that finds no space. */
  errorCode = "ENOSPC";
  /** How many of the next deletions of files matching `unlinkMatching` fail (with EBUSY). */
  failUnlinks = 0;
  unlinkMatching = /./;
  /** Deletions that failed. */
  readonly failedUnlinks: string[] = [];

  readonly fs: SpoolFs = {
    ...fsp,
    open: (async (path: string, flags?: string, mode?: number) =>
      this.wrap(await fsp.open(path, flags, mode))) as SpoolFs["open"],
    unlink: async (path) => {
      if (this.failUnlinks > 0 && this.unlinkMatching.test(String(path))) {
        this.failUnlinks--;
        this.failedUnlinks.push(String(path));
        throw fail("EBUSY", "unlink");
      }
      const size = await this.sizeOf(path);
      await fsp.unlink(path);
      this.spaceLeft += size;
    },
    rename: async (from, to) => {
      const size = await this.sizeOf(to);
      await fsp.rename(from, to);
      this.spaceLeft += size;
    },
  };

  /** What deleting `path` gives back. */
  private sizeOf(path: Parameters<typeof fsp.stat>[0]): Promise<number> {
    return fsp.stat(path).then(
      (s) => s.size,
      () => 0,
    );
  }

  /** Take up to `want` bytes of the space left; throws when there is none. */
  private take(want: number, syscall: string): number {
    if (want === 0) return 0;
    if (this.spaceLeft <= 0) throw fail(this.errorCode, syscall);
    const got = Math.min(want, this.spaceLeft);
    this.spaceLeft -= got;
    return got;
  }

  private wrap(fh: fsp.FileHandle): fsp.FileHandle {
    const writev = async (buffers: Buffer[], position?: number) => {
      const whole = Buffer.concat(buffers);
      const n = this.take(whole.length, "writev");
      const { bytesWritten } = await fh.write(whole, 0, n, position);
      return { bytesWritten, buffers };
    };
    const writeFile = async (data: string | Buffer) => {
      const whole = Buffer.from(data);
      const n = this.take(whole.length, "write");
      await fh.write(whole, 0, n, 0);
      // fs.writeFile loops over short writes: the next one finds the disk full.
      if (n < whole.length) throw fail(this.errorCode, "write");
    };
    // An overwrite within the file's size takes no room, as on a real disk; only growth does.
    const write = async (buffer: Buffer, offset = 0, length = buffer.length - offset, position = 0) => {
      const { size } = await fh.stat();
      const grows = Math.max(0, position + length - Math.max(size, position));
      const n = length - grows + this.take(grows, "write");
      return fh.write(buffer, offset, n, position);
    };
    return new Proxy(fh, {
      get(target, prop) {
        if (prop === "write") return write;
        if (prop === "writev") return writev;
        if (prop === "writeFile") return writeFile;
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  }
}
