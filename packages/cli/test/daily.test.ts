/**
 * Daily use: usage and cost, list filters and pages, the pager, session upkeep (delete, prune,
 * rename, archive), reading a session (wrapping, folding, ranges), Markdown/HTML export with
 * redaction, display width, search counts, import progress, help for mistakes, small things.
 * Every test runs the built binary as a subprocess on real stores; terminal behaviour runs under
 * a real pseudo-terminal (`script` from util-linux), not a flag that pretends.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import type { Session, SessionSummary } from "@sessiondb/core";
import stringWidth from "string-width";
import { beforeAll, describe, expect, it } from "vitest";
import {
  CLI,
  cli,
  corpusStore,
  expectOneLineError,
  json,
  ONE_RUNTIME,
  runOn,
  TARGETS,
  type Target,
  tempDir,
  withStore,
} from "./helpers.js";

const PACKAGE_VERSION = (
  JSON.parse(fs.readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }
).version;

let dir: string;
/** The shared read-only store: a small corpus plus usage rows, a CJK/emoji title and a script tag. */
let db: string;
let sessions: SessionSummary[];

const MODELS = ["claude-sonnet-4", "gpt-4.1", "gemini-2.5-pro"];
const WIDE_TITLE = "修复数据库锁定问题并添加测试用例以及文档更新 🚀🚀 emoji 世界";

beforeAll(() => {
  dir = tempDir();
  db = path.join(dir, "daily.db");
  corpusStore(db, 600, 7);
  withStore(db, (store) => {
    const all = store.listSessions({ limit: 1_000_000, includeArchived: true, orderBy: "started" });
    all.forEach((s, k) => {
      store.recordUsage(s.id, {
        model: MODELS[k % 3] as string,
        inputTokens: 1000 * ((k % 7) + 1),
        outputTokens: 300 * ((k % 5) + 1),
        cacheReadTokens: 5000 * (k % 3),
        costUsd: 0.01 * ((k % 9) + 1),
      });
      if (k % 4 === 0)
        store.recordUsage(s.id, { model: MODELS[(k + 1) % 3] as string, inputTokens: 2000, costUsd: 0.005 });
    });
    store.updateSession(all[1]?.id as string, { title: WIDE_TITLE });
    store.createSession({ id: "hostile", source: "api", title: "<b>bold</b>", startedAt: 1_600_000_000 });
    store.appendMessage("hostile", {
      role: "user",
      content: '<script>alert("x")</script> & <img src=x onerror=alert(1)>',
    });
    sessions = store.listSessions({ limit: 1_000_000, includeArchived: true });
  });
});

/** A copy of the shared store (or of `from`), for tests that change it. */
function copyOf(name: string, from = db): string {
  const target = path.join(dir, name);
  for (const suffix of ["", "-wal"])
    if (fs.existsSync(from + suffix)) fs.copyFileSync(from + suffix, target + suffix);
  return target;
}

/** A store big enough that a paced prune or import next to a writer is still running when its
 * first sessions are done (8 000 messages): built once, on first use, for the three tests that
 * need one — a build is most of such a test's work, a copy is a file copy. */
let big: string | undefined;
function bigStore(): string {
  if (big === undefined) {
    big = path.join(dir, "big.db");
    corpusStore(big, 8_000, 5);
  }
  return big;
}

const quote = (arg: string) => `'${arg.replace(/'/g, "'\\''")}'`;

