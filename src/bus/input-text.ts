// Text no store can keep: PostgreSQL refuses the NUL character (U+0000) in any text value, SQLite keeps it, and no
// field of the catalogue has a use for it. A caller's NUL is refused at the door on both engines alike, naming the
// field, instead of reaching a statement that fails with an internal error on PostgreSQL only.

/** The path (`a.b.0`, `body` for the input itself) of the first string or key holding U+0000, or undefined. */
export function fieldWithNul(value: unknown): string | undefined {
  const stack: [unknown, string][] = [[value, '']]
  while (stack.length > 0) {
    const [item, at] = stack.pop()!
    if (typeof item === 'string') {
      if (item.includes('\u0000')) return at || 'body'
      continue
    }
    if (typeof item !== 'object' || item === null) continue
    // Only what a parser builds from JSON, a query or a path: plain objects and arrays.
    if (Array.isArray(item)) {
      item.forEach((child, i) => stack.push([child, at ? `${at}.${i}` : String(i)]))
      continue
    }
    if (Object.getPrototypeOf(item) !== Object.prototype && Object.getPrototypeOf(item) !== null) continue
    for (const [key, child] of Object.entries(item)) {
      const here = at ? `${at}.${key}` : key
      if (key.includes('\u0000')) return here.replace(/\u0000/g, '\\u0000')
      stack.push([child, here])
    }
  }
  return undefined
}
