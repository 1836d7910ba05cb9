/** Types for ledger.mjs (the harness is TypeScript, the roles plain JavaScript). */
export interface Intent {
  session: string;
  role: string;
  len: number;
  writer: string;
  group: number;
  at: number;
}
export interface Ledger {
  intents: Map<string, Intent>;
  groups: Array<{ tokens: string[]; writer: string; at: number; session: string; whole: boolean }>;
  acks: Map<string, number>;
  ackAt: Map<string, number>;
  fails: Map<string, unknown>;
  sessions: Set<string>;
  observedCounts: Map<string, number>;
  deleting: Set<string>;
  deleted: Set<string>;
}
export declare function reportCut(dir: string): Record<string, number>;
export declare function readLedger(dir: string, options?: { cut?: Record<string, number> }): Ledger;
