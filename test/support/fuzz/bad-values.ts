// The bad values the fuzzer puts where a field should be: wrong JSON types, numbers no amount should be, strings
// that are huge or not well-formed unicode, nesting deeper than any parser expects, and strings that look like (but
// are not) the base64, hex, bech32 and BOLT11 the daemon decodes. Each family is its own arbitrary so a campaign can
// weigh them; `badValue` mixes them all.
import fc from 'fast-check'

/** Real-looking material from the daemon under test, so broken variants sit close to what parsers accept. */
export interface FuzzSamples {
  /** BOLT11 invoices the daemon issued (regtest), and foreign ones: other networks, expired, huge amounts. */
  invoices: string[]
  /** bech32 strings of every prefix the daemon reads: npub, nprofile, lnurl, noffer, ndebit, nmanage. */
  bech32: string[]
  /** 64-hex public keys, payment hashes and tokens. */
  hex64: string[]
  /** Ids the daemon gave out (apps, users, wallets, restaurants, menu nodes, contracts…). */
  ids: string[]
}

export const wrongTypes: fc.Arbitrary<unknown> = fc.constantFrom<unknown>(
  null, true, false, 0, 1, '', '0', '1', 'true', 'null', [], [null], [1, 2], {}, { a: 1 }, { type: 'x' },
)

/** Amounts and counts no field should take: negative, fractional, unsafe and out-of-range numbers, and strings of them. */
export const badNumbers: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    -1, -0, 0.5, -0.5, 1.5, 1e300, -1e300, 2 ** 53, 2 ** 53 + 2, -(2 ** 53) - 2, Number.MAX_VALUE, Number.MIN_VALUE,
    2 ** 31, 2 ** 32, -(2 ** 31) - 1, 2 ** 63, 2 ** 64, 1e21, 21e14, 21e14 * 1000, 9007199254740993,
    'NaN', 'Infinity', '-Infinity', '1e300', '-1', '0.5', '0x10', '1_000', ' 12 ', '12abc', '١٢', '+5', '0b11', '',
  ),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer({ min: -(2 ** 31), max: -1 }),
  fc.bigInt({ min: 2n ** 53n, max: 2n ** 70n }).map(n => Number(n)),
)

/** Strings that are not well-formed text: lone surrogates, NULs, control and direction characters, odd normalisation. */
export const badUnicode: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '\uD800', '\uDFFF', 'a\uD83D', '\uDE00b', '\u0000', 'a\u0000b', '\uFFFE\uFFFF', '\u202Eevil', '\u200B', 'e\u0301',
    '\u{1F4A9}'.repeat(50), '\r\n\t\v\f', '\\u0000', '%00', '${x}', '{{x}}', '<script>alert(1)</script>',
    "' OR '1'='1", '"; DROP TABLE users; --', '../../../../etc/passwd', '..\\..\\boot.ini', 'C:\\', '~', '/', '.', '..',
  ),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: fc.integer({ min: 0xd800, max: 0xdfff }).map(code => String.fromCharCode(code)), minLength: 1, maxLength: 8 }),
)

/** Strings from 1 KiB up to most of the default 1 MiB body limit. */
export function hugeString(maxBytes = 900_000): fc.Arbitrary<string> {
  // Built once: a campaign draws thousands, and building each anew costs more than sending it.
  const strings = [1_000, 10_000, 65_536, 100_000, maxBytes].flatMap(bytes =>
    ['a', '9', 'é', '\u{1F4A9}', ' ', '\\'].map(unit => unit.repeat(Math.max(1, Math.floor(bytes / Buffer.byteLength(unit))))),
  )
  return fc.constantFrom(...strings)
}

/**
 * JSON text spliced verbatim into a request by `encodeJson`: nesting this deep would overflow the stack of the
 * fuzzer's own JSON.stringify before it reached the daemon.
 */
export class RawJson {
  constructor(readonly text: string) {}
}

/** Arrays or objects nested up to 100,000 deep (cheap to write, expensive to walk recursively). */
export const deepNesting: fc.Arbitrary<unknown> = fc
  .tuple(fc.constantFrom(64, 1_000, 10_000, 100_000), fc.boolean())
  .map(([depth, arrays]) => new RawJson(arrays ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '{}' + '}'.repeat(depth)))

