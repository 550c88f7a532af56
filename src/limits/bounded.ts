// Bounded memos: a Map or Set that holds at most `capacity` entries, for the in-process memos in front of the
// database and the crypto (token checks, app-user rows, conversation keys, signatures seen). Adding a new entry to
// a full one drops the oldest: a Map's order is insertion order, so that is its first entry. A memo that wants
// the least recently used dropped instead looks entries up with `touch`, which moves a hit to the end.

export class BoundedMap<K, V> extends Map<K, V> {
  constructor(readonly capacity: number) {
    super()
  }

  override set(key: K, value: V): this {
    if (this.size >= this.capacity && !this.has(key)) this.delete(this.keys().next().value as K)
    return super.set(key, value)
  }

  /** The value of `key`, now the most recently used entry; undefined when absent. */
  touch(key: K): V | undefined {
    const value = super.get(key)
    if (value !== undefined) {
      super.delete(key)
      super.set(key, value)
    }
    return value
  }
}

export class BoundedSet<T> extends Set<T> {
  constructor(readonly capacity: number) {
    super()
  }

  override add(value: T): this {
    if (this.size >= this.capacity && !this.has(value)) this.delete(this.values().next().value as T)
    return super.add(value)
  }
}

/**
 * A bounded set whose entries also age out: an entry added more than `maxAgeMs` ago (by `now`) is gone, and the
 * capacity stays the ceiling. For a memo that is of no use past a known age: it then holds the last minutes of
 * traffic instead of filling to its capacity over hours. Adding an entry again restarts its age.
 */
export class AgedSet<T> {
  /** Each member and when it was added; the BoundedMap keeps the capacity. */
  private readonly added: BoundedMap<T, number>

  constructor(
    capacity: number,
    readonly maxAgeMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.added = new BoundedMap(capacity)
  }

  get size(): number {
    this.forgetOld()
    return this.added.size
  }

  add(value: T): this {
    this.forgetOld()
    // Deleted first, so that a member added again moves to the end with its new age.
    this.added.delete(value)
    this.added.set(value, this.now())
    return this
  }

  has(value: T): boolean {
    this.forgetOld()
    return this.added.has(value)
  }

  /** Entries are in the order they were added, so the old ones are at the front. */
  private forgetOld(): void {
    const oldest = this.now() - this.maxAgeMs
    for (const [value, at] of this.added) {
      if (at >= oldest) break
      this.added.delete(value)
    }
  }
}
