/**
 * Core's operations (sessions, messages, usage, search routing and execution, the chunked
 * backfill) run through core's async runner on this package's executor — on a real sqld over
 * HTTP and WebSocket, and on a file: URL — and answer exactly what the embedded store answers on
 * the same rows: same results, same search routes and hits, same typed errors.
 *
 * Until core's async Store lands, the schema is copied from an embedded store's file (its
 * CREATE statements in order, without FTS5's shadow tables, which the virtual tables create).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createStore, type SearchOptions, SessionDbError, type Store } from "@sessiondb/core";
import { resolveDriver } from "@sessiondb/node";
import { type SqldServer, sqldAvailability, startSqld } from "@sessiondb/test-sqld";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { read, write } from "../../core/src/engine/effects.js";
import { type AsyncEnvironment, runAsync } from "../../core/src/engine/run-async.js";
import {
  countRows,
  type StepMemory,
  startBackfillTx,
  timedBackfillStep,
} from "../../core/src/fts/backfill.js";
import { type BackfillProgress, runBackfill } from "../../core/src/fts/backfill-loop.js";
import { runSearch } from "../../core/src/fts/search.js";
import * as messages from "../../core/src/store/messages.js";
import * as sessions from "../../core/src/store/sessions.js";
import * as usage from "../../core/src/store/usage.js";
import { type LibsqlExecutor, openLibsqlExecutor } from "../src/executor.js";

const driver = resolveDriver();
const available = sqldAvailability();
const folder = mkdtempSync(join(tmpdir(), "sessiondb-libsql-ops-"));
/** One clock for both stores, so stored times match. */
const NOW = 1_700_000_000_000;
let stores = 0;

afterAll(() => {
  rmSync(folder, { recursive: true, force: true });
});

/** A fresh embedded store, and its schema created through `executor` (an empty database). */
async function pair(executor: LibsqlExecutor): Promise<Store> {
  const path = join(folder, `embedded-${++stores}.db`);
  const store = createStore(driver, path, { now: () => NOW });
  const conn = driver.open(path, { readOnly: true });
  try {
    const objects = conn
      .prepare(
        "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name <> 'sqlite_sequence' ORDER BY rowid",
      )
      .all()
      .map((row) => String(row.sql))
      .filter((sql) => !sql.startsWith("CREATE TABLE '"));
    for (const sql of objects) await executor.execute(sql, []);
    for (const row of conn.prepare("SELECT key, value FROM state_meta").all()) {
      await executor.execute("INSERT INTO state_meta (key, value) VALUES (?, ?)", [
        row.key ?? null,
        row.value ?? null,
      ]);
    }
  } finally {
    conn.close();
  }
  return store;
}

/** Whether the engine's trigram tokenizer indexes text after a NUL, asked in a write transaction
 * that is always rolled back (sqld refuses core's TEMP probe table: "unsupported statement"). */
async function trigramIndexesPastNul(db: LibsqlExecutor): Promise<boolean> {
  const undo = new Error("roll back");
  let n: unknown;
  await db
    .transaction("write", async (tx) => {
      await tx.execute("CREATE VIRTUAL TABLE nul_probe USING fts5(c, tokenize='trigram')", []);
      await tx.execute("INSERT INTO nul_probe (c) VALUES ('ab' || char(0) || 'cde')", []);
      n = (await tx.execute(`SELECT count(*) AS n FROM nul_probe WHERE nul_probe MATCH '"cde"'`, [])).rows[0]
        ?.n;
      throw undo;
    })
    .catch((error: unknown) => {
      if (error !== undo) throw error;
    });
  return n === 1;
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SessionDbError);
  return (error as SessionDbError).code;
}

const fileUrl = () => pathToFileURL(join(folder, `remote-${stores + 1}.db`)).href;
const targets: Array<[string, "file" | "http" | "ws"]> = [
  ["file:", "file"],
  ["sqld over HTTP", "http"],
  ["sqld over WebSocket", "ws"],
];

