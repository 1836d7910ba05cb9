/**
 * The node:sqlite-API driver without a binding: classification of the error shapes Node and Deno
 * throw, and the directory check. Real node:sqlite runs the driver contract in the Node adapter
 * (Node 24) and the Deno adapter.
 */
import { describe, expect, it } from "vitest";
import { SqliteError } from "../errors.js";
import { classifyNodeSqliteError, isBlankSql, nodeSqliteApiDriver } from "./node-sqlite-api.js";

const sqliteError = (message: string, fields: Record<string, unknown>) =>
  Object.assign(new Error(message), { code: "ERR_SQLITE_ERROR", ...fields });

describe("classifyNodeSqliteError", () => {
  it("uses the extended code in errcode first (Node, and Deno's statements)", () => {
    expect(classifyNodeSqliteError(sqliteError("database is locked", { errcode: 517 }))).toEqual({
      code: "BUSY",
      extendedCode: 517,
    });
    expect(classifyNodeSqliteError(sqliteError("fts5: corruption", { errcode: 267 }))?.code).toBe(
      "CORRUPT_VTAB",
    );
  });

  it("falls back to SQLite's message without the path Deno appends", () => {
    const open = sqliteError("unable to open database file: /tmp/x/state.db", {});
    expect(classifyNodeSqliteError(open)).toEqual({ code: "CANTOPEN" });
    // A path that reads like another message must not win.
    const misleading = sqliteError("disk I/O error: /tmp/database is locked/state.db", {});
    expect(classifyNodeSqliteError(misleading)).toEqual({ code: "IOERR" });
    const windows = sqliteError("file is not a database: C:\\database is locked.db", {});
    expect(classifyNodeSqliteError(windows)).toEqual({ code: "NOTADB" });
  });

  it("leaves programming errors alone", () => {
    expect(classifyNodeSqliteError(Object.assign(new Error("closed"), { code: "ERR_INVALID_STATE" }))).toBe(
      undefined,
    );
    expect(classifyNodeSqliteError(new TypeError("bad"))).toBe(undefined);
    expect(classifyNodeSqliteError(null)).toBe(undefined);
  });
});

describe("nodeSqliteApiDriver", () => {
  class NeverOpens {
    constructor() {
      throw new Error("the directory check must come first");
    }
  }
  it("refuses a directory opened read-only as CANTOPEN before the binding sees it", () => {
    const driver = nodeSqliteApiDriver(NeverOpens as never, { isDirectory: () => true });
    expect(driver.name).toBe("node:sqlite");
    let thrown: unknown;
    try {
      driver.open("/some/dir", { readOnly: true });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SqliteError);
    expect((thrown as SqliteError).resultCode).toBe("CANTOPEN");
    expect((thrown as Error).message).toMatch(/is a directory/);
  });

  it("isBlankSql sees whitespace, semicolons and comments only", () => {
    expect(isBlankSql(" ;\n-- c\n/* d */ ;")).toBe(true);
    expect(isBlankSql("; SELECT 2")).toBe(false);
  });
});
