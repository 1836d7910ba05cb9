/**
 * Children whose parent came later. A subagent's or fork's file read when its parent's session
 * is in neither the store nor the files of that run is imported without a parent (and reported);
 * its cursor keeps the parent its lines name. Once that session is in the store (its file came
 * in a later run, or in this one after the child), the child is linked: `createSession` of the
 * child's id with the parent is the store's upsert that fills a parent still null and changes
 * nothing else, so no new core call is needed. A link that would close a cycle (the parent
 * descends from the child) is reported instead.
 */
import type { CreateSessionInput, Session } from "@sessiondb/core";

/** What linking needs of a store (a part of the engine's ImportTarget). */
export interface ParentTarget {
  getSession(id: string): Session | undefined | Promise<Session | undefined>;
  createSession(input: CreateSessionInput): Session | Promise<Session>;
}

/** Sessions without the parent their file names: child id → the parent and the child's file. */
export type Orphans = Map<string, { parent: string; file: string }>;

/** Links every orphan whose parent is in the store now; the number linked. */
export async function linkParents(
  store: ParentTarget,
  source: string,
  orphans: Orphans,
  problems: { file: string; message: string }[],
): Promise<number> {
  let linked = 0;
  for (const [child, { parent, file }] of orphans) {
    if (!(await store.getSession(parent))) continue;
    if (await descends(store, parent, child)) {
      problems.push({
        file,
        message: `parent session ${JSON.stringify(parent)} descends from this session; left without a parent`,
      });
      continue;
    }
    await store.createSession({ id: child, source, parentSessionId: parent });
    linked++;
  }
  return linked;
}

/** Whether `id` is `from` or one of its ancestors. */
async function descends(store: ParentTarget, from: string, id: string): Promise<boolean> {
  const seen = new Set<string>();
  for (let at: string | null = from; at !== null && !seen.has(at); ) {
    if (at === id) return true;
    seen.add(at);
    at = (await store.getSession(at))?.parentSessionId ?? null;
  }
  return false;
}
