/**
 * What every shape module of this package produces: one item of a foreign shape (a Claude Code
 * transcript line, an OpenAI Responses item, an AI SDK UIMessage, a Codex rollout line, an
 * opencode part, a Hermes row) mapped to what sessiondb stores. Written once per shape and used
 * by the framework bindings and the importers alike.
 */
import type { CreateSessionInput, Json, MessageInput } from "@sessiondb/core";

/** Facts about the session an item belongs to, as far as the item tells them. */
export type SessionFacts = Partial<Omit<CreateSessionInput, "metadata">> & {
  metadata?: { [key: string]: Json };
  /** When the producer says the session ended. */
  ended?: { reason: string; at?: number };
};

/** One foreign item as sessiondb rows. */
export interface MappedItem {
  /** The rows the item becomes, in order (usually one). Each carries `externalId` (unique in its
   * session, so a second write stores nothing new) and `original` (the item exactly as given,
   * so nothing the shape carries is lost). An item that is no message (a summary, a snapshot, a
   * type this mapper does not know) is one inactive row (`active: false`): kept and given back,
   * never shown as part of the conversation. */
  messages: MessageInput[];
  /** What the item says about its session (first line: id, cwd, model; later: a title). */
  session?: SessionFacts;
  /** Set when the item's type is not one the mapper knows: the type's name, for counting. It is
   * still stored (an inactive row with its original). */
  unknown?: string;
}

/** A mapper for one session's items in order: stateful where the shape needs it (usage that
 * repeats across lines, tool calls paired with results that come later). */
export interface ItemMapper<Item = unknown> {
  map(item: Item, position: number): MappedItem;
  /** The state the mapper has built from the items mapped so far, as JSON: what a mapper made
   * later needs, through `restore`, to go on with the next item as this one would. A mapper
   * without it is always fed a session from its first item. */
  save?(): Json;
  /** Takes a state `save` gave (of a mapper for the same session file); throws on one it cannot
   * read, and the caller then feeds it from the first item instead. */
  restore?(state: Json): void;
}

/**
 * A format whose sessions are JSON-lines files under a folder (Claude Code, Codex): what the
 * importer needs from its shape module. The importer walks the roots, reads each session file
 * line by line (a broken line is reported with its file and line number, a half-written last
 * line is left for the next run), and feeds every parsed line of a file, in order, to one mapper:
 * a mapper may keep state across a file's lines. A file read before and only appended to since is
 * read from where the last run stopped, by a mapper given the state the last one saved; any
 * other file (and every file of a mapper without `save`) is read from its first line.
 */
export interface LineFormat {
  /** The format's name, as `sessiondb import --from <name>` takes it. */
  readonly name: string;
  /** Where the producer keeps its sessions, relative to the home directory. */
  readonly defaultRoots: readonly string[];
  /** Whether a file (its path relative to the root, `/`-separated) is one of its session files. */
  isSessionFile(relativePath: string): boolean;
  /** A mapper for one session file's lines (the path relative to the root may say whose
   * subagent the file is); `position` is the line's 1-based number in the file. */
  mapper(relativePath: string): ItemMapper<unknown>;
}
