/**
 * Session upkeep: delete, prune by age, rename, archive. Deletes go through
 * `store.deleteSessions`: every session is deleted whole in a short write transaction, paced so
 * that agents writing at the same time get the lock between two (see deleteAll).
 */
import * as readline from "node:readline";
import type { Session, SessionSummary } from "@sessiondb/core";
import { defineCommand } from "../command.js";
import type { OptionDefs } from "../define.js";
import { EXIT, ExitError, UsageError } from "../exit.js";
import { count, plural, print, printJson, table, time } from "../format.js";
import { allSessions } from "../inspect.js";
import { Interrupt } from "../interrupt.js";
import { type Opened, openFor } from "../open.js";
import { writeErr } from "../output.js";
import { Progress } from "../progress.js";
import type { CliStore } from "../server.js";
import { parseAge } from "../when.js";
import { terminalWidth } from "../width.js";

const YES_OPTION = {
  yes: { type: "boolean", help: "do not ask (needed when stdin or stderr is not a terminal)" },
} as const satisfies OptionDefs;

/** Ask on the terminal; without one, --yes is required (a script never deletes by accident). */
async function confirm(question: string, values: { yes?: boolean }): Promise<boolean> {
  if (values.yes === true) return true;
  if (!process.stdin.isTTY || !process.stderr.isTTY)
    throw new UsageError(
      `${question.replace(/\?$/, "")}: not on a terminal, so not asked; add --yes to go ahead`,
    );
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await new Promise<string>((resolve) => rl.question(`${question} [y/N] `, resolve));
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

function notFound(shown: string, ids: string[]): ExitError {
  return new ExitError(
    EXIT.NOT_FOUND,
    `no session ${ids.map((id) => JSON.stringify(id)).join(", ")} in ${shown}; nothing was changed`,
    "SESSION_NOT_FOUND",
  );
}

/** The named sessions, or exit 7 naming every missing one before anything changes. */
async function existing({ store, shown }: Opened, ids: string[]): Promise<Session[]> {
  const found: Array<[string, Session | undefined]> = [];
  // An id named twice is one session: counted, reported and changed once.
  for (const id of new Set(ids)) found.push([id, await store.getSession(id)]);
  const missing = found.filter(([, s]) => !s).map(([id]) => id);
  if (missing.length) throw notFound(shown, missing);
  return found.map(([, s]) => s as Session);
}

/**
 * Delete sessions with `store.deleteSessions`: each whole or not at all, in paced steps that let
 * agents writing meanwhile in between (back-to-back deletes would starve them). Progress on a
 * terminal; Ctrl-C stops between two steps.
 */
async function deleteAll(
  store: CliStore,
  ids: string[],
  quiet: boolean,
): Promise<{ sessions: number; messages: number }> {
  const progress =
    !quiet && process.stderr.isTTY && ids.length > 1
      ? new Progress({ unit: "sessions", label: "delete" })
      : undefined;
  const stop = new Interrupt();
  const done = { sessions: 0, messages: 0 };
  try {
    await store.deleteSessions(ids, {
      signal: stop.signal,
      onProgress: (p) => {
        done.sessions = p.sessions;
        done.messages = p.messages;
        progress?.update(p.sessions, ids.length);
      },
    });
    progress?.finish();
    return done;
  } catch (error) {
    if (!stop.aborted) throw error;
    progress?.finish("interrupted");
    throw stop.error(
      `interrupted after deleting ${plural(done.sessions, "session")} of ${count(ids.length)}; the rest are intact — run the command again to finish`,
    );
  }
}

export const sessionsDelete = defineCommand({
  name: "sessions delete",
  usage: "sessions delete ID… [--yes] [--json]",
  options: YES_OPTION,
  notes: [
    "Each session is deleted whole in a short transaction. Children of a deleted session are kept and",
    "lose their parent link. Exit 7, with nothing deleted, when any ID does not exist.",
  ].join("\n"),
  args: { min: 1, max: Number.POSITIVE_INFINITY, names: "ID" },
  json: true,
  async run({ values, positionals, runtime }) {
    const opened = await openFor(runtime, values, "write");
    const { store } = opened;
    try {
      const sessions = await existing(opened, positionals);
      const messages = sessions.reduce((n, s) => n + s.messageCount, 0);
      const what =
        sessions.length === 1
          ? `session ${sessions[0]?.id} (${plural(messages, "message")})`
          : `${plural(sessions.length, "session")} (${plural(messages, "message")})`;
      if (!(await confirm(`Delete ${what}?`, values))) {
        writeErr("nothing was deleted\n");
        return EXIT.OK;
      }
      const done = await deleteAll(store, positionals, values.json === true);
      if (values.json) printJson({ deleted: { sessions: done.sessions, messages: done.messages } });
      else print(`deleted ${plural(done.sessions, "session")} (${plural(done.messages, "message")})`);
      return EXIT.OK;
    } finally {
      await store.close();
    }
  },
});

export const prune = defineCommand({
  name: "prune",
  usage: "prune --older-than AGE [--source S] [--archived-only] [--dry-run] [--yes] [--json]",
  options: {
    "older-than": {
      type: "string",
      value: "AGE",
      parse: parseAge,
      help: "last activity longer ago than AGE: 90d, 12h, 2w, 30m; at most 36500d (required)",
    },
    source: { type: "string", value: "S", help: "only sessions from this source" },
    "archived-only": { type: "boolean", help: "only archived sessions" },
    "dry-run": { type: "boolean", help: "list what would be deleted; change nothing" },
    ...YES_OPTION,
  },
  notes: [
    "Pinned sessions are never pruned. Each session is deleted whole in a short transaction,",
    "paced so that agents writing at the same time get their turn in between. Ctrl-C stops",
    "between two (exit 130); the sessions left are intact and a second run finishes the job.",
    "The space freed is reused by the store; the file itself does not shrink.",
  ].join("\n"),
  args: { min: 0, max: 0, names: "" },
  json: true,
  async run({ values, runtime }) {
    if (values["older-than"] === undefined)
      throw new UsageError('prune needs --older-than AGE (for example 90d); see "sessiondb prune --help"');
    const age = values["older-than"];
    const cutoff = Date.now() / 1000 - age;
    const dryRun = values["dry-run"] === true;
    const { store } = await openFor(runtime, values, dryRun ? "read" : "write");
    try {
      const all = await allSessions(store, values.source || undefined);
      const old = (s: SessionSummary) =>
        s.lastActiveAt < cutoff && (values["archived-only"] !== true || s.archived);
      const chosen = all.filter((s) => old(s) && !s.pinned);
      const pinned = all.filter((s) => old(s) && s.pinned).length;
      const messages = chosen.reduce((n, s) => n + s.messageCount, 0);
      const what = `${plural(chosen.length, "session")} (${plural(messages, "message")}) last active before ${time(cutoff)}`;
      const keptPinned = pinned ? `; ${plural(pinned, "pinned session")} kept` : "";
      if (dryRun || chosen.length === 0) {
        if (values.json) {
          printJson({
            dryRun,
            cutoff,
            sessions: chosen.map((s) => ({
              id: s.id,
              lastActiveAt: s.lastActiveAt,
              messages: s.messageCount,
            })),
            pinnedKept: pinned,
          });
          return EXIT.OK;
        }
        if (chosen.length) {
          const rows = chosen.map((s) => [
            s.id,
            s.source,
            time(s.lastActiveAt),
            count(s.messageCount),
            s.title ?? s.preview ?? "",
          ]);
          print(
            table(["ID", "SOURCE", "LAST ACTIVE", "MSGS", "TITLE"], rows, {
              right: [3],
              flex: 4,
              width: terminalWidth(),
            }),
          );
        }
        print(`${dryRun ? "would delete" : "nothing to delete:"} ${what}${keptPinned}`);
        return EXIT.OK;
      }
      if (!(await confirm(`Delete ${what}?`, values))) {
        writeErr("nothing was deleted\n");
        return EXIT.OK;
      }
      const done = await deleteAll(
        store,
        chosen.map((s) => s.id),
        values.json === true,
      );
      if (values.json) printJson({ dryRun, cutoff, deleted: done, pinnedKept: pinned });
      else
        print(
          `deleted ${plural(done.sessions, "session")} (${plural(done.messages, "message")})${keptPinned}`,
        );
      return EXIT.OK;
    } finally {
      await store.close();
    }
  },
});

export const sessionsRename = defineCommand({
  name: "sessions rename",
  usage: "sessions rename ID TITLE [--json]",
  help: 'TITLE is the rest of the command line; an empty TITLE ("") removes the title. Exit 7 when ID does not exist.',
  options: {},
  args: { min: 2, max: Number.POSITIVE_INFINITY, names: "ID and TITLE" },
  json: true,
  async run({ values, positionals, runtime }) {
    const [id, ...words] = positionals as [string, ...string[]];
    const title = words.join(" ").trim();
    const opened = await openFor(runtime, values, "write");
    const { store } = opened;
    try {
      await existing(opened, [id]);
      const session = await store.updateSession(id, { title: title === "" ? null : title });
      if (values.json) printJson({ session });
      else
        print(
          session.title === null
            ? `session ${id}: title removed`
            : `session ${id}: ${JSON.stringify(session.title)}`,
        );
      return EXIT.OK;
    } finally {
      await store.close();
    }
  },
});

function archiving(archived: boolean) {
  const verb = archived ? "archive" : "unarchive";
  return defineCommand({
    name: `sessions ${verb}`,
    usage: `sessions ${verb} ID… [--json]`,
    help: archived
      ? "An archived session keeps every message and its usage; `sessions list --archived` and search\nstill find it. Archiving does not end a session: an agent may still append to it.\nExit 7, with nothing changed, when any ID does not exist."
      : "Exit 7, with nothing changed, when any ID does not exist.",
    options: {},
    args: { min: 1, max: Number.POSITIVE_INFINITY, names: "ID" },
    json: true,
    async run({ values, positionals, runtime }) {
      const opened = await openFor(runtime, values, "write");
      const { store } = opened;
      try {
        const sessions = await existing(opened, positionals);
        const changed = sessions.filter((s) => s.archived !== archived).map((s) => s.id);
        for (const id of changed) await store.updateSession(id, { archived });
        if (values.json) printJson({ [`${verb}d`]: changed, unchanged: sessions.length - changed.length });
        else {
          const already = sessions.length - changed.length;
          print(
            `${verb}d ${plural(changed.length, "session")}${already ? ` (${count(already)} already ${verb}d)` : ""}`,
          );
        }
        return EXIT.OK;
      } finally {
        await store.close();
      }
    },
  });
}

export const sessionsArchive = archiving(true);
export const sessionsUnarchive = archiving(false);
