/**
 * The search-query sanitizer (pure). Users type what they would type into any search box:
 * `my-app.config.ts`, `"exact phrase"`, `error OR warning`, `foo -bar`, `NEAR(`, stray quotes.
 * Instead of passing that to FTS5's query grammar (where `-`, `:`, `(`, `*` and bare keywords are
 * operators and a stray one is a syntax error), the query is parsed into a small normal form —
 * OR of AND-groups of terms, some negated — and every term is re-emitted as a quoted FTS5 string.
 * A quoted string can never be an operator, a column filter or a syntax error, and FTS5 matches it
 * as a phrase: `my-app.config.ts` becomes the phrase my · app · config · ts.
 *
 * Kept: balanced `"quoted phrases"`, uppercase AND / OR / NOT between terms, and a trailing `*`
 * on a word (prefix search). Everything else that is not a letter or digit at the edge of a word
 * is dropped.
 */
import { MAX_SEARCH_QUERY_CHARS } from "../constants.js";
import { InvalidInputError } from "../errors.js";
import { MAX_SEARCH_TERMS, MAX_SEARCH_WORDS, TRIGRAMS_PER_TERM } from "./constants.js";

/** One search term: a word, a compound word or a quoted phrase. */
export interface QueryTerm {
  /** The text to find (a phrase when it contains separators). */
  readonly text: string;
  /** Excluded with NOT. Never true for the first term of a group. */
  readonly negated: boolean;
  /** Prefix search (`conf*`). */
  readonly prefix: boolean;
}

/** The normal form: the query matches when any group matches; a group when all its terms do. */
export interface ParsedQuery {
  readonly groups: ReadonlyArray<readonly QueryTerm[]>;
}

type Token = { op: "AND" | "OR" | "NOT" } | { text: string; prefix: boolean };

// The patterns with Unicode property classes are built on first use, not at load: V8 builds
// each class from ICU when the literal is evaluated: about 2 ms for the five of this module and
// search-sql.ts on Node 24, 1–6 ms on a loaded Node 20 (~0 on Bun), paid by every process that
// loads the core and never searches. Each is built once and kept.
const built: { edge?: RegExp; content?: RegExp; word?: RegExp; cjk?: RegExp } = {};

/** Punctuation and symbols at a word's edge: FTS5 syntax (`-`, `:`, `(`, `*`, `^`, `+`) or typos;
 * and format characters (U+200B zero-width space, U+2060 word joiner, U+00AD soft hyphen), which
 * the word index never holds: left on a term, the substring and LIKE routes would look for them. */
const edgePunctuation = () => (built.edge ??= /^[\p{P}\p{S}\p{Cf}]+|[\p{P}\p{S}\p{Cf}]+$/gu);
/** A term needs at least one letter, digit or mark; punctuation or format characters alone find
 * nothing. */
const hasContent = () => (built.content ??= /[^\s\p{P}\p{S}\p{Cf}]/u);
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Cut to the length cap (a cut pair becomes a lone surrogate, removed with the others) and
 * blank out control characters. */
function clean(input: string): string {
  return String(input)
    .slice(0, MAX_SEARCH_QUERY_CHARS)
    .replace(LONE_SURROGATE, " ")
    .replace(/\p{Cc}/gu, " ");
}

function bareToken(raw: string): Token | undefined {
  if (raw === "AND" || raw === "OR" || raw === "NOT") return { op: raw };
  const prefix = /[^\s\p{P}\p{S}]\*+$/u.test(raw);
  const text = raw.replace(edgePunctuation(), "");
  return hasContent().test(text) ? { text, prefix } : undefined;
}

function tokenize(query: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < query.length) {
    const ch = query[i] as string;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (ch === '"') {
      const end = query.indexOf('"', i + 1);
      if (end > i) {
        // A balanced phrase: kept whole; the tokenizer ignores punctuation inside it.
        const text = query
          .slice(i + 1, end)
          .replace(/\s+/g, " ")
          .trim();
        if (hasContent().test(text)) tokens.push({ text, prefix: false });
        i = end + 1;
        continue;
      }
      i++; // an unbalanced quote is a typo, not a phrase that swallows the rest of the query
      continue;
    }
    let end = i;
    while (end < query.length && !/\s/.test(query[end] as string) && query[end] !== '"') end++;
    const token = bareToken(query.slice(i, end));
    if (token) tokens.push(token);
    i = end;
  }
  return tokens;
}

/** Parse a user query into the normal form; an empty result means "nothing searchable". */
export function parseQuery(input: string): ParsedQuery {
  const groups: QueryTerm[][] = [];
  let group: QueryTerm[] = [];
  let pending: "AND" | "OR" | "NOT" | undefined;
  let count = 0;
  for (const token of tokenize(clean(input))) {
    if ("op" in token) {
      // An operator with nothing on its left is dropped; of two in a row the later one wins.
      if (group.length > 0 || groups.length > 0) pending = token.op;
      continue;
    }
    if (count >= MAX_SEARCH_TERMS) break;
    if (pending === "OR" && group.length > 0) {
      groups.push(group);
      group = [];
    }
    const term = { text: token.text, prefix: token.prefix, negated: pending === "NOT" && group.length > 0 };
    pending = undefined;
    // A repeated term adds nothing to an AND but a whole pass over its positions to the index
    // query (`a a a … a` over a row of a million `a`s).
    if (group.some((t) => t.text === term.text && t.prefix === term.prefix && t.negated === term.negated))
      continue;
    group.push(term);
    count++;
  }
  if (group.length > 0) groups.push(group);
  return { groups };
}