for (const [name, transport] of targets) {
  const needsServer = transport !== "file";
  const skip = needsServer && !available.ok;
  describe.skipIf(skip)(
    `operations on ${name}${skip && !available.ok ? ` (skipped: ${available.reason})` : ""}`,
    () => {
      let executor: LibsqlExecutor;
      let store: Store;
      let env: AsyncEnvironment;
      let trigramReadsPastNul: boolean;
      let node: SqldServer | undefined;
      const url = () => (node ? (transport === "http" ? node.httpUrl : node.wsUrl) : fileUrl());

      beforeAll(async () => {
        // A server of its own per target: a fresh database.
        if (needsServer) node = await startSqld();
        executor = await openLibsqlExecutor(url());
        store = await pair(executor);
        trigramReadsPastNul = await trigramIndexesPastNul(executor);
        env = { executor, patience: { writeMs: 5_000 }, now: () => NOW };
      });
      afterAll(async () => {
        executor?.close();
        store?.close();
        await node?.stop();
      });

      it("sessions, messages and usage: the same results and rows as the embedded store", async () => {
        const script: Array<[() => unknown, () => Promise<unknown>]> = [
          [
            () => store.createSession({ id: "s1", source: "cli", model: "m", startedAt: 1_600_000_000 }),
            () =>
              runAsync(
                env,
                sessions.createSession({ id: "s1", source: "cli", model: "m", startedAt: 1_600_000_000 }),
              ),
          ],
          [
            () =>
              store.createSession({
                id: "s2",
                source: "cron",
                parentSessionId: "s1",
                metadata: { k: [1, "x"] },
              }),
            () =>
              runAsync(
                env,
                sessions.createSession({
                  id: "s2",
                  source: "cron",
                  parentSessionId: "s1",
                  metadata: { k: [1, "x"] },
                }),
              ),
          ],
        ];
        const batch = [
          { role: "system" as const, content: "You summarize logs." },
          { role: "user" as const, content: "deploy the gateway tonight; exit\u0000code 0" },
          {
            role: "assistant" as const,
            content: [{ type: "text", text: "the deployment of gateway-7 finished; 部署完成" }],
            toolCalls: [{ id: "c1", name: "shell" }],
            tokenCount: 12,
          },
          { role: "tool" as const, content: "deploying… done", toolName: "shell", toolCallId: "c1" },
        ];
        script.push(
          [
            () => store.appendMessages("s1", batch),
            () => runAsync(env, messages.appendMessages("s1", batch, 5_000)),
          ],
          [
            () => store.recordUsage("s1", { model: "m", inputTokens: 5, outputTokens: 7, costUsd: 0.25 }),
            () =>
              runAsync(
                env,
                usage.recordUsage("s1", { model: "m", inputTokens: 5, outputTokens: 7, costUsd: 0.25 }),
              ),
          ],
          [
            () => store.updateSession("s1", { title: "deploy", pinned: true }),
            () => runAsync(env, sessions.updateSession("s1", { title: "deploy", pinned: true })),
          ],
          [
            () => store.endSession("s2", "done", { at: 1_600_000_060 }),
            () => runAsync(env, sessions.endSession("s2", "done", { at: 1_600_000_060 })),
          ],
          [() => store.getSession("s1"), () => runAsync(env, sessions.getSession("s1"))],
          [() => store.getSession("nope"), () => runAsync(env, sessions.getSession("nope"))],
          [() => store.getMessages("s1"), () => runAsync(env, messages.getMessages("s1"))],
          [
            () => store.getMessages("s1", { limit: 2, offset: 1 }),
            () => runAsync(env, messages.getMessages("s1", { limit: 2, offset: 1 })),
          ],
          [() => store.getUsage("s1"), () => runAsync(env, usage.getUsage("s1"))],
          [() => store.listSessions(), () => runAsync(env, sessions.listSessions())],
          [
            () => store.listSessions({ orderBy: "activity", source: "cli" }),
            () => runAsync(env, sessions.listSessions({ orderBy: "activity", source: "cli" })),
          ],
          [() => store.messageCount(), () => runAsync(env, messages.messageCount())],
        );
        for (const [embedded, remote] of script) expect(await remote()).toEqual(embedded());
      });

      it("the same typed errors, and nothing stored by a failed or refused call", async () => {
        const before = await runAsync(env, messages.messageCount());
        expect(
          await codeOf(runAsync(env, messages.appendMessages("s1", [{ role: "nobody" } as never], 1_000))),
        ).toBe("INVALID_INPUT");
        expect(
          await codeOf(
            runAsync(env, sessions.createSession({ id: "c", source: "cli", parentSessionId: "nope" })),
          ),
        ).toBe("SESSION_NOT_FOUND");
        expect(
          await codeOf(
            runAsync(env, messages.appendMessages("missing", [{ role: "user", content: "x" }], 1_000)),
          ),
        ).toBe("SESSION_NOT_FOUND");
        expect(await runAsync(env, messages.messageCount())).toBe(before);
        expect(await runAsync(env, sessions.getSession("c"))).toBeUndefined();
      });

      it("searches take the same routes and return the same hits", async () => {
        const cases: Array<[string, SearchOptions | undefined]> = [
          ["deploy", undefined],
          ['"the gateway"', undefined],
          ["deploy*", { sort: "oldest" }],
          ["ploy", { substring: true }],
          ["部署", undefined],
          ["gateway -tonight", { roles: ["assistant"] }],
          ["exit\u0000code", { substring: true }],
          ["shell", { roles: ["tool"] }],
          ["nothing-matches-this", undefined],
        ];
        const routes = new Set<string>();
        for (const [query, options] of cases) {
          const expected = store.search(query, options);
          routes.add(expected.route);
          const got = await runAsync(env, runSearch(query, options, false));
          if (expected.route === "trigram" && !trigramReadsPastNul) {
            // SQLite 3.45.1 (sqld 0.24.32, and the binding behind file:) has a trigram tokenizer
            // that stops at a NUL, so core answers substring searches there by LIKE, which never
            // misses and — unlike the trigram index — also finds tool output, newest first.
            expect(got.route, query).toBe("like");
            const others = got.hits.filter((hit) => hit.role !== "tool");
            expect(others.map((hit) => hit.messageId).sort(), query).toEqual(
              expected.hits.map((hit) => hit.messageId).sort(),
            );
            for (const hit of got.hits) expect(hit.snippet, query).toMatch(/«.+»/);
          } else {
            expect(got, query).toEqual(expected);
          }
        }
        expect(routes.size).toBeGreaterThan(2);
      });

      it("runs the chunked backfill through the server, one short transaction per chunk", async () => {
        const rows = Array.from({ length: 120 }, (_, k) => ({
          role: "user" as const,
          content: `row ${k} backfilled`,
        }));
        store.createSession({ id: "b", source: "cli" });
        store.appendMessages("b", rows);
        await runAsync(env, sessions.createSession({ id: "b", source: "cli" }));
        await runAsync(env, messages.appendMessages("b", rows, 5_000));
        // Both indexes start over (the triggers keep indexing new rows meanwhile).
        expect(store.rebuildFts().rebuilt).toBe(true);
        expect(await runAsync(env, write(startBackfillTx))).toBe(true);
        const memory: StepMemory = {};
        const progress: BackfillProgress[] = [];
        await runBackfill(
          {
            step: (chunk) => runAsync(env, timedBackfillStep(chunk, memory)),
            countRows: (after, upTo) =>
              runAsync(
                env,
                read(() => countRows(after, upTo)),
              ),
          },
          { chunkIds: 40, onProgress: (p) => progress.push(p) },
        );
        expect(progress.length).toBeGreaterThan(3);
        expect(progress.at(-1)?.done).toBe(true);
        const embedded = store.search("backfilled", { limit: 500 });
        expect(embedded.hits.length).toBe(120);
        const got = await runAsync(env, runSearch("backfilled", { limit: 500 }, false));
        if (JSON.stringify(got) !== JSON.stringify(embedded))
          console.log(
            "BACKFILL",
            JSON.stringify(got).slice(0, 900),
            "\nEXPECTED",
            JSON.stringify(embedded).slice(0, 900),
          );
        expect(got).toEqual(embedded);
      });

      it("concurrent appends do not interleave inside each other's transactions", async () => {
        const appends = Array.from({ length: 12 }, (_, n) =>
          runAsync(
            env,
            messages.appendMessages(
              "s2",
              [1, 2, 3].map((k) => ({ role: "user" as const, content: `burst ${n}.${k}` })),
              10_000,
            ),
          ),
        );
        const results = await Promise.all(appends);
        for (const ids of results)
          expect(ids).toEqual([ids[0], (ids[0] as number) + 1, (ids[0] as number) + 2]);
        expect(new Set(results.flat()).size).toBe(36);
        expect((await runAsync(env, sessions.getSession("s2")))?.messageCount).toBe(36);
      });
    },
  );
}
