// Units, one place: the books hold integer msat; the wire, the pages and the words speak whole sats and unix
// seconds. A ground-floor room: it imports nothing, so every layer may use it. Amounts from a request are checked
// where they enter (the wallet's msat.ts), not here.

export const msatPerSat = 1000

/** Whole sats in `msat`, rounded down: a wallet never shows more than it can spend. */
export function msatAsSats(msat: number): number {
  return Math.floor(msat / msatPerSat)
}

/** Whole sats that cover `msat`, rounded up: what a charge of `msat` needs. */
export function satsCovering(msat: number): number {
  return Math.ceil(msat / msatPerSat)
}

/** Unix seconds of a time in ms, rounded down (upstream's `paid_at_unix`, a Nostr event's `created_at`). */
export function unixSeconds(ms: number): number {
  return Math.floor(ms / 1000)
}
