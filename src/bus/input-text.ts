// Text no store can keep, refused at the door on both engines alike, naming the field:
// - the NUL character (U+0000): PostgreSQL refuses it in any text value, SQLite keeps it, and no field of the
//   catalogue has a use for it; it reached a statement that failed with an internal error on PostgreSQL only;
// - a lone surrogate (U+D800–U+DFFF without its pair; JSON's "\udfff" makes one): not a character, and not UTF-8.
//   SQLite stored it as bytes that read back as U+FFFD, so a row found by the caller's text could not be found again
//   by the text it read back (GetAppUser of "\udfff" failed with an internal error).

/** A high surrogate not followed by a low one, or a low one not preceded by a high one (UTF-16 code units). */
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

/** What is wrong with a text, or undefined when a store can keep it. */
function unkeepable(text: string): string | undefined {
  if (text.includes('\u0000')) return 'holds the NUL character (U+0000), which no text may hold'
  loneSurrogate.lastIndex = 0
  if (loneSurrogate.test(text)) return 'holds a lone surrogate (U+D800 to U+DFFF without its pair), which is not text'
  return undefined
}

/**
 * The path (`a.b.0`, `body` for the input itself) of the first string or key a store cannot keep, with why, or
 * undefined.
 */
export function fieldNoStoreKeeps(value: unknown): { at: string; why: string } | undefined {
  const stack: [unknown, string][] = [[value, '']]
  while (stack.length > 0) {
    const [item, at] = stack.pop()!
    if (typeof item === 'string') {
      const why = unkeepable(item)
      if (why) return { at: at || 'body', why }
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
      const why = unkeepable(key)
      if (why) return { at: here.replace(/\u0000/g, '\\u0000').replace(loneSurrogate, '\uFFFD'), why }
      stack.push([child, here])
    }
  }
  return undefined
}
