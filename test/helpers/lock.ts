// Another process takes SQLite's write lock on a database and holds it until released, so a
// test can see albedo-tui wait under its busy timeout (and then say so).
import { spawn } from "node:child_process";
import path from "node:path";
import sqlite3 from "sqlite3";

const ROOT = path.resolve(import.meta.dirname, "../..");

export async function holdWriteLock(file: string): Promise<{ release(): Promise<void> }> {
  const code = `
    import sqlite3 from "sqlite3";
    const db = new sqlite3.Database(process.env.LOCK_DB);
    db.exec("BEGIN EXCLUSIVE", (e) => {
      if (e) { console.error(e.message); process.exit(1); }
      console.log("locked");
    });
    process.stdin.on("end", () => db.exec("ROLLBACK", () => db.close(() => process.exit(0))));
    process.stdin.resume();`;
  // run from the project root so the child resolves the project's sqlite3
  const child = spawn(process.execPath, ["--input-type=module", "-e", code], { cwd: ROOT, env: { ...process.env, LOCK_DB: file }, stdio: ["pipe", "pipe", "inherit"] });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => d.toString().includes("locked") && resolve());
    child.on("exit", (c) => reject(new Error(`the lock holder exited (${c})`)));
  });
  return {
    release: () =>
      new Promise<void>((resolve) => {
        child.removeAllListeners("exit");
        child.on("exit", () => resolve());
        child.stdin.end();
      }),
  };
}

/**
 * A lock that the start-up waits for. The store keeps its database in WAL mode, where a held
 * write lock stops no reader, and a new session gets no row before its first message, so
 * nothing of loading it would wait: holding the lock alone makes a test a race between its
 * typing and the load (which a faster start loses). In rollback-journal mode, the store's
 * switch to WAL needs the lock.
 */
export async function lockBeforeLoad(db: string): Promise<{ release(): Promise<void> }> {
  await new Promise<void>((resolve, reject) => {
    const d = new sqlite3.Database(db);
    d.exec("PRAGMA journal_mode=DELETE", (e) => d.close(() => (e ? reject(e) : resolve())));
  });
  return holdWriteLock(db);
}
