/**
 * A bounded FIFO of pending events. When full, `push` drops the oldest events to make
 * room and returns them (the caller reports them): new events are what an agent is doing
 * now; a buffer that blocked or threw would push the outage into the agent's own work.
 */
export class BoundedBuffer<T> {
  #items: T[] = [];

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
  }

  get length(): number {
    return this.#items.length;
  }

  /** Appends; returns the events dropped (oldest first) to stay within capacity. */
  push(item: T): T[] {
    this.#items.push(item);
    return this.#trim();
  }

  /** Puts events back at the front (a batch to retry later, order kept); returns the dropped. */
  unshift(items: readonly T[]): T[] {
    this.#items = [...items, ...this.#items];
    return this.#trim();
  }

  /** Removes and returns up to `n` of the oldest events. */
  take(n: number): T[] {
    return this.#items.splice(0, n);
  }

  #trim(): T[] {
    const over = this.#items.length - this.capacity;
    return over > 0 ? this.#items.splice(0, over) : [];
  }
}
