/**
 * Text makers for the corpus: prose, code, logs, stack traces, JSON, directory listings, grep
 * output, and non-Latin text. Each draws only from the PRNG it is given, so output is a pure
 * function of the seed. Vocabularies are small on purpose: real transcripts repeat words a lot,
 * which is what makes FTS posting lists long.
 */
import type { Prng } from "./prng.js";

const WORDS = (
  "the a to of and in is it that for on with this be as you not are we can use file function " +
  "error test build run change update fix add remove check config value type return import " +
  "module package server client request response database query index table column row cache " +
  "session message user agent tool model token stream buffer timeout retry lock write read " +
  "path directory version release branch commit merge deploy container process thread memory " +
  "should would could need want try look see find make sure then now also just still because " +
  "when where which what why how first next last new old same different failing passing " +
  "connection refused handler middleware schema migration parser compiler runtime bundle"
).split(" ");

const OPENERS = [
  "Can you",
  "Please",
  "I need you to",
  "Could you",
  "Let's",
  "Help me",
  "Why does",
  "How do I",
];
const ASKS = [
  "fix the failing test in",
  "refactor",
  "explain what happens in",
  "add logging to",
  "find out why the build breaks in",
  "write a migration for",
  "speed up",
  "review the changes to",
];
const FILES = [
  "src/server.ts",
  "src/db/schema.ts",
  "lib/cache.js",
  "app/models/user.py",
  "cmd/main.go",
  "src/lib.rs",
  "packages/api/index.ts",
  "my-app.config.ts",
  "Dockerfile",
  "scripts/deploy.sh",
  "tests/integration/session.test.ts",
  "src/components/Chat.tsx",
  "internal/store/store.go",
];
const TOOLS = ["read_file", "bash", "grep", "write_file", "list_dir", "http_get", "run_tests", "edit_file"];

/** Chinese and Japanese phrases: unicode61 cannot segment them, trigram can. */
const CJK = [
  "数据库连接失败",
  "请帮我修复这个问题",
  "配置文件",
  "服务器错误",
  "用户会话",
  "性能测试",
  "全文索引",
  "查询太慢了",
  "日志文件",
  "重新构建",
  "データベース接続",
  "エラーが発生しました",
  "設定ファイルを確認してください",
  "テストが失敗しました",
  "検索インデックス",
  "このコードを説明して",
];
/** Cyrillic, Greek, Arabic, Hebrew, Hindi and a few emoji (astral: surrogate pairs). */
const OTHER_SCRIPTS = [
  "ошибка подключения к базе данных",
  "Пожалуйста, проверьте журнал",
  "σφάλμα διακομιστή",
  "خطأ في الاتصال",
  "שגיאה בקובץ",
  "फ़ाइल नहीं मिली",
  "Größe überschritten",
  "café résumé naïve",
  "🚀 deployed",
  "✅ tests passed",
  "🔥 hot path",
  "⚠️ warning",
];

/** Words of English-ish prose, `chars` long or a bit more. */
export function prose(rng: Prng, chars: number): string {
  const out: string[] = [];
  let length = 0;
  let sentence = 0;
  while (length < chars) {
    let word = rng.pick(WORDS);
    if (sentence === 0) word = word[0]?.toUpperCase() + word.slice(1);
    sentence++;
    if (sentence > 6 && rng.chance(0.15)) {
      word += ".";
      sentence = 0;
    } else if (rng.chance(0.04)) {
      word += ",";
    }
    out.push(word);
    length += word.length + 1;
  }
  return `${out.join(" ")}.`;
}

/** Text in a non-Latin script, `chars` long or a bit more. */
export function nonLatin(rng: Prng, chars: number, cjk: boolean): string {
  const out: string[] = [];
  let length = 0;
  while (length < chars) {
    const phrase = cjk ? rng.pick(CJK) : rng.pick(OTHER_SCRIPTS);
    out.push(phrase);
    length += phrase.length + 1;
    if (cjk && rng.chance(0.2)) out.push("。");
  }
  return out.join(cjk ? "" : " ");
}

/** A user request. */
export function userRequest(rng: Prng): string {
  const file = rng.pick(FILES);
  const head = `${rng.pick(OPENERS)} ${rng.pick(ASKS)} ${file}?`;
  const extra = rng.chance(0.6) ? ` ${prose(rng, rng.int(20, 400))}` : "";
  const paste = rng.chance(0.12) ? `\n\n\`\`\`\n${stackTrace(rng, rng.int(300, 1500))}\n\`\`\`` : "";
  return head + extra + paste;
}

