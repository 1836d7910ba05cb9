/**
 * opencode's older JSON storage read with `node:fs`, files only read:
 * `storage/session/<project>/<session>.json`, `storage/message/<session>/<message>.json`,
 * `storage/part/<message>/<part>.json`. Ids come from the file names (as opencode's own
 * migration takes them). A session's mark is the names, sizes and modification times of its
 * files, from stats alone; its records are read only when the mark changed. Synchronous, as the
 * database reader is, so both feed the importer the same way.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { OpencodeSessionEntry } from "./database.js";
import { addProblem, type Obj, type OpencodeRecord, type OpencodeRow, obj } from "./records.js";

const JSON_FILE = /\.json$/;

/** The sessions of a `storage` folder; a session file that is no JSON is a problem, listed. */
export function storageSessions(
  root: string,
  problems: { file: string; message: string }[],
): OpencodeSessionEntry[] {
  const out: OpencodeSessionEntry[] = [];
  for (const project of names(join(root, "session"))) {
    const dir = join(root, "session", project);
    for (const file of names(dir).filter((n) => JSON_FILE.test(n))) {
      const path = join(dir, file);
      const info = readJson(path);
      if (typeof info === "string") problems.push({ file: path, message: info });
      if (info === undefined || typeof info === "string") continue;
      const id = file.replace(JSON_FILE, "");
      const entry: OpencodeSessionEntry = {
        id,
        mark: `files:${mark(root, path, id)}`,
        info: { ...info, projectID: project },
      };
      const model = firstModel(root, id);
      if (model !== undefined) entry.firstModel = model;
      out.push(entry);
    }
  }
  // opencode lists sessions by creation; ties by id (ids ascend in time too).
  return out.sort((a, b) => createdOf(a.info) - createdOf(b.info) || compare(a.id, b.id));
}

/** A session's messages with their parts, in opencode's order (by creation, then id). */
export function* storageRecords(root: string, sessionId: string): Generator<OpencodeRow> {
  const dir = join(root, "message", sessionId);
  const messages: OpencodeRecord[] = [];
  for (const file of names(dir).filter((n) => JSON_FILE.test(n))) {
    const data = readJson(join(dir, file));
    if (data === undefined) continue;
    const record: OpencodeRecord = {
      message: { id: file.replace(JSON_FILE, ""), sessionId, data: {} },
      parts: [],
    };
    if (typeof data === "string") record.problems = [`message file ${join(dir, file)}: ${data}`];
    else record.message.data = strip(data);
    messages.push(record);
  }
  messages.sort(
    (a, b) => createdOf(a.message.data) - createdOf(b.message.data) || compare(a.message.id, b.message.id),
  );
  for (const record of messages) {
    if (record.problems === undefined) {
      const partDir = join(root, "part", record.message.id);
      for (const file of names(partDir).filter((n) => JSON_FILE.test(n))) {
        const data = readJson(join(partDir, file));
        if (typeof data === "string") addProblem(record, `part file ${join(partDir, file)}: ${data}`);
        else if (data !== undefined)
          record.parts.push({ id: file.replace(JSON_FILE, ""), data: strip(data) });
      }
    }
    yield { table: "message", rowId: record.message.id, value: record };
  }
}

/** The model of a session's first assistant message (its files are named by ascending ids). */
function firstModel(root: string, id: string): string | undefined {
  const dir = join(root, "message", id);
  for (const file of names(dir).filter((n) => JSON_FILE.test(n))) {
    const data = readJson(join(dir, file));
    if (typeof data === "object" && data.role === "assistant" && typeof data.modelID === "string")
      return data.modelID;
  }
  return undefined;
}

/** The names, sizes and times of a session's files, hashed (the mark is kept in the stored
 * session's metadata: a digest, however many files the session has). */
function mark(root: string, sessionFile: string, id: string): string {
  const parts: string[] = [stamp(sessionFile)];
  const dir = join(root, "message", id);
  for (const file of names(dir)) {
    parts.push(`${file}=${stamp(join(dir, file))}`);
    const partDir = join(root, "part", file.replace(JSON_FILE, ""));
    for (const p of names(partDir)) parts.push(`${p}=${stamp(join(partDir, p))}`);
  }
  return createHash("sha256").update(parts.join("\n")).digest("hex");
}

/** A file's JSON object, what is wrong with it, or undefined when it is gone (opencode removed
 * it since it was listed). */
function readJson(path: string): Obj | string | undefined {
  let text: string;
  try {
    text = readFileSync(path, { encoding: "utf8", flag: "r" });
  } catch {
    return undefined;
  }
  try {
    const value = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Obj)
      : "not a JSON object";
  } catch (error) {
    return `not JSON (${(error as Error).message})`;
  }
}

/** The entries of a folder, sorted; none when it does not exist. */
function names(dir: string): string[] {
  try {
    return readdirSync(dir).sort(compare);
  } catch {
    return [];
  }
}

function stamp(path: string): string {
  try {
    const s = statSync(path);
    return `${s.size}@${s.mtimeMs}`;
  } catch {
    return "gone";
  }
}

function createdOf(data: Obj): number {
  const t = obj(data.time).created;
  return typeof t === "number" ? t : 0;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A file's JSON without the ids its name and folder give (as the database keeps it). */
function strip(data: Obj): Obj {
  const { id: _id, sessionID: _s, messageID: _m, ...rest } = data;
  return rest;
}
