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
