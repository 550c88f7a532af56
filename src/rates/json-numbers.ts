// Some providers (CoinGecko, yadio) send prices as JSON numbers with up to 17 significant digits, more than a
// double holds. JSON.parse would round them before we ever see the digits, and Node 20 has no reviver access
// to the source text, so numbers are quoted first: every number token outside a string becomes a string of
// its exact literal, and readers parse it with parseDecimal.

const numberToken = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y

/** JSON.parse, except that every number arrives as a string holding its literal text. */
export function parseJsonKeepingNumbers(text: string): unknown {
  let out = ''
  let i = 0
  while (i < text.length) {
    const c = text[i]
    if (c === '"') {
      const end = endOfString(text, i)
      out += text.slice(i, end)
      i = end
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      numberToken.lastIndex = i
      const m = numberToken.exec(text)
      // Malformed numbers are left as they are for JSON.parse to reject with its own message.
      if (!m) {
        out += c
        i++
        continue
      }
      out += `"${m[0]}"`
      i += m[0].length
    } else {
      out += c
      i++
    }
  }
  return JSON.parse(out)
}

/** Index just past the closing quote of the string opening at `start`, honouring backslash escapes. */
function endOfString(text: string, start: number): number {
  let i = start + 1
  while (i < text.length) {
    if (text[i] === '\\') i += 2
    else if (text[i] === '"') return i + 1
    else i++
  }
  return text.length // unterminated: JSON.parse reports it
}
