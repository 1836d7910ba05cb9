/**
 * Group commit for the async store: appends made concurrently by one process share one write
 * transaction — one BEGIN … COMMIT, one executor `transaction()` — instead of one each. On a
 * server engine every statement of a transaction is a round trip and every COMMIT a durable
 * write on the server, so fifty sessions appending at once pay for a few transactions, not fifty.
 *
 * The classic scheme: while one write of the group committer is in flight, the appends that
 * arrive queue; when it ends, the queued ones (up to GROUP_MAX_ROWS rows and GROUP_MAX_BYTES of
 * values) run one after the other inside one transaction, in arrival order. A lone append never
 * waits: with nothing in flight it runs at once, alone, exactly as without grouping.
 *
 * What each call is promised is what it gets alone:
 * - it resolves only once the transaction holding its rows has committed, with its own result
 *   (ids), the same as if the calls had run one at a time in arrival order — each member's body
 *   sees the rows of the members before it, as it would have after their commits;
 * - a member that fails inside the group fails only itself: the group rolls back, the members
 *   before it run again as a group, it runs alone (its own error, its own patience and
 *   classification), and the ones after it go back to the head of the queue;
 * - a failure before any member ran (the store closed, read-only, patience spent waiting for the
 *   lock) or at the COMMIT (an answer lost: the engine does not know whether it committed) is
 *   every member's, as each would have met it alone; such a group is never run again, which
 *   could store a committed one twice.
 * Validation runs before the write (appendMessages checks every row first), so bad input never
 * reaches a group. Calls inside `store.transaction(fn)` never come here (the async store runs
 * them on the transaction), and the sync store has no use for it: its calls are already serial
 * (its policy does not group writes, so its appends never make the offer).
 */
import type { Op } from "./engine/effects.js";
import { type AsyncEnvironment, runAsync } from "./engine/run-async.js";
import { admittedWrite, type WriteOffer } from "./policy/calls.js";
import { checkGuard, type StorePolicy } from "./policy/state.js";

/** Most rows in one group: bounds how long a group holds the write lock. Each row is a round
 * trip inside the transaction, and sqld rolls back a transaction open for 5 s. */
const GROUP_MAX_ROWS = 256;
/** Most characters of values in one group (a member that is huge gains nothing from company). */
const GROUP_MAX_BYTES = 2 * 1024 * 1024;

/** One call waiting for its write. */
interface Member {
  readonly write: WriteOffer;
  readonly rows: number;
  readonly bytes: number;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** How far one attempt of a group got, as its body records it. */
interface GroupRun {
  /** "body" from the first member's first statement on; "done" once the last one returned. */
  phase: "before" | "body" | "done";
  /** The member running (the one that failed, when the body threw). */
  at: number;
  results: unknown[];
}

/** The group committer of one async store. */
export class GroupCommit {
  readonly #env: AsyncEnvironment & { policy: StorePolicy };
  readonly #queue: Member[] = [];
  #flying = false;

  constructor(env: AsyncEnvironment & { policy: StorePolicy }) {
    this.#env = env;
  }

  /** `op` with its groupable writes (the `offer` of a `write` with `groupable`) taken by this
   * committer; every other effect passes through unchanged. */
  *grouped<T>(op: Op<T>): Op<T> {
    let step = op.next();
    while (!step.done) {
      const effect = step.value;
      let answer: unknown;
      try {
        answer =
          effect.kind === "offer"
            ? { value: yield { kind: "await", fn: () => this.#submit(effect.offer as WriteOffer) } }
            : yield effect;
      } catch (error) {
        step = op.throw(error);
        continue;
      }
      step = op.next(answer);
    }
    return step.value;
  }

  #submit(write: WriteOffer): Promise<unknown> {
    // The write's guard once more as the call joins the queue (`write` checked it before the
    // offer, but the runner awaits every effect, so `close()` may have come in between): a call
    // that reaches its write once the store is closed (or read-only, or corrupt) is refused. One
    // that got here before `close()` is in flight, and is written though it waits for a group
    // (`close` waits for it): the groups run the write policy without the closed guard
    // (admittedWrite).
    try {
      checkGuard(this.#env.policy, "writable", false);
    } catch (error) {
      return Promise.reject(error);
    }
    const size = write.options.groupable ?? { rows: 1, bytes: 0 };
    return new Promise((resolve, reject) => {
      this.#queue.push({ write, rows: size.rows, bytes: size.bytes, resolve, reject });
      if (!this.#flying) void this.#fly();
    });
  }

  /** Run groups until the queue is empty; one at a time, so arrival order is commit order. */
  async #fly(): Promise<void> {
    this.#flying = true;
    try {
      while (this.#queue.length > 0) await this.#commit(this.#take());
    } finally {
      this.#flying = false;
    }
  }

  /** The head of the queue, as many members as the bounds allow (always at least one). */
  #take(): Member[] {
    let rows = 0;
    let bytes = 0;
    let count = 0;
    for (const member of this.#queue) {
      rows += member.rows;
      bytes += member.bytes;
      if (count > 0 && (rows > GROUP_MAX_ROWS || bytes > GROUP_MAX_BYTES)) break;
      count++;
    }
    return this.#queue.splice(0, count);
  }

  /** Commit `members` in order, settling each with its own outcome. */
  async #commit(members: Member[]): Promise<void> {
    let rest = members;
    while (rest.length > 1) {
      const run: GroupRun = { phase: "before", at: 0, results: [] };
      try {
        await runAsync(this.#env, groupWrite(rest, run));
      } catch (error) {
        if (run.phase !== "body") {
          // Not a member's own failure: before the body, or at the COMMIT, whose outcome may be
          // unknown — every member's, as alone.
          for (const member of rest) member.reject(error);
          return;
        }
        // The member at `run.at` failed, and the group rolled back: the ones before it again
        // (as a group), then it alone, then the rest.
        const failed = rest[run.at] as Member;
        await this.#commit(rest.slice(0, run.at));
        await this.#alone(failed);
        rest = rest.slice(run.at + 1);
        continue;
      }
      rest.forEach((member, i) => {
        member.resolve(run.results[i]);
      });
      return;
    }
    if (rest.length === 1) await this.#alone(rest[0] as Member);
  }

  /** One member on its own: its write, exactly as without grouping. */
  async #alone(member: Member): Promise<void> {
    try {
      member.resolve(await runAsync(this.#env, admittedWrite(member.write.body, member.write.options)));
    } catch (error) {
      member.reject(error);
    }
  }
}

/** The group as one write with the store's write policy (patience for the lock, fail-open,
 * classification): the members' bodies in order, inside one transaction. */
function* groupWrite(members: Member[], run: GroupRun): Op<void> {
  const first = (members[0] as Member).write.options;
  yield* admittedWrite(() => groupBody(members, run), {
    patienceMs: first?.patienceMs,
    what: `the ${members.length} appends committed together, this one among them`,
  });
}

/** Thrown by a group's second attempt after its body had started: see groupBody. */
class GroupSplit extends Error {}

function* groupBody(members: Member[], run: GroupRun): Op<void> {
  // The write policy runs the body again after a BUSY inside it (a server that rolled back a
  // transaction left open too long, a lost connection): a group does not, since the same group
  // could time out again. It splits at the member that was running (#commit).
  if (run.phase === "body") throw new GroupSplit("the group's transaction was lost; split");
  run.phase = "body";
  run.results = [];
  for (let i = 0; i < members.length; i++) {
    run.at = i;
    run.results.push(yield* (members[i] as Member).write.body());
  }
  run.phase = "done";
}
