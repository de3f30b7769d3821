/**
 * Owed: refunds a store could not take, kept to be sent again, once, each time its server answers
 * again (the Remote's or the runner's onRecover). A refund is owed only when it is known not to have
 * reached the server (a row store knows a transaction's fate; Redis owes a refund it never sent); it
 * also goes to the fallback at once, where the charges of the outage went. Each side gives back at
 * most what it holds (the algorithms' refund step never passes the empty state), so a refund is never
 * lost and never gives back more than a key spent. At most MAX_OWED are kept: the oldest is dropped,
 * and reported, for each one past that.
 */

/** MAX_OWED bounds the refunds a store keeps owed while it cannot take them. */
export const MAX_OWED = 1_000;

/** One owed refund: its policy (for the report of a drop) and how to send it again. */
interface Debt {
  readonly policy: string;
  readonly send: () => void;
}

export class Owed {
  readonly #debts: Debt[] = [];
  readonly #dropped: (policy: string) => void;

  /** `onRecover` registers the repayment; `dropped` reports a refund dropped past MAX_OWED. */
  constructor(onRecover: (callback: () => void) => void, dropped: (policy: string) => void) {
    this.#dropped = dropped;
    onRecover(() => {
      for (const debt of this.#debts.splice(0)) debt.send();
    });
  }

  /** owe keeps `send` (which owes again what fails again) for the next recovery. */
  owe(policy: string, send: () => void): void {
    this.#debts.push({ policy, send });
    if (this.#debts.length > MAX_OWED) this.#dropped((this.#debts.shift() as Debt).policy);
  }

  /** owing is how many refunds wait for the server (tests and diagnostics). */
  get owing(): number {
    return this.#debts.length;
  }
}
