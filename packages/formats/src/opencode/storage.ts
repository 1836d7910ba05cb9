/**
 * opencode's older JSON storage read with `node:fs`, files only read:
 * `storage/session/<project>/<session>.json`, `storage/message/<session>/<message>.json`,
 * `storage/part/<message>/<part>.json`. Ids come from the file names (as opencode's own
 * migration takes them). A session's mark is the names, sizes and modification times of its
 * files, from stats alone; its records are read only when the mark changed.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { type Obj, type OpencodeRecord, obj } from "./records.js";
import type { OpencodeSessionEntry, ReadItem } from "./source.js";

const JSON_FILE = /\.json$/;

export class OpencodeStorage {
  /** The `storage` folder. */
  readonly root: string;
  /** Problems met while listing (a session file that is no JSON). */
  readonly problems: { file: string; message: string }[] = [];

  constructor(root: string) {
    this.root = root;
  }

  async sessions(): Promise<OpencodeSessionEntry[]> {
    const out: OpencodeSessionEntry[] = [];
    for (const project of await names(join(this.root, "session"))) {
      const dir = join(this.root, "session", project);
      for (const file of (await names(dir)).filter((n) => JSON_FILE.test(n))) {
        const path = join(dir, file);
        const info = await this.#json(path);
        if (info === undefined) continue;
        const id = file.replace(JSON_FILE, "");
        out.push({
          id,
          mark: `files:${await this.#mark(path, id)}`,
          info: { ...info, projectID: project },
          where: path,
        });
      }
    }
    // opencode lists sessions by creation; ties by id (ids are ascending in time too).
    return out.sort((a, b) => created(a) - created(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async *records(sessionId: string): AsyncGenerator<ReadItem> {
    const dir = join(this.root, "message", sessionId);
    const messages: { id: string; data: Obj }[] = [];
    for (const file of (await names(dir)).filter((n) => JSON_FILE.test(n))) {
      const data = await this.#json(join(dir, file), true);
      if (typeof data === "string") yield { problem: { file: join(dir, file), message: data } };
      else if (data !== undefined) messages.push({ id: file.replace(JSON_FILE, ""), data: strip(data) });
    }
    const at = (m: { data: Obj }) =>
      typeof obj(m.data.time).created === "number" ? (obj(m.data.time).created as number) : 0;
    messages.sort((a, b) => at(a) - at(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    for (const m of messages) {
      const record: OpencodeRecord = { message: { id: m.id, sessionId, data: m.data }, parts: [] };
      const partDir = join(this.root, "part", m.id);
      for (const file of (await names(partDir)).filter((n) => JSON_FILE.test(n)).sort()) {
        const data = await this.#json(join(partDir, file), true);
        if (typeof data === "string") yield { problem: { file: join(partDir, file), message: data } };
        else if (data !== undefined)
          record.parts.push({ id: file.replace(JSON_FILE, ""), data: strip(data) });
      }
      yield { record };
    }
  }

  /** The names, sizes and times of a session's files, joined. */
  async #mark(sessionFile: string, id: string): Promise<string> {
    const parts: string[] = [await stamp(sessionFile)];
    const dir = join(this.root, "message", id);
    for (const file of await names(dir)) {
      parts.push(`${file}=${await stamp(join(dir, file))}`);
      const partDir = join(this.root, "part", file.replace(JSON_FILE, ""));
      for (const p of await names(partDir)) parts.push(`${p}=${await stamp(join(partDir, p))}`);
    }
    return parts.join(",");
  }

  /** A file's JSON object; a broken one is a problem: returned (`asText`) or listed. */
  async #json(path: string, asText: true): Promise<Obj | string | undefined>;
  async #json(path: string): Promise<Obj | undefined>;
  async #json(path: string, asText = false): Promise<Obj | string | undefined> {
    let text: string;
    try {
      text = await readFile(path, { encoding: "utf8", flag: "r" });
    } catch {
      return undefined; // removed since it was listed: opencode deleted it
    }
    let message: string;
    try {
      const value = JSON.parse(text);
      if (value !== null && typeof value === "object" && !Array.isArray(value)) return value as Obj;
      message = "not a JSON object";
    } catch (error) {
      message = `not JSON (${(error as Error).message})`;
    }
    if (asText) return message;
    this.problems.push({ file: path, message });
    return undefined;
  }
}

/** The entries of a folder, sorted; none when it does not exist. */
async function names(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch {
    return [];
  }
}

async function stamp(path: string): Promise<string> {
  try {
    const s = await stat(path);
    return `${s.size}@${s.mtimeMs}`;
  } catch {
    return "gone";
  }
}

function created(entry: OpencodeSessionEntry): number {
  const t = obj(entry.info.time).created;
  return typeof t === "number" ? t : 0;
}

/** A file's JSON without the ids its name and folder give (as the database keeps it). */
function strip(data: Obj): Obj {
  const { id: _id, sessionID: _s, messageID: _m, ...rest } = data;
  return rest;
}