/** JSON.stringify that writes RawJson values verbatim. */
export function encodeJson(value: unknown): string {
  if (value instanceof RawJson) return value.text
  if (Array.isArray(value)) return `[${value.map(item => (item === undefined ? 'null' : encodeJson(item))).join(',')}]`
  if (typeof value === 'object' && value !== null) {
    const fields = Object.entries(value).filter(([, field]) => field !== undefined)
    return `{${fields.map(([key, field]) => `${JSON.stringify(key)}:${encodeJson(field)}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

const base64Like = fc.oneof(
  fc.constantFrom('!!!!', 'YWJj=', '====', 'a', 'YW Jj', 'YWJjZA', 'data:audio/wav;base64,AAAA', '\u00ff\u00fe', 'AAAA'.repeat(3) + '%'),
  fc.base64String({ maxLength: 64 }).map(s => s.slice(0, Math.max(0, s.length - 1))),
)

const hexLike = fc.oneof(
  fc.constantFrom('zz', '0'.repeat(63), '0'.repeat(65), 'f'.repeat(64).toUpperCase(), '0x' + '1'.repeat(64), 'g'.repeat(64)),
  fc.string({ unit: fc.constantFrom(...'0123456789abcdefgXYZ'), maxLength: 70 }),
)

/** Flips, drops or appends characters of a real string, and changes its case or prefix. */
function corrupt(samples: string[]): fc.Arbitrary<string> {
  if (samples.length === 0) return fc.constant('')
  return fc.tuple(fc.constantFrom(...samples), fc.nat(), fc.constantFrom('flip', 'truncate', 'append', 'upper', 'mixed', 'prefix', 'spaces')).map(
    ([sample, at, how]) => {
      const i = at % Math.max(1, sample.length)
      switch (how) {
        case 'flip':
          return sample.slice(0, i) + (sample[i] === 'q' ? 'p' : 'q') + sample.slice(i + 1)
        case 'truncate':
          return sample.slice(0, i)
        case 'append':
          return sample + 'qqqq'
        case 'upper':
          return sample.toUpperCase()
        case 'mixed':
          return sample.slice(0, i) + sample.slice(i).toUpperCase()
        case 'prefix':
          return 'x' + sample.slice(1)
        default:
          return ` ${sample} `
      }
    },
  )
}

/** Broken encodings close to what the daemon parses. */
export function badEncodings(samples: FuzzSamples): fc.Arbitrary<string> {
  return fc.oneof(
    base64Like,
    hexLike,
    corrupt(samples.invoices),
    corrupt(samples.bech32),
    corrupt(samples.hex64),
    fc.constantFrom(
      'lnbc1', 'lnbcrt1', 'lntb1pvjluezpp5', 'lnbc99999999999999999999p1', 'lnbc1000000000000000000000m1pq', 'LNBC',
      'lightning:lnbc1', 'npub1', 'npub1qqqqqqqq', 'nprofile1', 'lnurl1', 'LNURL1DP68GURN8GHJ7', 'noffer1', 'ndebit1',
      'nmanage1', 'bc1qqqqq', 'user@', '@host', 'a@b@c', 'x@127.0.0.1:1', 'x@[::1]', 'lnurlp://', 'keyauth://x',
    ),
  )
}

/** Any bad value, weighted so the cheap families dominate and huge ones stay rare (they cost a megabyte each). */
export function badValue(samples: FuzzSamples): fc.Arbitrary<unknown> {
  let made = badValues.get(samples)
  if (!made) badValues.set(samples, (made = makeBadValue(samples)))
  return made
}

/** One bad-value arbitrary per sample set: every operation's generator shares it (and its prebuilt huge strings). */
const badValues = new WeakMap<FuzzSamples, fc.Arbitrary<unknown>>()

function makeBadValue(samples: FuzzSamples): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 5, arbitrary: wrongTypes },
    { weight: 5, arbitrary: badNumbers },
    { weight: 4, arbitrary: badUnicode },
    { weight: 5, arbitrary: badEncodings(samples) },
    { weight: 1, arbitrary: deepNesting },
    { weight: 1, arbitrary: hugeString(200_000) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  )
}
