// sqlite3 itself, promised, to reach under the store in tests: damage rows, read what was
// written, hold a second connection.
import sqlite3 from "sqlite3";
import type { Database } from "sqlite3";

export function rawOpen(file: string): Promise<Database> {
  return new Promise((resolve, reject) => {
    const db: Database = new sqlite3.Database(file, (err) => (err ? reject(err) : resolve(db)));
  });
}
export function rawExec(db: Database, sql: string): Promise<void> {
  return new Promise((resolve, reject) => db.exec(sql, (err) => (err ? reject(err) : resolve())));
}
export function rawRun(db: Database, sql: string, params: unknown[]): Promise<void> {
  return new Promise((resolve, reject) => db.run(sql, params, (err: Error | null) => (err ? reject(err) : resolve())));
}
export function rawAll<T>(db: Database, sql: string, params: unknown[] = []): Promise<T[]> {
  return new Promise((resolve, reject) => db.all<T>(sql, params, (err: Error | null, rows: T[]) => (err ? reject(err) : resolve(rows))));
}
export function rawClose(db: Database): Promise<void> {
  return new Promise((resolve, reject) => db.close((err) => (err ? reject(err) : resolve())));
}
