/**
 * The Claude Agent SDK's own session functions driven with our store, offline (none of them
 * starts the Claude Code binary): importSessionToStore copies a transcript from a Claude config
 * folder on disk, then listSessions, getSessionMessages, renameSession, tagSession,
 * forkSession, listSubagents and deleteSession run against the store. The SDK's
 * InMemorySessionStore, run through the same steps, is the reference for every answer.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  deleteSession,
  forkSession,
  getSessionMessages,
  InMemorySessionStore,
  importSessionToStore,
  listSessions,
  listSubagents,
  renameSession,
  type SessionStore,
  tagSession,
} from "@anthropic-ai/claude-agent-sdk";
import { openStore } from "@sessiondb/node";
import { afterAll, describe, expect, it } from "vitest";
import { SessionDbSessionStore } from "../src/index.js";
import { transcript } from "./support/transcript.js";

const root = mkdtempSync(join(tmpdir(), "sessiondb-claude-sdk-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const SESSION = "5e551011-0000-4000-8000-00000000c0de";
const project = join(root, "work", "app");
mkdirSync(project, { recursive: true });

// A Claude config folder with one session and one subagent transcript, as Claude Code lays it
// out: projects/<the cwd with every non-alphanumeric character a dash>/<session>.jsonl.
process.env.CLAUDE_CONFIG_DIR = join(root, "config");
const folder = join(root, "config", "projects", project.replace(/[^a-zA-Z0-9]/g, "-"));
mkdirSync(join(folder, SESSION, "subagents"), { recursive: true });
const lines = transcript(SESSION, project);
const jsonl = (entries: unknown[]) => `${entries.map((e) => JSON.stringify(e)).join("\n")}\n`;
writeFileSync(join(folder, `${SESSION}.jsonl`), jsonl(lines));
const agentLines = transcript(SESSION, project)
  .slice(1, 6)
  .map((e) => ({ ...e, isSidechain: true, agentId: "f00d" }));
writeFileSync(join(folder, SESSION, "subagents", "agent-f00d.jsonl"), jsonl(agentLines));

/** The same steps on a store; what each answered (ids of a fork replaced by their order). */
async function steps(store: SessionStore) {
  const options = { dir: project, sessionStore: store };
  await importSessionToStore(SESSION, store, { dir: project, batchSize: 3 });
  await importSessionToStore(SESSION, store, { dir: project }); // again: nothing twice
  const listed = await listSessions(options);
  const messages = await getSessionMessages(SESSION, options);
  await renameSession(SESSION, "Zeilen zählen, umbenannt", options);
  await tagSession(SESSION, "wichtig", options);
  const fork = await forkSession(SESSION, options);
  const afterFork = await listSessions(options);
  const subagents = await listSubagents(SESSION, options);
  await deleteSession(fork.sessionId, options);
  const afterDelete = await listSessions(options);
  const summary = (l: (typeof listed)[number]) => [
    l.sessionId === SESSION ? "main" : "fork",
    l.summary,
    l.customTitle,
    l.firstPrompt,
    l.tag,
    l.cwd,
  ];
  return {
    listed: listed.map(summary),
    messages,
    afterFork: afterFork.map(summary).sort(),
    subagents,
    afterDelete: afterDelete.map(summary),
    forkMessages: messages.length,
  };
}

describe("the Claude Agent SDK's session functions on SessionDbSessionStore", () => {
  it("answer as they do on the SDK's InMemorySessionStore", async () => {
    const db = openStore(join(root, "sdk.db"));
    try {
      const ours = new SessionDbSessionStore({ store: db });
      const got = await steps(ours);
      const reference = await steps(new InMemorySessionStore());
      expect(got).toEqual(reference);
      // And what that means: the transcript's conversation, the title and tag kept.
      expect(got.messages.map((m) => m.type)).toEqual([
        "user",
        "assistant",
        "assistant",
        "user",
        "assistant",
      ]);
      expect(got.listed).toEqual([
        ["main", "Zeilen zählen", "Zeilen zählen", "Wie viele Zeilen hat README.md? 🧮", undefined, project],
      ]);
      expect(got.afterDelete).toEqual([
        [
          "main",
          "Zeilen zählen, umbenannt",
          "Zeilen zählen, umbenannt",
          "Wie viele Zeilen hat README.md? 🧮",
          "wichtig",
          project,
        ],
      ]);
      expect(got.subagents).toEqual(["f00d"]);
      // In sessiondb: the session and its subagent, rows searchable, usage once.
      const session = db.getSession(SESSION);
      expect([session?.title, session?.messageCount, session?.toolCallCount]).toEqual([
        "Zeilen zählen, umbenannt",
        5,
        1,
      ]);
      expect(db.getSession(`${SESSION}/subagents/agent-f00d`)?.parentSessionId).toBe(SESSION);
      expect(db.getUsage(SESSION).map((u) => u.callCount)).toEqual([2]);
    } finally {
      db.close();
    }
  });

  it("list sessions from the summaries each append folded, loading no transcript", async () => {
    const db = openStore(join(root, "summaries.db"));
    try {
      const ours = new SessionDbSessionStore({ store: db });
      const reference = new InMemorySessionStore();
      for (const store of [ours, reference]) await importSessionToStore(SESSION, store, { dir: project });
      // Without listSessionSummaries the SDK would load every listed transcript.
      let loads = 0;
      const load = ours.load.bind(ours);
      ours.load = (key) => {
        loads++;
        return load(key);
      };
      const listed = await listSessions({ dir: project, sessionStore: ours });
      expect(loads).toBe(0);
      const [summary] = await ours.listSessionSummaries(project.replace(/[^a-zA-Z0-9]/g, "-"));
      expect(summary?.mtime).toBe((await ours.listSessions(project.replace(/[^a-zA-Z0-9]/g, "-")))[0]?.mtime);
      // The same listing as the SDK's own store gives, but for the storage write times.
      const untimed = (l: (typeof listed)[number]) => ({ ...l, lastModified: 0 });
      expect(listed.map(untimed)).toEqual(
        (await listSessions({ dir: project, sessionStore: reference })).map(untimed),
      );
      expect(listed.map((l) => [l.sessionId, l.summary])).toEqual([[SESSION, "Zeilen zählen"]]);
    } finally {
      db.close();
    }
  });
});
