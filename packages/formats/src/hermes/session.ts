/** What a Hermes `sessions` row says of its session. */
import type { Json } from "@sessiondb/core";
import type { Row } from "@sessiondb/core/driver";
import type { SessionFacts } from "../mapped.js";
import { jsonRow, num, text } from "./columns.js";

/** The format's name, the stored sessions' source and the originals' format. */
export const HERMES_FORMAT = "hermes";

/** Columns that become the session's own fields (the rest go to `metadata.hermes`). */
const OWN = new Set(["id", "title", "cwd", "model", "model_config", "parent_session_id", "started_at"]);

export function sessionFacts(row: Row): SessionFacts {
  const facts: SessionFacts = { source: HERMES_FORMAT };
  const id = text(row.id);
  if (id !== undefined) facts.id = id;
  const started = num(row.started_at);
  if (started !== undefined && started >= 0) facts.startedAt = started;
  for (const [field, column] of [
    ["model", "model"],
    ["title", "title"],
    ["cwd", "cwd"],
    ["parentSessionId", "parent_session_id"],
  ] as const) {
    const value = text(row[column]);
    if (value !== undefined) facts[field] = value;
  }
  const config = text(row.model_config);
  if (config !== undefined) facts.modelConfig = parsed(config);
  const ended = num(row.ended_at);
  if (ended !== undefined) facts.ended = { reason: text(row.end_reason) ?? "ended", at: ended };
  // Hermes's own columns (its source: cli, telegram…; git; billing; costs; counters), non-null.
  const hermes: { [key: string]: Json } = {};
  for (const [column, value] of Object.entries(jsonRow(row)))
    if (!OWN.has(column) && column !== "system_prompt" && value !== null) hermes[column] = value;
  facts.metadata = { hermes };
  return facts;
}

/** A JSON column's value, or its text when it is not JSON (kept as given). */
function parsed(value: string): Json {
  try {
    return JSON.parse(value) as Json;
  } catch {
    return value;
  }
}
