/**
 * Stored text made safe for a terminal. A transcript holds whatever a model, a tool or a user
 * wrote, and a terminal obeys control characters: ESC starts sequences that clear the screen,
 * set the window title, plant OSC 8 links or move the cursor up to overwrite earlier output; CR
 * and BS overwrite the current line; BEL rings. Every path that shows stored text to a person
 * (tables, transcripts, snippets, Markdown/HTML exports, error lines, `serve`'s log lines)
 * passes it through `visible`, which writes each such character as its escape (`\u001b`), the
 * way `--json` and the `sessions show` header already spell them. Newline and tab keep their meaning: they only
 * lay text out. JSON and JSONL output stay exact (JSON escapes these characters itself).
 */

/** C0 controls but newline and tab, DEL, and the C1 controls (U+0080–U+009F: CSI, OSC, … on
 * terminals that read 8-bit controls). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** `text` with every control character but \n and \t written visibly as `\uXXXX`. */
export function visible(text: string): string {
  return text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
