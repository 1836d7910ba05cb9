/**
 * The line a whole-process script (open-store.js, open-raw.js) ends with: the rows it read or
 * wrote, its phases in milliseconds, and the CPU time its process has used so far (user + system,
 * every thread, the runtime's own start included), which the suites compare side by side.
 */
export function reportRun(n: number, t0: number, t1: number, t2: number, t3: number): void {
  const cpu = globalThis.process.cpuUsage();
  const cpuMs = (cpu.user + cpu.system) / 1000;
  console.log(JSON.stringify({ n, loadMs: t1 - t0, openMs: t2 - t1, readMs: t3 - t2, cpuMs }));
}
