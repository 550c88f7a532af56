// How deep a call's input nests. Parsers build arbitrarily deep JSON without complaint (JSON.parse is not recursive),
// but the recursive walks after them — zod, JSON.stringify when an input is stored or measured — overflow the stack
// on inputs a hundred thousand levels deep. No message of the catalogue nests anywhere near the limit.

/** Deeper than any message in the catalogue (BatchUser, the deepest, nests five levels). */
export const maxInputDepth = 32

/** True when arrays and objects in `value` nest more than `limit` levels; stops at the first branch that does. */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]]
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!
    if (typeof item !== 'object' || item === null) continue
    if (depth >= limit) return true
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1])
    }
  }
  return false
}