/** A source file excerpt in one of a few languages, at least `chars` long. */
export function code(rng: Prng, chars: number): string {
  const lines: string[] = [];
  let length = 0;
  let n = 0;
  while (length < chars) {
    const name = `${rng.pick(WORDS)}${rng.pick(["Handler", "Store", "Config", "Result", "Index"])}`;
    const line = rng.pick([
      `export function ${name}(input: string, options?: Options): Promise<${name}> {`,
      `  const ${rng.pick(WORDS)} = await db.prepare("SELECT * FROM ${rng.pick(WORDS)} WHERE id = ?").get(id);`,
      `  if (!${rng.pick(WORDS)}) throw new Error(\`${rng.pick(WORDS)} not found: \${id}\`);`,
      `  return { ok: true, value: ${rng.int(0, 99999)}, label: "${rng.pick(WORDS)}" };`,
      "}",
      `def ${rng.pick(WORDS)}_${rng.pick(WORDS)}(self, value: int = ${rng.int(0, 100)}) -> dict:`,
      `    for item in self.${rng.pick(WORDS)}s: yield item.${rng.pick(WORDS)}`,
      `func (s *${name}) ${rng.pick(WORDS)}(ctx context.Context) error {`,
      `// TODO(${rng.pick(["alice", "bob", "dev"])}): ${prose(rng, 30)}`,
      `import { ${name} } from "./${rng.pick(WORDS)}.js";`,
    ]);
    lines.push(`${String(++n).padStart(4)}  ${line}`);
    length += line.length + 7;
  }
  return lines.join("\n");
}

/** Timestamped log lines with levels, at least `chars` long. */
export function logs(rng: Prng, chars: number): string {
  const lines: string[] = [];
  let length = 0;
  let t = rng.int(0, 86_399_000);
  while (length < chars) {
    t += rng.int(0, 5000);
    const time = new Date(1_700_000_000_000 + t).toISOString();
    const level = rng.weighted({ INFO: 70, DEBUG: 15, WARN: 10, ERROR: 5 });
    const text = rng.chance(0.02) ? nonLatin(rng, 20, rng.chance(0.5)) : prose(rng, rng.int(20, 110));
    const line = `${time} ${level.padEnd(5)} [${rng.pick(WORDS)}-${rng.int(1, 9)}] ${text}`;
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join("\n");
}

/** A stack trace (JS, Python or Go flavoured), at least `chars` long. */
export function stackTrace(rng: Prng, chars: number): string {
  const kind = rng.int(0, 2);
  const lines = [
    kind === 0
      ? `TypeError: Cannot read properties of undefined (reading '${rng.pick(WORDS)}')`
      : kind === 1
        ? "Traceback (most recent call last):"
        : `panic: runtime error: index out of range [${rng.int(1, 9)}] with length ${rng.int(0, 1)}`,
  ];
  let length = lines[0]?.length ?? 0;
  while (length < chars) {
    const file = rng.pick(FILES);
    const line =
      kind === 0
        ? `    at ${rng.pick(WORDS)}${rng.pick(["Handler", "Store", "Router"])}.${rng.pick(WORDS)} (${file}:${rng.int(1, 900)}:${rng.int(1, 80)})`
        : kind === 1
          ? `  File "${file}", line ${rng.int(1, 900)}, in ${rng.pick(WORDS)}_${rng.pick(WORDS)}`
          : `main.${rng.pick(WORDS)}(0x${rng.nextU32().toString(16)})\n\t/go/${file}:${rng.int(1, 900)} +0x${rng.int(16, 999).toString(16)}`;
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join("\n");
}

/** A JSON document (an API response), at least `chars` long. */
export function jsonDoc(rng: Prng, chars: number): string {
  const items: unknown[] = [];
  let length = 0;
  while (length < chars) {
    const item = {
      id: rng.nextU32().toString(36),
      name: `${rng.pick(WORDS)}-${rng.pick(WORDS)}`,
      status: rng.pick(["ok", "failed", "pending"]),
      size: rng.int(0, 1 << 20),
      tags: [rng.pick(WORDS), rng.pick(WORDS)],
      note: rng.chance(0.05) ? nonLatin(rng, 12, rng.chance(0.5)) : prose(rng, rng.int(10, 60)),
    };
    items.push(item);
    length += JSON.stringify(item).length + 4;
  }
  return JSON.stringify({ total: items.length, items }, null, 2);
}

/** grep-style `file:line: text` hits, at least `chars` long. */
export function grepHits(rng: Prng, chars: number): string {
  const lines: string[] = [];
  let length = 0;
  while (length < chars) {
    const line = `${rng.pick(FILES)}:${rng.int(1, 2000)}:  ${prose(rng, rng.int(20, 90))}`;
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join("\n");
}

/** A recursive directory listing, at least `chars` long. */
export function listing(rng: Prng, chars: number): string {
  const lines: string[] = [];
  let length = 0;
  while (length < chars) {
    const line = `${rng.pick(["drwxr-xr-x", "-rw-r--r--", "-rwxr-xr-x"])} ${String(rng.int(0, 999999)).padStart(7)} ${rng.pick(["src", "lib", "test", "node_modules/.pnpm"])}/${rng.pick(WORDS)}/${rng.pick(WORDS)}.${rng.pick(["ts", "js", "json", "md", "go", "py"])}`;
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join("\n");
}

/** The tool names the corpus uses. */
export const TOOL_NAMES: readonly string[] = TOOLS;
/** A file path from the corpus vocabulary (for tool-call arguments). */
export const pickFile = (rng: Prng): string => rng.pick(FILES);
/** A short task title. */
export const title = (rng: Prng): string => `${rng.pick(ASKS)} ${rng.pick(FILES)}`;
/** One CJK phrase from the vocabulary (search suites look these up). */
export const CJK_PHRASES: readonly string[] = CJK;
