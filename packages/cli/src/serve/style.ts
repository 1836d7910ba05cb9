/** The stylesheet (served from memory as an asset). Light and dark follow prefers-color-scheme. */
export const STYLE = `
:root {
  --bg: #f6f6f3; --panel: #ffffff; --ink: #1c1c1e; --muted: #6b6b70; --line: #e3e2dd;
  --accent: #3b5bdb; --accent-soft: #e8ecfd; --code-bg: #f3f2ee; --mark: #ffe58a;
  --user: #3b5bdb; --assistant: #2b8a3e; --tool: #b85c00; --system: #7048e8; --developer: #7048e8;
  --err: #c92a2a; --ok: #2b8a3e; --warn: #b85c00;
  --t-s: #1c7c54; --t-c: #8a8a8f; --t-n: #b35900; --t-k: #7048e8; --t-key: #1c5fb8;
  --c1: #4c6ef5; --c2: #20c997; --c3: #fab005; --c4: #f06595; --c5: #845ef7; --c6: #82c91e;
  color-scheme: light dark;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #151517; --panel: #1e1e21; --ink: #e8e8ea; --muted: #9a9aa2; --line: #303035;
    --accent: #8ea2ff; --accent-soft: #262c48; --code-bg: #18181b; --mark: #6b5600;
    --user: #8ea2ff; --assistant: #69db7c; --tool: #ffa94d; --system: #b197fc; --developer: #b197fc;
    --err: #ff8787; --ok: #69db7c; --warn: #ffa94d;
    --t-s: #8ce99a; --t-c: #7d7d85; --t-n: #ffc078; --t-k: #d0bfff; --t-key: #a5d8ff;
  }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; background: var(--bg); color: var(--ink);
  font: 15px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Helvetica Neue", Arial, sans-serif; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
code, pre, .mono { font-family: ui-monospace, "SF Mono", "Cascadia Mono", "JetBrains Mono", Menlo, Consolas, monospace; font-size: 13px; }
header.top { background: var(--panel); border-bottom: 1px solid var(--line); position: sticky; top: 0; z-index: 5; }
header.top .bar { max-width: 1200px; margin: 0 auto; padding: 10px 24px; display: flex; gap: 24px; align-items: center; }
.brand { font-weight: 700; letter-spacing: -0.01em; color: var(--ink); font-size: 16px; }
.brand span { color: var(--accent); }
nav.main { display: flex; gap: 4px; }
nav.main a { color: var(--muted); padding: 6px 10px; border-radius: 6px; }
nav.main a.on, nav.main a:hover { color: var(--ink); background: var(--accent-soft); text-decoration: none; }
form.quick { margin-left: auto; }
form.quick input { width: 260px; }
main { max-width: 1200px; margin: 0 auto; padding: 20px 24px 60px; }
h1 { font-size: 22px; margin: 4px 0 6px; letter-spacing: -0.01em; line-height: 1.3; }
h2 { font-size: 17px; margin: 28px 0 10px; }
.sub { color: var(--muted); font-size: 13px; }
.muted { color: var(--muted); }
input, select, button { font: inherit; font-size: 14px; color: var(--ink); background: var(--panel);
  border: 1px solid var(--line); border-radius: 6px; padding: 5px 8px; }
button, .button { background: var(--accent); color: #fff; border-color: var(--accent); cursor: pointer; padding: 5px 14px; border-radius: 6px; }
details.manage { margin: 8px 0; } details.manage form { display: flex; align-items: end; gap: 8px; margin: 8px 0; }
details.manage label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); gap: 3px; }
button.danger { background: #b42318; border-color: #b42318; }
.button.plain { background: transparent; color: var(--accent); }
form.filters { display: flex; flex-wrap: wrap; gap: 10px 14px; align-items: end; background: var(--panel);
  border: 1px solid var(--line); border-radius: 10px; padding: 12px 14px; margin: 14px 0; }
form.filters label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); gap: 3px; }
form.filters label.check { flex-direction: row; align-items: center; gap: 6px; font-size: 14px; color: var(--ink); padding-bottom: 6px; }
form.filters .grow input { width: 320px; }
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; }
table { border-collapse: collapse; width: 100%; }
table.list { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; overflow: hidden; font-size: 14px; }
table.list th { text-align: left; font-weight: 600; font-size: 12px; color: var(--muted); text-transform: uppercase;
  letter-spacing: 0.04em; padding: 9px 12px; border-bottom: 1px solid var(--line); white-space: nowrap; }
table.list td { padding: 9px 12px; border-bottom: 1px solid var(--line); vertical-align: top; }
table.list tr:last-child td { border-bottom: 0; }
table.list tbody tr:hover { background: var(--accent-soft); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.when { white-space: nowrap; color: var(--muted); font-size: 13px; }
td.title a { color: var(--ink); font-weight: 500; }
td.title .id { display: block; color: var(--muted); font-size: 12px; }
.tag { display: inline-block; font-size: 12px; padding: 1px 7px; border-radius: 999px; background: var(--accent-soft); color: var(--ink); white-space: nowrap; }
.tag.err { background: transparent; color: var(--err); border: 1px solid var(--err); }
.pager { display: flex; gap: 12px; align-items: center; margin: 14px 0; color: var(--muted); font-size: 14px; }
.facts { display: flex; flex-wrap: wrap; gap: 6px 18px; color: var(--muted); font-size: 13px; margin: 8px 0 4px; }
.facts b { color: var(--ink); font-weight: 600; }
.thread { display: flex; flex-direction: column; gap: 12px; margin-top: 18px; }
.msg { background: var(--panel); border: 1px solid var(--line); border-left: 4px solid var(--line); border-radius: 10px; padding: 10px 16px 12px; scroll-margin-top: 70px; }
.msg.user { border-left-color: var(--user); }
.msg.assistant { border-left-color: var(--assistant); }
.msg.tool { border-left-color: var(--tool); }
.msg.system, .msg.developer { border-left-color: var(--system); }
.msg:target, .result:target { box-shadow: 0 0 0 2px var(--accent); }
.msg > .head, .result > .head { display: flex; gap: 10px; align-items: baseline; font-size: 13px; color: var(--muted); }
.role { font-weight: 700; font-size: 13px; text-transform: capitalize; }
.role.user { color: var(--user); } .role.assistant { color: var(--assistant); } .role.tool { color: var(--tool); }
.role.system, .role.developer { color: var(--system); }
.head .right { margin-left: auto; display: flex; gap: 12px; }
.head a.anchor { color: var(--muted); }
.body { overflow-wrap: anywhere; }
.body p { margin: 8px 0; }
.body h3, .body h4, .body h5, .body h6 { margin: 14px 0 6px; font-size: 15px; }
.body ul, .body ol { margin: 6px 0; padding-left: 24px; }
.body blockquote { margin: 8px 0; padding: 2px 12px; border-left: 3px solid var(--line); color: var(--muted); }
.body code { background: var(--code-bg); padding: 1px 4px; border-radius: 4px; }
.body table { width: auto; margin: 8px 0; font-size: 14px; }
.body th, .body td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
.body .align-center { text-align: center; } .body .align-right { text-align: right; }
pre { background: var(--code-bg); border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; overflow: auto;
  margin: 8px 0; line-height: 1.45; white-space: pre; max-height: 70vh; }
pre code { background: none; padding: 0; }
pre.wrap { white-space: pre-wrap; overflow-wrap: anywhere; }
.t-s { color: var(--t-s); } .t-c { color: var(--t-c); font-style: italic; } .t-n { color: var(--t-n); }
.t-k { color: var(--t-k); } .t-key { color: var(--t-key); } .t-err { color: var(--err); font-weight: 600; }
details > summary { cursor: pointer; color: var(--muted); font-size: 13px; }
details > summary:hover { color: var(--ink); }
details.system-prompt > summary { color: var(--ink); }
.call { border: 1px solid var(--line); border-radius: 8px; margin: 10px 0 4px; overflow: hidden; }
.call > .name { background: var(--code-bg); padding: 6px 12px; font-size: 13px; display: flex; gap: 10px; align-items: baseline; border-bottom: 1px solid var(--line); }
.call > .name b { color: var(--tool); font-family: ui-monospace, Menlo, Consolas, monospace; }
.call pre { border: 0; border-radius: 0; margin: 0; }
.result { border-top: 1px dashed var(--line); padding: 8px 12px; scroll-margin-top: 70px; }
.result.missing { color: var(--muted); font-size: 13px; }
.fold:has(details[open]) > pre.preview { display: none; }
.fold pre.preview { max-height: none; margin-bottom: 4px; }
.size { font-variant-numeric: tabular-nums; }
.hits { display: flex; flex-direction: column; gap: 10px; margin-top: 12px; }
.hit { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: 10px 14px; }
.hit .snippet { margin-top: 4px; overflow-wrap: anywhere; }
mark { background: var(--mark); color: inherit; border-radius: 3px; padding: 0 2px; }
.route { display: inline-block; margin: 6px 0; font-size: 13px; color: var(--muted); }
.route b { color: var(--ink); }
.grid { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 18px; align-items: start; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: 14px 16px; }
.card h2 { margin-top: 0; }
svg.chart { width: 100%; height: auto; display: block; }
svg.chart text { fill: var(--muted); font-size: 12px; font-family: system-ui, sans-serif; }
svg.chart .axis { stroke: var(--line); }
svg.chart .s0 { fill: var(--c1); } svg.chart .s1 { fill: var(--c2); } svg.chart .s2 { fill: var(--c3); }
svg.chart .s3 { fill: var(--c4); } svg.chart .s4 { fill: var(--c5); } svg.chart .s5 { fill: var(--c6); }
.legend { display: flex; gap: 14px; font-size: 12px; color: var(--muted); margin: 4px 0 8px; }
.legend i { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 5px; vertical-align: -1px; }
.legend i.s0 { background: var(--c1); } .legend i.s1 { background: var(--c2); } .legend i.s2 { background: var(--c3); }
table.nums { font-size: 13px; font-variant-numeric: tabular-nums; }
table.nums th { text-align: left; color: var(--muted); font-weight: 600; padding: 4px 8px; border-bottom: 1px solid var(--line); }
table.nums td { padding: 4px 8px; border-bottom: 1px solid var(--line); white-space: nowrap; }
td.model { white-space: nowrap; }
fieldset.roles { border: 0; padding: 0; margin: 0; display: flex; gap: 12px; align-items: center; }
fieldset.roles legend { float: left; font-size: 12px; color: var(--muted); margin-right: 4px; }
.scroll { max-height: 300px; overflow: auto; }
.findings { display: grid; grid-template-columns: repeat(auto-fill, minmax(330px, 1fr)); gap: 12px; margin-top: 14px; }
.finding { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: 12px 14px; border-top: 4px solid var(--line); }
.finding.ok { border-top-color: var(--ok); } .finding.warn, .finding.fail { border-top-color: var(--err); }
.finding.note { border-top-color: var(--warn); }
.finding h3 { margin: 0 0 4px; font-size: 14px; display: flex; justify-content: space-between; }
.finding .status { font-size: 12px; text-transform: uppercase; letter-spacing: 0.05em; }
.finding.ok .status { color: var(--ok); } .finding.warn .status, .finding.fail .status { color: var(--err); } .finding.note .status { color: var(--warn); }
.finding p { margin: 0; font-size: 14px; overflow-wrap: anywhere; }
progress { width: 100%; }
.empty { padding: 30px; text-align: center; color: var(--muted); }
.error-page { max-width: 560px; margin: 60px auto; text-align: center; }
.error-page h1 { font-size: 40px; color: var(--muted); }
footer { max-width: 1200px; margin: 0 auto; padding: 0 24px 30px; color: var(--muted); font-size: 12px; }
@media (max-width: 800px) {
  .grid { grid-template-columns: 1fr; }
  form.quick { display: none; }
  header.top .bar, main { padding-left: 12px; padding-right: 12px; }
  .hide-narrow { display: none; }
}
`;
