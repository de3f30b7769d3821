// settle runs full GCs (the process must run with --expose-gc) until the heap stops shrinking, since
// concurrent sweeping finishes between them, and answers process.memoryUsage() then. Heap figures are
// read between two settles.
export async function settle() {
  let last = Infinity;
  for (let i = 0; i < 10; i++) {
    globalThis.gc();
    await new Promise((resolve) => setTimeout(resolve, 10));
    const used = process.memoryUsage().heapUsed;
    if (used >= last) break;
    last = used;
  }
  return process.memoryUsage();
}