/** Every term of the query, in order. */
export function queryTerms(query: ParsedQuery): QueryTerm[] {
  return query.groups.flat();
}

/** The terms a hit must contain in at least one group (used to mark LIKE snippets). */
export function positiveTerms(query: ParsedQuery): string[] {
  return [
    ...new Set(
      queryTerms(query)
        .filter((t) => !t.negated)
        .map((t) => t.text),
    ),
  ];
}

function quote(term: QueryTerm, allowPrefix: boolean): string {
  return `"${term.text.replace(/"/g, '""')}"${allowPrefix && term.prefix ? "*" : ""}`;
}

/**
 * Render as an FTS5 MATCH expression. Positive terms come first in each group so every NOT has a
 * left operand; FTS5 binds NOT tighter than AND and AND tighter than OR, which is exactly the
 * normal form. Trigram ignores prefixes (every trigram match is already a substring match).
 */
export function toMatchExpression(query: ParsedQuery, options: { prefix: boolean }): string {
  return query.groups
    .map((group) => {
      const positive = group.filter((t) => !t.negated).map((t) => quote(t, options.prefix));
      const negative = group.filter((t) => t.negated).map((t) => `NOT ${quote(t, options.prefix)}`);
      return [positive.join(" "), ...negative].join(" ");
    })
    .join(" OR ");
}

/** Words as the word index splits them: runs of letters, digits and marks. */
const wordPattern = () => (built.word ??= /[\p{L}\p{N}\p{M}\p{Co}]+/gu);

/**
 * Refuse a word query whose terms hold more than MAX_SEARCH_WORDS words in all. FTS5 matches a
 * phrase of n words by walking n position lists, so on a row that repeats one word a million
 * times a long phrase costs n passes over a million positions (and bm25 as many again): the
 * word budget bounds that factor. Substring searches do not use phrases and are not limited.
 */
export function checkWordBudget(query: ParsedQuery): void {
  const words = queryTerms(query).reduce((n, t) => n + (t.text.match(wordPattern())?.length ?? 0), 0);
  if (words > MAX_SEARCH_WORDS) {
    throw new InvalidInputError(
      "search.query",
      `its terms hold ${words} words, more than ${MAX_SEARCH_WORDS}; search for a shorter distinctive part, or pass { substring: true } to match long pasted text`,
    );
  }
}

/** Case-insensitive key of a trigram (the trigram tokenizer folds case). */
const foldKey = (trigram: string) => trigram.toLowerCase();

/** How common a character is in transcripts: spaces and frequent English letters make
 * trigrams that match most rows; digits, punctuation and other scripts make selective ones. */
function commonness(ch: string): number {
  if (ch === " ") return 3;
  if (/[etaoinshrdlu]/i.test(ch)) return 2;
  return /[a-z]/i.test(ch) ? 1 : 0;
}

/**
 * Up to TRIGRAMS_PER_TERM distinct trigrams of a term, the least common first. A row that
 * contains the term contains every one of its trigrams, so their AND is a necessary condition
 * the index answers cheaply; an exact substring test then removes rows that have the trigrams
 * but not the term. (A phrase of all overlapping trigrams is exact but costs a pass over each
 * trigram's positions per trigram: quadratic on a row that repeats one character.)
 */
export function selectTrigrams(text: string): string[] {
  const chars = Array.from(text);
  const seen = new Map<string, { trigram: string; score: number; at: number }>();
  for (let at = 0; at + 3 <= chars.length; at++) {
    const trigram = chars.slice(at, at + 3).join("");
    const key = foldKey(trigram);
    if (seen.has(key)) continue;
    const score = chars.slice(at, at + 3).reduce((sum, ch) => sum + commonness(ch), 0);
    seen.set(key, { trigram, score, at });
  }
  return [...seen.values()]
    .sort((a, b) => a.score - b.score || a.at - b.at)
    .slice(0, TRIGRAMS_PER_TERM)
    .map((t) => t.trigram);
}

/**
 * The trigram index's candidate query: per group, the AND of the selected trigrams of its
 * positive terms; groups OR'ed. Negated terms are left to the exact test: excluding rows that
 * merely share a term's trigrams would drop true hits.
 */
export function toTrigramCandidates(query: ParsedQuery): string {
  return query.groups
    .map((group) =>
      [...new Set(group.filter((t) => !t.negated).flatMap((t) => selectTrigrams(t.text)))]
        .map((trigram) => `"${trigram.replace(/"/g, '""')}"`)
        .join(" "),
    )
    .join(" OR ");
}

/** Han, kana and Hangul: scripts unicode61 cannot split into words. */
const cjkPattern = () =>
  (built.cjk ??= /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u);

/** True when any term contains CJK text. */
export function hasCjk(query: ParsedQuery): boolean {
  return queryTerms(query).some((t) => cjkPattern().test(t.text));
}

/** Length in characters (code points), as the trigram tokenizer counts. */
export function charLength(text: string): number {
  return Array.from(text).length;
}
