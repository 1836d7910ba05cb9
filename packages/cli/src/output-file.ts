/**
 * A file the CLI writes (`export --output`). It is written under a temporary name in the
 * destination's folder and renamed into place only when complete, so a failed or interrupted
 * write never leaves half a file and never replaces a good one. It is created 0600: transcripts
 * are private. A destination that exists and is not a regular file (a FIFO, /dev/null, a
 * terminal) cannot be renamed over, and has no contents to protect: it is written directly.
 */
import { Buffer } from "node:buffer";
import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import * as nodePath from "node:path";
import type { ResolvedPath } from "./paths.js";

export class OutputFile {
  readonly #fd: number;
  readonly #destination: string;
  /** Where the bytes go until `commit`; undefined when writing the destination directly. */
  readonly #temporary: string | undefined;
  /** Bytes written to the temporary file: where the next write goes. */
  #size = 0;
  #open = true;

  private constructor(fd: number, destination: string, temporary: string | undefined) {
    this.#fd = fd;
    this.#destination = destination;
    this.#temporary = temporary;
  }

  /** Open for writing; throws the file system's error (nothing is left behind then). */
  static create(target: ResolvedPath): OutputFile {
    if (target.stat && !target.stat.isFile()) {
      return new OutputFile(fs.openSync(target.real, "w"), target.real, undefined);
    }
    const folder = nodePath.dirname(target.real);
    const temporary = nodePath.join(
      folder,
      `.${nodePath.basename(target.real)}.${randomUUID().slice(0, 8)}.tmp`,
    );
    // "wx": a new file or nothing — never someone else's file under the temporary name.
    return new OutputFile(fs.openSync(temporary, "wx", 0o600), target.real, temporary);
  }

  /** Where the file will be once committed. */
  get path(): string {
    return this.#destination;
  }

  write(text: string): void {
    const bytes = Buffer.from(text, "utf8");
    // The temporary file is written at explicit positions, so `rewind` can cut it back; a
    // destination written directly (a FIFO, a terminal) has no positions.
    for (let at = 0; at < bytes.length; ) {
      at += this.#temporary
        ? fs.writeSync(this.#fd, bytes, at, bytes.length - at, this.#size + at)
        : fs.writeSync(this.#fd, bytes, at, bytes.length - at);
    }
    this.#size += bytes.length;
  }

  /** Where `rewind` can return to: the bytes written so far. Undefined when writing the
   * destination directly (what was written there cannot be taken back). */
  mark(): number | undefined {
    return this.#temporary ? this.#size : undefined;
  }

  /** Cut the file back to `mark`: what was written after it is gone. */
  rewind(mark: number): void {
    fs.ftruncateSync(this.#fd, mark);
    this.#size = mark;
  }

  /** Make the file durable and put it in place. */
  commit(): void {
    if (this.#temporary) fs.fsyncSync(this.#fd);
    this.#close();
    // On the same folder, rename replaces the destination atomically: readers see the old file
    // or the new one, never a mix.
    if (this.#temporary) fs.renameSync(this.#temporary, this.#destination);
  }

  /** Drop what was written; the destination stays as it was. Never throws. */
  discard(): void {
    try {
      this.#close();
    } catch {
      // The descriptor is gone either way.
    }
    try {
      if (this.#temporary) fs.rmSync(this.#temporary, { force: true });
    } catch {
      // Left behind under its hidden temporary name; the error being reported matters more.
    }
  }

  #close(): void {
    if (!this.#open) return;
    this.#open = false;
    fs.closeSync(this.#fd);
  }
}