/** Run the CLI on a real pseudo-terminal of `rows`×`cols`; the output as the terminal got it. */
function onTerminal(
  target: Target,
  args: string[],
  options: { env?: Record<string, string>; rows?: number; cols?: number; input?: string } = {},
): { code: number | null; output: string } {
  const command = [...target.runtime, CLI, ...args].map(quote).join(" ");
  const r = spawnSync(
    "script",
    ["-qec", `stty rows ${options.rows ?? 24} cols ${options.cols ?? 100}; exec ${command}`, "/dev/null"],
    {
      encoding: "utf8",
      input: options.input ?? "",
      env: { ...process.env, NO_COLOR: "1", SESSIONDB_PATH: "", ...target.env, ...options.env },
    },
  );
  // Deno clears its own status line on a terminal (ESC[0G ESC[2K ESC[J) before running anything.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: terminal escape sequences
  const output = r.stdout.replace(/\r\n/g, "\n").replace(/\x1b\[[0-9;]*[A-Za-z]/g, "");
  return { code: r.status, output };
}

const hasScript = spawnSync("script", ["--version"]).status === 0;
if (!hasScript) console.warn("skipping the terminal tests: `script` (util-linux) is not installed");

const tokensOf = (s: Session) =>
  s.inputTokens + s.outputTokens + s.cacheReadTokens + s.cacheWriteTokens + s.reasoningTokens;

// Cases whose outcome can differ by runtime (terminal, files written, binding, Intl formatting,
// display width): on every runtime. The rest below run on one (helpers' ONE_RUNTIME says why).
describe.each(TARGETS)("$name", (target) => {
  const run = runOn(target);

  it("sessions list and show carry tokens and cost", () => {
    const s = sessions.find((x) => x.estimatedCostUsd > 0 && x.id !== "hostile") as Session;
    const list = run(["--db", db, "sessions", "list", "--limit", "1000", "--no-pager"]);
    expect(list.stdout.split("\n")[0]).toMatch(/MSGS\s+TOKENS\s+COST/);
    const line = list.stdout.split("\n").find((l) => l.startsWith(s.id)) as string;
    expect(line).toContain(tokensOf(s).toLocaleString("en-US"));
    const dollars = s.estimatedCostUsd.toLocaleString("en-US", {
      minimumFractionDigits: 2,
      maximumFractionDigits: 2,
    });
    expect(line).toContain(`$${dollars}`);
    const show = run(["--db", db, "sessions", "show", s.id, "--limit", "1"]);
    expect(show.stdout).toContain(`${tokensOf(s).toLocaleString("en-US")} tokens`);
    expect(show.stdout).toContain(`cost $${dollars}`);
  });

  it.skipIf(!hasScript)(
    "a long list goes through $PAGER on a terminal, not with --no-pager or in a pipe",
    () => {
      const env = { PAGER: "sed s/^/PAGED:/" };
      const paged = onTerminal(target, ["--db", db, "sessions", "list"], { env, rows: 10 });
      expect(paged.code).toBe(0);
      const lines = paged.output.split("\n").filter(Boolean);
      expect(lines.length).toBeGreaterThan(10);
      expect(lines.every((l) => l.startsWith("PAGED:"))).toBe(true);
      const direct = onTerminal(target, ["--db", db, "sessions", "list", "--no-pager"], { env, rows: 10 });
      expect(direct.output).not.toContain("PAGED:");
      expect(direct.output).toContain("TITLE / FIRST MESSAGE");
      // Fits the screen: written directly, no pager started.
      const short = onTerminal(target, ["--db", db, "sessions", "list", "--limit", "3"], { env, rows: 40 });
      expect(short.output).not.toContain("PAGED:");
      const piped = cli(["--db", db, "sessions", "list"], {
        runtime: target.runtime,
        env: { ...target.env, ...env },
      });
      expect(piped.stdout).not.toContain("PAGED:");
      // A pager that is not installed: the shell that would start it says so, and the list is
      // printed directly.
      for (const missing of ["no-such-pager-sessiondb", "/dev/null"]) {
        const fallback = onTerminal(target, ["--db", db, "sessions", "list"], {
          env: { PAGER: missing },
          rows: 10,
        });
        expect(fallback.code, missing).toBe(0);
        expect(fallback.output, missing).toContain("TITLE / FIRST MESSAGE");
      }
    },
  );

  it("tables fit the terminal width with CJK and emoji titles cut by display width", () => {
    // 90: the title column gets what the fixed columns (~72) leave; 120: more of it.
    for (const cols of [90, 120]) {
      const r = cli(["--db", db, "sessions", "list", "--limit", "1000"], {
        runtime: target.runtime,
        env: { ...target.env, COLUMNS: String(cols) },
      });
      const lines = r.stdout.trimEnd().split("\n");
      for (const line of lines) expect(stringWidth(line), line).toBeLessThanOrEqual(cols);
      const wide = lines.find((l) => l.includes("修复")) as string;
      expect(wide).toMatch(/…$/);
      expect(stringWidth(wide)).toBeGreaterThan(cols - 2);
      // The title starts at the same display column as the header's TITLE.
      const header = lines[0] as string;
      expect(stringWidth(wide.slice(0, wide.indexOf("修复")))).toBe(header.indexOf("TITLE"));
    }
  });

  it("--version is the package's, and loads no SQLite binding (works with an unusable driver choice)", () => {
    const r = cli(["--version"], {
      runtime: target.runtime,
      env: { ...target.env, SESSIONDB_DRIVER: "no-such-driver" },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${PACKAGE_VERSION}\n`);
    expect(cli(["--help"], { runtime: target.runtime, env: target.env }).stdout).toContain(
      `sessiondb ${PACKAGE_VERSION}`,
    );
  });

  it("export: Markdown and HTML, one document or a file per session; filters; HTML escaped", () => {
    const md = run(["--db", db, "export", "--format", "md", "--session", "hostile"]);
    expect(md.code).toBe(0);
    expect(md.stdout).toMatch(/^# <b>bold<\/b>\n\n- id hostile/);
    expect(md.stdout).toContain("## user · #");
    const page = run(["--db", db, "export", "--format", "html", "--session", "hostile"]);
    expect(page.stdout).toMatch(/^<!doctype html>/);
    expect(page.stdout).toContain(
      "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;img src=x onerror=alert(1)&gt;",
    );
    expect(page.stdout).toContain("<h1>&lt;b&gt;bold&lt;/b&gt;</h1>");
    expect(page.stdout).not.toMatch(/<script|<img|<b>/);
    const folder = path.join(dir, `${target.name.replace(/\W/g, "_")}-pages`);
    const since = sessions.map((s) => s.startedAt).sort((a, b) => b - a)[4] as number;
    const r = run([
      "--db",
      db,
      "export",
      "--format",
      "html",
      "--output-dir",
      folder,
      "--since",
      String(since),
    ]);
    expect(r.code, r.stderr).toBe(0);
    const expected = sessions.filter((s) => s.startedAt >= since).map((s) => `${s.id}.html`);
    expect(fs.readdirSync(folder).sort()).toEqual(expected.sort());
    expect(r.stderr).toContain(`exported ${expected.length} sessions`);
    const gpt = run(["--db", db, "export", "--source", "api"]);
    const records = gpt.stdout.split("\n").filter((l) => l.includes('"type":"session"'));
    expect(records.length).toBe(sessions.filter((s) => s.source === "api").length);
  });

  it("export --output-dir never writes the store: a session named like the store file is refused", () => {
    const folder = path.join(dir, `${target.name.replace(/\W/g, "_")}-clash`);
    fs.mkdirSync(folder);
    const store = path.join(folder, "clash.md");
    withStore(store, (st) => st.createSession({ id: "clash", source: "cli" }));
    const before = fs.readFileSync(store);
    const r = run(["--db", store, "export", "--format", "md", "--output-dir", folder]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/clash\.md/);
    expect(fs.readFileSync(store).equals(before)).toBe(true);
  });

  it("sessions delete: --yes needed off a terminal; unknown ids delete nothing", () => {
    const file = copyOf(`${target.name.replace(/\W/g, "_")}-delete.db`);
    const [a, b] = [sessions[2]?.id as string, sessions[3]?.id as string];
    const refused = run(["--db", file, "sessions", "delete", a]);
    expectOneLineError(refused, 2, "USAGE");
    expect(refused.stderr).toContain("add --yes");
    expectOneLineError(run(["--db", file, "sessions", "delete", a, "nope", "--yes"]), 7, "SESSION_NOT_FOUND");
    expect(withStore(file, (s) => s.getSession(a), { readOnly: true })).toBeDefined();
    const done = json(run(["--db", file, "sessions", "delete", a, b, "--yes", "--json"]));
    const counted = sessions[2]?.messageCount ?? 0;
    expect(done.deleted.sessions).toBe(2);
    expect(done.deleted.messages).toBe(counted + (sessions[3]?.messageCount ?? 0));
    expect(withStore(file, (s) => [s.getSession(a), s.getSession(b)], { readOnly: true })).toEqual([
      undefined,
      undefined,
    ]);
    expect(cli(["--db", file, "check"]).code).toBe(0);
  });

  it("vacuum gives the space of deleted sessions back (--json); --full where the binding can VACUUM", () => {
    const file = copyOf(`${target.name.replace(/\W/g, "_")}-vacuum.db`);
    const doomed = sessions.slice(0, 20).map((s) => s.id);
    expect(run(["--db", file, "sessions", "delete", ...doomed, "--yes"]).code).toBe(0);
    const sizeBefore = fs.statSync(file).size;
    const r = run(["--db", file, "vacuum", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const result = json(r);
    expect(result.method).toBe("incremental");
    expect(result.bytesAfter).toBeLessThan(result.bytesBefore);
    expect(result.reclaimableBytes).toBe(0);
    expect(fs.statSync(file).size).toBeLessThan(sizeBefore);
    expect(run(["--db", file, "vacuum"]).stdout).toMatch(/^vacuumed .* \(incremental\): /);
    const full = run(["--db", file, "vacuum", "--full", "--json"]);
    if (full.code === 6) {
      // A binding that allows no attached database (Deno's node:sqlite) cannot VACUUM.
      expectOneLineError(full, 6, "DRIVER_UNAVAILABLE");
      expect(full.stderr).toContain("cannot run a full VACUUM");
    } else {
      expect(full.code, full.stderr).toBe(0);
      expect(json(full).method).toBe("full");
    }
    expect(cli(["--db", file, "check"]).code).toBe(0);
  });
});

// The same CLI code on every runtime (usage sums, filters, pages, ranges, search counts, help for
// mistakes, redaction, session upkeep): one runtime suffices; the conformance suites run the
// Store calls beneath them on every driver.
describe.each(ONE_RUNTIME)("$name (runtime-independent)", (target) => {
  const run = runOn(target);

  it("a Node whose require takes no ES modules measures wide text the same (its width table loaded before the command)", () => {
    // The CLI loads get-east-asian-width with require on the first text that needs it; where
    // require cannot load an ES module (Node 20.16–20.18, or this flag) it must have loaded it first.
    const list = (flags: string[]) =>
      cli(["--db", db, "sessions", "list", "--limit", "1000"], {
        runtime: [process.execPath, ...flags],
        env: { COLUMNS: "90" },
      });
    const usual = list([]);
    const older = list(["--no-experimental-require-module"]);
    expect(older.code, older.stderr).toBe(0);
    expect(older.stdout).toContain("修复");
    expect(older.stdout).toBe(usual.stdout);
  });

  it("usage: totals and per model/source/day match the recorded usage; --since/--until narrow it", () => {
    const report = json(run(["--db", db, "usage", "--json"]));
    expect(report.total.sessions).toBe(sessions.length);
    expect(report.total.tokens).toBe(sessions.reduce((n, s) => n + tokensOf(s), 0));
    expect(report.total.cost).toBeCloseTo(
      sessions.reduce((n, s) => n + s.estimatedCostUsd, 0),
      9,
    );
    const perModel = withStore(
      db,
      (store) => {
        const calls = new Map<string, number>();
        for (const s of sessions)
          for (const row of store.getUsage(s.id))
            calls.set(row.model, (calls.get(row.model) ?? 0) + row.callCount);
        return calls;
      },
      { readOnly: true },
    );
    expect(
      Object.fromEntries(report.byModel.map((m: { model: string; calls: number }) => [m.model, m.calls])),
    ).toEqual(Object.fromEntries(perModel));
    const sources = new Set(sessions.map((s) => s.source));
    expect(new Set(report.bySource.map((s: { source: string }) => s.source))).toEqual(sources);
    // Every grouping counts the calls: per source as recorded, and each adds up to the total.
    const callsOf = (id: string) =>
      withStore(db, (store) => store.getUsage(id).reduce((n, row) => n + row.callCount, 0), {
        readOnly: true,
      });
    const perSource = new Map<string, number>();
    for (const s of sessions) perSource.set(s.source, (perSource.get(s.source) ?? 0) + callsOf(s.id));
    expect(
      Object.fromEntries(report.bySource.map((g: { source: string; calls: number }) => [g.source, g.calls])),
    ).toEqual(Object.fromEntries(perSource));
    const sum = (groups: Array<{ calls: number }>) => groups.reduce((n, g) => n + g.calls, 0);
    expect(report.total.calls).toBeGreaterThan(0);
    expect(sum(report.bySource)).toBe(report.total.calls);
    expect(sum(report.byDay)).toBe(report.total.calls);
    expect(sum(report.byModel)).toBe(report.total.calls);
    const human = run(["--db", db, "usage", "--by", "model"]);
    expect(human.code).toBe(0);
    for (const model of MODELS)
      expect(human.stdout).toMatch(new RegExp(`^${model.replace(/\./g, "\\.")}\\s+\\d`, "m"));
    // The range: sessions started in the second half only.
    const sorted = sessions.map((s) => s.startedAt).sort((a, b) => a - b);
    const since = sorted[Math.floor(sorted.length / 2)] as number;
    const narrowed = json(run(["--db", db, "usage", "--json", "--since", String(since)]));
    expect(narrowed.total.sessions).toBe(sessions.filter((s) => s.startedAt >= since).length);
    const until = json(run(["--db", db, "usage", "--json", "--until", String(since)]));
    expect(until.total.sessions + narrowed.total.sessions).toBe(sessions.length);
  });

  it("sessions list filters: --model, --since/--until, --min-cost, --min-tokens, --search", () => {
    const ids = (args: string[]) =>
      json(run(["--db", db, "sessions", "list", "--json", "--limit", "1000", ...args]))
        .sessions.map((s: Session) => s.id)
        .sort();
    const expected = (keep: (s: Session) => boolean) =>
      sessions
        .filter((s) => !s.archived && keep(s))
        .map((s) => s.id)
        .sort();
    expect(ids(["--model", "GPT"])).toEqual(expected((s) => (s.model ?? "").toLowerCase().includes("gpt")));
    const mid = sessions.map((s) => s.startedAt).sort((a, b) => a - b)[10] as number;
    expect(ids(["--since", String(mid)])).toEqual(expected((s) => s.startedAt >= mid));
    expect(ids(["--until", String(mid)])).toEqual(expected((s) => s.startedAt < mid));
    expect(ids(["--min-cost", "0.05"])).toEqual(expected((s) => s.estimatedCostUsd >= 0.05));
    expect(ids(["--min-tokens", "10000"])).toEqual(expected((s) => tokensOf(s) >= 10_000));
    const bySearch = ids(["--search", "alert"]);
    expect(bySearch).toEqual(["hostile"]);
    expect(ids(["--model", "gpt", "--min-cost", "0.05"])).toEqual(
      expected((s) => (s.model ?? "").includes("gpt") && s.estimatedCostUsd >= 0.05),
    );
  });

  it('a cut page says "N of M sessions"; --json has the total', () => {
    const r = run(["--db", db, "sessions", "list", "--limit", "5"]);
    const total = sessions.filter((s) => !s.archived).length;
    expect(r.stdout.trimEnd().split("\n").at(-1)).toBe(`5 of ${total} sessions · --offset 5 for more`);
    expect(json(run(["--db", db, "sessions", "list", "--limit", "5", "--json"])).total).toBe(total);
    const whole = run(["--db", db, "sessions", "list", "--limit", "1000"]);
    expect(whole.stdout).not.toMatch(/ of \d+ sessions/);
  });

  it("sessions show: --last N, --range, --from/--to select by message id; folded system prompt", () => {
    const s = sessions.find((x) => x.messageCount >= 10 && x.id !== "hostile") as Session;
    const all = withStore(db, (store) => store.getMessages(s.id), { readOnly: true });
    const idsOf = (args: string[]) =>
      json(run(["--db", db, "sessions", "show", s.id, "--json", ...args])).messages.map(
        (m: { id: number }) => m.id,
      );
    expect(idsOf(["--last", "3"])).toEqual(all.slice(-3).map((m) => m.id));
    const [a, b] = [all[2]?.id as number, all[5]?.id as number];
    expect(idsOf(["--range", `${a}..${b}`])).toEqual(all.slice(2, 6).map((m) => m.id));
    expect(idsOf(["--from", String(a), "--to", String(b)])).toEqual(all.slice(2, 6).map((m) => m.id));
    expect(idsOf(["--range", `${b}..`])).toEqual(all.slice(5).map((m) => m.id));
    expect(run(["--db", db, "sessions", "show", s.id, "--last", "2", "--limit", "2"]).code).toBe(2);
    expect(run(["--db", db, "sessions", "show", s.id, "--range", "9..3"]).stderr).toContain(
      "starts after it ends",
    );
    const system = all.find((m) => m.role === "system");
    if (system) {
      const folded = run(["--db", db, "sessions", "show", s.id]).stdout;
      expect(folded).toMatch(/more characters \(--full shows all\)/);
      expect(folded).not.toContain(String(system.content).slice(-200));
      expect(run(["--db", db, "sessions", "show", s.id, "--full"]).stdout.replace(/\n {2}/g, " ")).toContain(
        String(system.content).slice(-60),
      );
    }
  });

  it("sessions show wraps to the terminal width (COLUMNS), display width counted", () => {
    const s = sessions.find((x) => x.messageCount >= 10 && x.id !== "hostile") as Session;
    const r = run(["--db", db, "sessions", "show", s.id, "--full"]);
    const wrapped = cli(["--db", db, "sessions", "show", s.id, "--full"], {
      runtime: target.runtime,
      env: { ...target.env, COLUMNS: "50" },
    });
    expect(wrapped.code).toBe(0);
    const widths = wrapped.stdout.split("\n").map((l) => stringWidth(l));
    // Header lines (ids, facts) are not wrapped; message text is.
    const body = wrapped.stdout.split("\n").filter((l) => l.startsWith("  "));
    expect(Math.max(...body.map((l) => stringWidth(l)))).toBeLessThanOrEqual(50);
    expect(widths.length).toBeGreaterThan(r.stdout.split("\n").length);
    // No word lost: the same words in the same order.
    const words = (text: string) => text.split(/\s+/).filter(Boolean);
    expect(words(wrapped.stdout)).toEqual(words(r.stdout));
  });

  it("search: the count says when more hits exist; a capped --limit warns; --json errors stay off stdout", () => {
    const few = run(["--db", db, "search", "build", "--limit", "2"]);
    expect(few.stdout.split("\n")[0]).toMatch(/^2 shown, more available \(--offset 2\)/);
    expect(json(run(["--db", db, "search", "build", "--limit", "2", "--json"])).more).toBe(true);
    const one = json(run(["--db", db, "search", "alert", "--limit", "5", "--json"]));
    expect(one.hits).toHaveLength(1);
    expect(one.more).toBe(false);
    const capped = run(["--db", db, "search", "build", "--limit", "5000", "--json"]);
    expect(capped.code).toBe(0);
    expect(capped.stderr).toContain("--limit 5,000 is capped at 1,000");
    expect(json(capped).hits.length).toBeLessThanOrEqual(1000);
    const bad = run(["--db", db, "search", "x", "--sort", "nope", "--json"]);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe("");
    expect(JSON.parse(bad.stderr).error).toMatchObject({ code: "USAGE", exit: 2 });
  });

  it("mistakes get help: did you mean, a negative --limit, --db without a value", () => {
    for (const [typed, meant] of [
      [["stat"], "stats"],
      [["sesions"], "sessions"],
      [["sessions", "lsit"], "sessions list"],
      [["usgae"], "usage"],
    ] as const) {
      const r = run(["--db", db, ...typed]);
      expectOneLineError(r, 2, "USAGE");
      expect(r.stderr).toContain(`did you mean "${meant}"?`);
    }
    const negative = run(["--db", db, "sessions", "list", "--limit", "-5"]);
    expectOneLineError(negative, 2, "USAGE");
    expect(negative.stderr).toContain('--limit expects a non-negative integer, got "-5"');
    for (const args of [
      ["stats", "--db"],
      ["stats", "--db", "--json"],
    ]) {
      const r = run(args);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--db needs a value/);
    }
  });

  it("sizes are labelled in KiB/MiB (base 1024)", () => {
    const r = run(["--db", db, "stats"]);
    expect(r.stdout).toMatch(/^size\s+[\d.]+ (KiB|MiB) \(db [\d.]+ (KiB|MiB)/m);
    expect(r.stdout).not.toMatch(/\d (KB|MB)\b/);
  });

  it("export --redact: literal and /regex/ secrets are gone from every format", () => {
    const s = sessions.find((x) => x.messageCount >= 10 && x.id !== "hostile") as Session;
    const text = run(["--db", db, "export", "--session", s.id]).stdout;
    const token = /tk[0-9a-z]{14}/.exec(text)?.[0];
    const word = "Dockerfile";
    for (const format of ["jsonl", "markdown", "html"]) {
      const r = run([
        "--db",
        db,
        "export",
        "--session",
        s.id,
        "--format",
        format,
        "--redact",
        "/tk[0-9a-z]{14}/",
        "--redact",
        "build",
      ]);
      expect(r.code, r.stderr).toBe(0);
      if (token) expect(r.stdout).not.toContain(token);
      expect(r.stdout).not.toMatch(/build/);
      expect(r.stdout).toContain("[REDACTED]");
    }
    // JSONL stays importable: ids are kept, so a redacted export imports.
    const out = path.join(dir, `${target.name.replace(/\W/g, "_")}-redacted.jsonl`);
    expect(run(["--db", db, "export", "--session", s.id, "--redact", word, "--output", out]).code).toBe(0);
    const copy = path.join(dir, `${target.name.replace(/\W/g, "_")}-redacted.db`);
    expect(run(["--db", copy, "import", out]).code).toBe(0);
    expect(run(["--db", db, "export", "--redact", "/(/"]).stderr).toContain("not a valid regular expression");
  });

  it("rename, archive and unarchive", () => {
    const file = copyOf(`${target.name.replace(/\W/g, "_")}-manage.db`);
    const id = sessions[0]?.id as string;
    expect(run(["--db", file, "sessions", "rename", id, "a", "new", "title"]).stdout).toContain(
      '"a new title"',
    );
    expect(withStore(file, (s) => s.getSession(id)?.title, { readOnly: true })).toBe("a new title");
    expect(run(["--db", file, "sessions", "rename", id, ""]).stdout).toContain("title removed");
    expect(run(["--db", file, "sessions", "archive", id]).stdout).toBe("archived 1 session\n");
    const listed = (args: string[] = []) =>
      json(run(["--db", file, "sessions", "list", "--json", "--limit", "1000", ...args])).sessions.map(
        (s: Session) => s.id,
      );
    expect(listed()).not.toContain(id);
    expect(listed(["--archived"])).toContain(id);
    expect(run(["--db", file, "sessions", "unarchive", id]).code).toBe(0);
    expect(listed()).toContain(id);
    // An id named twice is one session.
    expect(json(run(["--db", file, "sessions", "archive", id, id, "--json"]))).toEqual({
      archived: [id],
      unchanged: 0,
    });
    expect(run(["--db", file, "sessions", "unarchive", id, id]).stdout).toBe("unarchived 1 session\n");
    const missing = run(["--db", file, "sessions", "archive", id, "nope"]);
    expectOneLineError(missing, 7, "SESSION_NOT_FOUND");
  });

  it("prune --older-than: --dry-run changes nothing; pinned and recent sessions stay", () => {
    const file = copyOf(`${target.name.replace(/\W/g, "_")}-prune.db`);
    const pinned = sessions[4]?.id as string;
    withStore(file, (s) => {
      s.updateSession(pinned, { pinned: true });
      s.createSession({ id: "recent", source: "cli" });
      s.appendMessage("recent", { role: "user", content: "hello" });
    });
    const cutoff = Date.now() / 1000 - 30 * 86_400;
    const recent = sessions.filter((s) => s.lastActiveAt >= cutoff).map((s) => s.id);
    const old = sessions.length - recent.length - 1;
    const dry = run(["--db", file, "prune", "--older-than", "30d", "--dry-run"]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`would delete ${old} sessions`);
    expect(dry.stdout).toContain("1 pinned session kept");
    expect(
      withStore(file, (s) => s.listSessions({ limit: 1000, includeArchived: true }).length, {
        readOnly: true,
      }),
    ).toBe(sessions.length + 1);
    expect(run(["--db", file, "prune", "--older-than", "30d"]).code).toBe(2);
    const r = json(run(["--db", file, "prune", "--older-than", "30d", "--yes", "--json"]));
    expect(r.deleted.sessions).toBe(old);
    const left = withStore(
      file,
      (s) => s.listSessions({ limit: 1000, includeArchived: true }).map((x) => x.id),
      {
        readOnly: true,
      },
    );
    expect(left.sort()).toEqual([pinned, "recent", ...recent].sort());
    expect(run(["--db", file, "prune", "--older-than", "soon"]).stderr).toContain(
      "expects an age such as 90d",
    );
  });
});

describe("on a terminal (node)", () => {
  const node = TARGETS[0] as Target;

  it.skipIf(!hasScript)("sessions delete asks; n keeps the session, y deletes it", () => {
    const file = copyOf("confirm.db");
    const id = sessions[5]?.id as string;
    const no = onTerminal(node, ["--db", file, "sessions", "delete", id], { input: "n\n" });
    expect(no.output).toMatch(/Delete session .* \[y\/N\]/);
    expect(no.output).toContain("nothing was deleted");
    expect(withStore(file, (s) => s.getSession(id), { readOnly: true })).toBeDefined();
    const yes = onTerminal(node, ["--db", file, "sessions", "delete", id], { input: "y\n" });
    expect(yes.code).toBe(0);
    expect(yes.output).toContain("deleted 1 session");
    expect(withStore(file, (s) => s.getSession(id), { readOnly: true })).toBeUndefined();
  });

  it.skipIf(!hasScript)("import draws a progress bar on a terminal, and nothing off one", () => {
    const jsonl = path.join(dir, "progress.jsonl");
    expect(cli(["--db", db, "export", "--output", jsonl]).code).toBe(0);
    const target = path.join(dir, "progress.db");
    const r = onTerminal(node, ["--db", target, "import", jsonl]);
    expect(r.code).toBe(0);
    expect(r.output).toMatch(/import {2}\[#{24}\] {2}100\.0% {2}[\d,]+\/[\d,]+ messages/);
    const piped = cli(["--db", path.join(dir, "progress2.db"), "import", jsonl]);
    expect(piped.stderr).toBe("");
  });

  it("the 100% progress line is printed once (plain lines off a terminal)", () => {
    const file = copyOf("backfill-once.db");
    withStore(file, (s) => s.startFtsBackfill());
    const r = cli(["--db", file, "fts", "backfill", "--chunk", "100"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split("\n").filter((l) => l.includes("100.0%"))).toHaveLength(1);
    // A job done in its first step has no rate to show: no "0 rows/s" beside "100.0%".
    const small = path.join(dir, "one-step.db");
    withStore(small, (s) => {
      s.createSession({ id: "s", source: "cli" });
      s.appendMessage("s", { role: "user", content: "one step" });
    });
    const rebuilt = cli(["--db", small, "fts", "rebuild"]);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(rebuilt.stderr).toContain("100.0%");
    expect(rebuilt.stderr).not.toMatch(/ 0 rows\/s/);
  });

  it("a prune lets another process write between its deletes", async () => {
    const file = copyOf("prune-live.db", bigStore());
    const corpus = withStore(
      file,
      (s) => s.listSessions({ limit: 1_000_000, includeArchived: true }).length,
      {
        readOnly: true,
      },
    );
    const { spawn } = await import("node:child_process");
    const child = spawn(
      node.runtime[0] as string,
      [CLI, "--db", file, "prune", "--older-than", "1d", "--yes"],
      {
        env: { ...process.env, ...node.env },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    let appended = 0;
    /** Appends that landed with some of the corpus deleted and some not: between two deletes. */
    let between = 0;
    let running = true;
    void exited.then(() => {
      running = false;
    });
    withStore(file, (s) => s.createSession({ id: "writer", source: "cli" }));
    while (running) {
      // A short patience: an append that waited for a whole prune would fail here.
      const left = withStore(
        file,
        (s) => {
          s.appendMessage("writer", { role: "user", content: `m${appended}` });
          return s.listSessions({ limit: 1_000_000, includeArchived: true }).length - 1;
        },
        { patience: { openMs: 2000, writeMs: 2000, appendMs: 2000 } },
      );
      appended++;
      if (left > 0 && left < corpus) between++;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(await exited).toBe(0);
    expect(appended).toBeGreaterThan(0);
    // A prune in one transaction would show the writer all of the corpus or none of it.
    expect(between).toBeGreaterThan(0);
    expect(withStore(file, (s) => s.messageCount("writer"), { readOnly: true })).toBe(appended);
    // A paced delete of 20 000 messages next to a writer took 38 s in a loaded CI run
    // (2026-12-04); of 8 000, it is about two fifths of that.
  }, 180_000);

  it("Ctrl-C mid-prune: exit 130, every session gone whole or untouched", async () => {
    const file = copyOf("prune-interrupted.db", bigStore());
    const counts = () =>
      withStore(
        file,
        (s) =>
          new Map(
            s.listSessions({ limit: 1_000_000, includeArchived: true }).map((x) => [x.id, x.messageCount]),
          ),
        { readOnly: true },
      );
    const before = counts();
    withStore(file, (s) => s.createSession({ id: "writer", source: "cli" }));
    const { spawn } = await import("node:child_process");
    const child = spawn(
      node.runtime[0] as string,
      [CLI, "--db", file, "prune", "--older-than", "1d", "--yes"],
      { env: { ...process.env, ...node.env }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stderr = "";
    child.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    // A writer next to the prune keeps it paced (a pause after each short step), so it is still
    // running when the first sessions are gone.
    for (let i = 0; counts().size > before.size; i++) {
      withStore(file, (s) => s.appendMessage("writer", { role: "user", content: `m${i}` }));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(stderr).toMatch(/interrupted after deleting [\d,]+ sessions? of [\d,]+; the rest are intact/);
    const after = counts();
    expect(after.size).toBeGreaterThan(1);
    for (const [id, messages] of before) {
      if (after.has(id)) expect(after.get(id), id).toBe(messages);
    }
    expect(withStore(file, (s) => s.checkIntegrity(), { readOnly: true }).ok).toBe(true);
  });

  it("Ctrl-C mid-import next to a writer: exit 130, each session whole or absent; a second run finishes", async () => {
    const counts = (file: string) =>
      withStore(
        file,
        (s) =>
          new Map(
            s
              .listSessions({ limit: 1_000_000, includeArchived: true })
              .filter((x) => x.id !== "writer")
              .map((x) => [x.id, x.messageCount]),
          ),
        { readOnly: true },
      );
    // Big enough that the paced import is still running when its first sessions are in (the
    // writer keeps its steps short), small enough to export and import twice on a loaded machine.
    // Only read here.
    const source = bigStore();
    const jsonl = path.join(dir, "import-interrupted.jsonl");
    expect(cli(["--db", source, "export", "--output", jsonl]).code).toBe(0);
    const expected = counts(source);
    const file = path.join(dir, "import-interrupted.db");
    withStore(file, (s) => s.createSession({ id: "writer", source: "cli" }));
    const { spawn } = await import("node:child_process");
    const child = spawn(node.runtime[0] as string, [CLI, "--db", file, "import", jsonl], {
      env: { ...process.env, ...node.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    // The writer keeps the import paced (short steps, a pause after each), so it is still running
    // when its first sessions are in; the writer's appends never wait past a short patience.
    let appended = 0;
    for (; counts(file).size === 0; appended++) {
      withStore(file, (s) => s.appendMessage("writer", { role: "user", content: `m${appended}` }), {
        patience: { openMs: 2000, writeMs: 2000, appendMs: 2000 },
      });
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(stderr).toMatch(
      /interrupted after [\d,]+ sessions? of [\d,]+; each session is imported whole or not at all/,
    );
    const mid = counts(file);
    expect(mid.size).toBeGreaterThan(0);
    expect(mid.size).toBeLessThan(expected.size);
    for (const [id, messages] of mid) expect(messages, id).toBe(expected.get(id));
    expect(withStore(file, (s) => s.messageCount("writer"), { readOnly: true })).toBe(appended);

    const again = cli(["--db", file, "import", jsonl, "--json"]);
    expect(again.code, again.stderr).toBe(0);
    expect(json(again).sessions).toMatchObject({ imported: expected.size - mid.size, skipped: mid.size });
    expect(counts(file)).toEqual(expected);
    expect(withStore(file, (s) => s.checkIntegrity(), { readOnly: true }).ok).toBe(true);
    // Its work (a corpus built, exported, imported twice) grows with the machine's load, and no
    // step waits on a clock: the budget only has to catch a hang.
  }, 240_000);
});
