/**
 * What `createStore`/`openStore` accept, checked before anything touches the file system: the
 * driver, the path and every StoreOptions field. A wrong type, an unknown journal mode or a
 * non-finite or oversized wait, an unknown durability is an InvalidInputError naming the option;
 * nothing is created.
 */
import { APPEND_PATIENCE_MS, OPEN_PATIENCE_MS, WRITE_PATIENCE_MS } from "../constants.js";
import type { SqliteDriver } from "../driver.js";
import { InvalidInputError } from "../errors.js";
import type { Host } from "../host/host.js";
import { type JournalMode, type JournalPolicyOptions, parseSqliteVersion } from "../journal.js";
import type { RecoveryBackoffOptions } from "../locks/recovery-backoff.js";
import type { Durability, StoreOptions } from "../model/types.js";
import * as valid from "../model/validate.js";
import type { RepairOptions } from "../repair/types.js";

/** StoreOptions after validation, defaults applied. */
export interface OpenSettings {
  readOnly: boolean;
  patience: { openMs: number; writeMs: number; appendMs: number };
  admissionTimeoutMs: number | undefined;
  recoveryBackoff: RecoveryBackoffOptions;
  repairFtsOnOpen: boolean;
  host: Host | undefined;
  now: () => number;
  policy: JournalPolicyOptions;
  /** The durability asked for; what the connection gets also depends on the mode (open.ts). */
  durability: Durability;
}

const STORE_OPTION_KEYS = [
  "readOnly",
  "journalMode",
  "allowUnsafeWal",
  "sqliteVersion",
  "patience",
  "admissionTimeoutMs",
  "recoveryBackoff",
  "repairFtsOnOpen",
  "host",
  "now",
  "durability",
] as const satisfies readonly (keyof StoreOptions)[];

const JOURNAL_MODES: readonly JournalMode[] = ["wal", "delete"];
const DURABILITIES: readonly Durability[] = ["full", "normal"];

/** The methods core calls on a host; a value without them would fail later, mid-open. */
const HOST_METHODS = [
  "hostname",
  "stat",
  "canWrite",
  "chmod",
  "writeFileAtomic",
  "readFile",
  "isSymbolicLink",
  "hasRoom",
] as const satisfies readonly (keyof Host)[];

/** The driver argument: an object with a name and an `open` method. */
export function storeDriver(value: unknown, field = "driver"): SqliteDriver {
  const ok =
    typeof value === "object" &&
    value !== null &&
    typeof (value as SqliteDriver).open === "function" &&
    typeof (value as SqliteDriver).name === "string";
  if (!ok) throw new InvalidInputError(field, "expected a SqliteDriver (an object with a name and open())");
  return value as SqliteDriver;
}

/** The store path (see filePath). "" and ":memory:" (a private database SQLite keeps in memory)
 * are valid. */
export function storePath(value: unknown): string {
  return valid.filePath(value, "openStore.path");
}

function host(value: unknown, field = "openStore.host"): Host | undefined {
  if (value === undefined) return undefined;
  const missing =
    typeof value === "object" && value !== null
      ? HOST_METHODS.filter((name) => typeof (value as Host)[name] !== "function")
      : HOST_METHODS;
  if (missing.length > 0) {
    throw new InvalidInputError(field, `expected a Host; missing ${missing.join(", ")}`);
  }
  return value as Host;
}

function sqliteVersion(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const field = "openStore.sqliteVersion";
  if (typeof value !== "string")
    throw new InvalidInputError(field, 'expected a version string such as "3.51.3"');
  try {
    parseSqliteVersion(value);
  } catch {
    throw new InvalidInputError(
      field,
      `expected a version such as "3.51.3", got ${JSON.stringify(value.slice(0, 40))}`,
    );
  }
  return value;
}

/** The settings both stores share (patience, admission wait, recovery, clock). */
export type CommonSettings = Omit<OpenSettings, "host" | "policy" | "durability">;

const COMMON_KEYS = [
  "readOnly",
  "patience",
  "admissionTimeoutMs",
  "recoveryBackoff",
  "repairFtsOnOpen",
  "now",
] as const;

/** The option names `commonSettings` reports in its errors, for one entry point. */
function commonFields(entry: string) {
  return {
    patience: `${entry}.patience`,
    recoveryBackoff: `${entry}.recoveryBackoff`,
    readOnly: `${entry}.readOnly`,
    openMs: `${entry}.patience.openMs`,
    writeMs: `${entry}.patience.writeMs`,
    appendMs: `${entry}.patience.appendMs`,
    admissionTimeoutMs: `${entry}.admissionTimeoutMs`,
    baseMs: `${entry}.recoveryBackoff.baseMs`,
    maxMs: `${entry}.recoveryBackoff.maxMs`,
    floorMs: `${entry}.recoveryBackoff.floorMs`,
    repairFtsOnOpen: `${entry}.repairFtsOnOpen`,
    now: `${entry}.now`,
  };
}

/** Built once per entry point rather than on every open. */
const COMMON_FIELDS = new Map<string, ReturnType<typeof commonFields>>();

