// The reference every ratio is taken against: the token bucket a competent engineer writes in fifteen
// lines with a Map of plain objects and Date.now(). It has no bound, no validation, no Decision and no
// clock injection; it is here to answer "what does a decision cost at the very least in plain
// JavaScript?". Nothing in the library is built on it.
export class NaiveBucket {
  constructor(capacity, refillPerSecond) {
    this.capacity = capacity;
    this.perMs = refillPerSecond / 1000;
    this.buckets = new Map();
  }

  allow(key) {
    const now = Date.now();
    let b = this.buckets.get(key);
    if (b === undefined) this.buckets.set(key, (b = { tokens: this.capacity, last: now }));
    else b.tokens = Math.min(this.capacity, b.tokens + (now - b.last) * this.perMs);
    b.last = now;
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }
}
