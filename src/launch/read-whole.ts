// The large files the launcher reads at start (the bundle's ~2 MB of text, the ~1.5 MB code
// cache) are read into memory that glibc's malloc never hands out. A Buffer's bytes come
// from malloc, and a block this large is mapped on its own; freeing it raises glibc's mmap
// threshold to its size and its trim threshold to twice that, for the life of the process
// (the "dynamic mmap threshold"). Every thread's malloc arena then keeps up to that much
// freed memory instead of giving it back (3.9 MB each after the 1.9 MB bundle), and V8's
// compiler threads and libuv's fill their arenas over a long session (docs/performance.md).
// A WebAssembly memory is mapped by V8 itself, and unmapped when it is collected.
import fs from "node:fs";

const WASM_PAGE = 65536;

// the one part of the WebAssembly API used here (the project's TypeScript libraries have none)
declare const WebAssembly: { Memory: new (d: { initial: number }) => { buffer: ArrayBuffer } };

/** `size` bytes of the open file `fd` from its start (fewer if it ends sooner) */
export function readWhole(fd: number, size: number): Buffer {
  let buf: Buffer;
  try {
    const memory = new WebAssembly.Memory({ initial: Math.max(1, Math.ceil(size / WASM_PAGE)) });
    buf = Buffer.from(memory.buffer, 0, size);
  } catch {
    // no address space for it (a ulimit -v): malloc's memory does the same job
    buf = Buffer.allocUnsafe(size);
  }
  let got = 0;
  while (got < size) {
    const n = fs.readSync(fd, buf, got, size - got, got);
    if (n === 0) break;
    got += n;
  }
  return got === size ? buf : buf.subarray(0, got);
}