function commonSettings(o: Record<string, unknown>, entry: string): CommonSettings {
  let field = COMMON_FIELDS.get(entry);
  if (!field) {
    field = commonFields(entry);
    COMMON_FIELDS.set(entry, field);
  }
  const patience = valid.options(o.patience, field.patience, ["openMs", "writeMs", "appendMs"]);
  const backoff = valid.options(o.recoveryBackoff, field.recoveryBackoff, ["baseMs", "maxMs", "floorMs"]);
  return {
    readOnly: valid.flagOption(o.readOnly, field.readOnly) ?? false,
    patience: {
      openMs: valid.durationOption(patience.openMs, field.openMs) ?? OPEN_PATIENCE_MS,
      writeMs: valid.durationOption(patience.writeMs, field.writeMs) ?? WRITE_PATIENCE_MS,
      appendMs: valid.durationOption(patience.appendMs, field.appendMs) ?? APPEND_PATIENCE_MS,
    },
    admissionTimeoutMs: valid.durationOption(o.admissionTimeoutMs, field.admissionTimeoutMs),
    recoveryBackoff: {
      baseMs: valid.durationOption(backoff.baseMs, field.baseMs),
      maxMs: valid.durationOption(backoff.maxMs, field.maxMs),
      floorMs: valid.durationOption(backoff.floorMs, field.floorMs),
    },
    repairFtsOnOpen: valid.flagOption(o.repairFtsOnOpen, field.repairFtsOnOpen) ?? true,
    now: valid.callbackOption<() => number>(o.now, field.now) ?? Date.now,
  };
}

/** Validate StoreOptions (undefined or null: all defaults). */
export function openSettings(value: unknown): OpenSettings {
  const o = valid.options(value, "openStore", STORE_OPTION_KEYS);
  return {
    ...commonSettings(o, "openStore"),
    host: host(o.host),
    policy: {
      journalMode: valid.choiceOption(o.journalMode, "openStore.journalMode", JOURNAL_MODES),
      allowUnsafeWal: valid.flagOption(o.allowUnsafeWal, "openStore.allowUnsafeWal"),
      sqliteVersion: sqliteVersion(o.sqliteVersion),
    },
    durability: valid.choiceOption(o.durability, "openStore.durability", DURABILITIES) ?? "full",
  };
}

/** Validate an async store's options: the shared ones and its `admission`. An async engine has
 * no local file, so the file options (host, journal mode, …) are not its own: ignored. */
export function asyncSettings(value: unknown): CommonSettings & { admission: unknown } {
  const o = valid.options(value, "createAsyncStore", [...COMMON_KEYS, "admission"]);
  const admission = o.admission;
  if (admission !== undefined && typeof (admission as { acquire?: unknown })?.acquire !== "function") {
    throw new InvalidInputError(
      "createAsyncStore.admission",
      "expected an admission (an object with acquire({ timeoutMs }))",
    );
  }
  return { ...commonSettings(o, "createAsyncStore"), admission };
}

/** An adapter's `openStore(path, options)` split into its own `driver` choice and core's options. */
export interface AdapterOptions {
  /** The caller's `driver` option (null reads as undefined): a name or a driver object. */
  driver: string | SqliteDriver | undefined;
  /** Everything else, with the adapter's host when the caller named none. */
  storeOptions: StoreOptions;
}

const ADAPTER_OPTION_KEYS = [...STORE_OPTION_KEYS, "driver"] as const;

/**
 * For runtime adapters: read the caller's `openStore` options once, set `driver` aside and fill
 * in the runtime's host. Refuses what is not an options object, and a `driver` that is neither a
 * string (the adapter resolves names) nor a driver object. Core validates the rest on open.
 */
export function adapterOptions(value: unknown, runtimeHost: Host): AdapterOptions {
  const o = valid.options(value, "openStore", ADAPTER_OPTION_KEYS);
  const { driver, ...rest } = o;
  const storeOptions = { ...rest, host: rest.host ?? runtimeHost } as StoreOptions;
  return { driver: driverChoice(driver, "openStore.driver"), storeOptions };
}

/** An adapter's `driver` option: a name (the adapter resolves it) or a driver object. */
function driverChoice(value: unknown, field: string): string | SqliteDriver | undefined {
  return value === undefined || typeof value === "string" ? value : storeDriver(value, field);
}

const ADAPTER_REPAIR_OPTION_KEYS = ["driver", "checkOnly", "output", "force", "now", "signal"] as const;
const REPAIR_OPTION_KEYS = [...ADAPTER_REPAIR_OPTION_KEYS, "host"] as const;

/** For runtime adapters: the caller's `repairStore` options read once, `driver` set aside (a name
 * or a driver object); core's `repairStore` checks the rest (`repairInput`). */
export function adapterRepairOptions(value: unknown): {
  driver: string | SqliteDriver | undefined;
  rest: Record<string, unknown>;
} {
  const { driver, ...rest } = valid.options(value, "repairStore", ADAPTER_REPAIR_OPTION_KEYS);
  return { driver: driverChoice(driver, "repairStore.driver"), rest };
}

/**
 * `repairStore(path, options)`'s input, checked before anything loads or touches a file: the
 * store path and the output as file paths, the driver and host, the flags as booleans, the clock
 * as a function. A mistake here would otherwise run the wrong repair: a truthy `checkOnly: "no"`
 * only checking, or a string given as the options running a full repair and swap.
 */
export function repairInput(path: unknown, value: unknown): { path: string; options: RepairOptions } {
  const o = valid.options(value, "repairStore", REPAIR_OPTION_KEYS);
  const options: RepairOptions = {
    driver: storeDriver(o.driver, "repairStore.driver"),
    host: host(o.host ?? null, "repairStore.host") as Host,
  };
  const checkOnly = valid.flagOption(o.checkOnly, "repairStore.checkOnly");
  const force = valid.flagOption(o.force, "repairStore.force");
  const now = valid.callbackOption<() => number>(o.now, "repairStore.now");
  const signal = valid.signalOption(o.signal, "repairStore.signal");
  if (signal) options.signal = signal;
  if (checkOnly !== undefined) options.checkOnly = checkOnly;
  if (force !== undefined) options.force = force;
  if (now) options.now = now;
  if (o.output !== undefined) options.output = valid.filePath(o.output, "repairStore.output");
  return { path: valid.filePath(path, "repairStore.path"), options };
}
