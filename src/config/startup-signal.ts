// The program's word to the bin (src/launch/) that the code a start runs has run: the screen
// says it once it has shown the session, headless once its turn is done. The bin writes V8's
// code cache at the process's exit after this (when it had none to use), so the cache holds
// what a start compiles, and nothing is written while the screen shows `idle` or for a run
// that only printed its version or help. Without the bin (the tests' unbundled runs) no one
// listens and this does nothing.
const KEY = Symbol.for("albedo-tui.startupCodeRan");

type Listener = () => void;

/** the bin: `f` runs (once) when the program says its start-up code has run */
export function onStartupCodeRan(f: Listener): void {
  let called = false;
  (globalThis as Record<symbol, unknown>)[KEY] = (): void => {
    if (called) return;
    called = true;
    f();
  };
}

/** the program: its start-up code has run */
export function startupCodeRan(): void {
  const f = (globalThis as Record<symbol, unknown>)[KEY];
  if (typeof f === "function") (f as Listener)();
}
