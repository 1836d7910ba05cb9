/**
 * The model checker's search: which message ids a query must find on each route, from the model's
 * rows alone. Only what is exact is modelled — the set of ids, never ranks or snippets — and the
 * checker's vocabulary keeps that decidable: no vocabulary word is a substring or a prefix of
 * another, nor of the tool names and tool calls, so a word is found as a token exactly where it is
 * found as a substring.
 */
import type { ModelMessage, ModelState } from "./model-state.js";

/** One term of a query: a word (or substring), or a phrase of words. */
export interface Leaf {
  text: string;
  phrase: boolean;
}

/** The query shapes the checker types: terms ANDed, `a OR b`, `a NOT b`. */
export type Query =
  | { kind: "and"; terms: Leaf[] }
  | { kind: "or"; left: Leaf; right: Leaf }
  | { kind: "not"; left: Leaf; right: Leaf };

export type SearchKind = "word" | "substring" | "roles";

export interface SearchCase {
  kind: SearchKind;
  query: Query;
  /** For `roles`: the role filter (always including "tool"). */
  roles?: string[];
  /** Only this session's messages. */
  sessionId?: string;
  /** Only messages from this time on (epoch seconds, inclusive). */
  since?: number;
}

/** The query as a user types it. */
export function queryText(query: Query): string {
  const leaf = (l: Leaf) => (l.phrase ? `"${l.text}"` : l.text);
  if (query.kind === "and") return query.terms.map(leaf).join(" ");
  return `${leaf(query.left)} ${query.kind === "or" ? "OR" : "NOT"} ${leaf(query.right)}`;
}

/** Tool output is indexed by its first 8192 characters (the checker's long tool rows are ASCII). */
const TOOL_PREFIX_CHARS = 8192;

const tokens = (text: string) =>
  text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);

/** How a row is judged: by the word index's tokens, or by LIKE's substrings. */
type Judge = (fields: readonly string[], leaf: Leaf) => boolean;

const byTokens: Judge = (fields, leaf) => {
  const wanted = tokens(leaf.text);
  return fields.some((field) => {
    const have = tokens(field);
    for (let i = 0; i + wanted.length <= have.length; i++) {
      if (wanted.every((w, k) => have[i + k] === w)) return true;
    }
    return false;
  });
};

const bySubstring: Judge = (fields, leaf) =>
  fields.some((f) => f.toLowerCase().includes(leaf.text.toLowerCase()));

/** A term with no letter or digit is no term at all (README, "Search syntax"). */
const searchable = (leaf: Leaf) => /[a-z0-9]/i.test(leaf.text);

function matches(query: Query, fields: readonly string[], judge: Judge): boolean {
  const has = (leaf: Leaf) => judge(fields, leaf);
  if (query.kind === "and") {
    const terms = query.terms.filter(searchable);
    return terms.length > 0 && terms.every(has);
  }
  if (query.kind === "or") return has(query.left) || has(query.right);
  return has(query.left) && !has(query.right);
}

const callsText = (m: ModelMessage) => (m.toolCalls === null ? "" : JSON.stringify(m.toolCalls));

/** What the word index holds of a row: tool output by its prefix only. */
function indexedFields(m: ModelMessage): string[] {
  const content = m.content ?? "";
  return [m.role === "tool" ? content.slice(0, TOOL_PREFIX_CHARS) : content, m.toolName ?? "", callsText(m)];
}

const wholeFields = (m: ModelMessage) => [m.content ?? "", m.toolName ?? "", callsText(m)];

/** What a search must find: exactly `lower` when `lower` and `upper` are the same set; while a
 * backfill is pending, rows not indexed yet are scanned by LIKE (whole, tool output included), so
 * the answer lies between what both ways find and what either finds. */
export interface Expected {
  lower: Set<number>;
  upper: Set<number>;
  routes: readonly string[];
}

export function expectedHits(state: ModelState, search: SearchCase): Expected {
  const lower = new Set<number>();
  const upper = new Set<number>();
  const add = (id: number, indexed: boolean, scanned: boolean) => {
    if (indexed && scanned) lower.add(id);
    if (indexed || scanned) upper.add(id);
  };
  for (const m of state.messages) {
    if (search.sessionId !== undefined && m.sessionId !== search.sessionId) continue;
    if (search.since !== undefined && m.timestamp < search.since) continue;
    if (search.kind === "roles") {
      if (search.roles?.includes(m.role) && matches(search.query, wholeFields(m), bySubstring)) {
        lower.add(m.id);
        upper.add(m.id);
      }
      continue;
    }
    const indexed =
      search.kind === "word"
        ? matches(search.query, indexedFields(m), byTokens)
        : m.role !== "tool" && matches(search.query, [m.content ?? "", m.toolName ?? ""], bySubstring);
    if (!state.backfilling) {
      if (indexed) add(m.id, true, true);
      continue;
    }
    add(m.id, indexed, matches(search.query, wholeFields(m), bySubstring));
  }
  return { lower, upper, routes: routesFor(state, search) };
}

function routesFor(state: ModelState, search: SearchCase): readonly string[] {
  if (search.kind === "roles") return ["like"];
  const short = leaves(search.query).some((l) => l.text.length < 3);
  if (search.kind === "substring" && short) return ["like"];
  // While a backfill is pending the index is topped up by LIKE over the rows it has not reached
  // (none, when the window was empty or the steps passed every row but the last check).
  if (state.backfilling)
    return search.kind === "word" ? ["fts+like", "fts"] : ["fts+like", "trigram", "like"];
  // A SQLite whose trigram tokenizer cannot serve the rows (sqld's stops at a NUL) answers by LIKE.
  return search.kind === "word" ? ["fts"] : ["trigram", "like"];
}

const leaves = (q: Query): Leaf[] => (q.kind === "and" ? q.terms : [q.left, q.right]).filter(searchable);
