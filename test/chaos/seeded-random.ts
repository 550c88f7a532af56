// Reproducible randomness for the fault tests: every kill moment and every load mix comes from one printed seed,
// so a failing run can be replayed with CHAOS_SEED=<seed>.

export interface SeededRandom {
  readonly seed: number
  /** A float in [0, 1). */
  next(): number
  /** An integer in [0, n). */
  below(n: number): number
  /** An integer in [min, max]. */
  between(min: number, max: number): number
}

/** mulberry32: small, fast and good enough to spread kill moments. */
export function seededRandom(seed: number): SeededRandom {
  let state = seed | 0
  const next = () => {
    state = (state + 0x6d2b79f5) | 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return {
    seed,
    next,
    below: n => Math.floor(next() * n),
    between: (min, max) => min + Math.floor(next() * (max - min + 1)),
  }
}

/** CHAOS_SEED when given (the seed a file printed replays it), else a fresh one (offset per file, so files differ). */
export function chaosSeed(offset: number): number {
  const given = process.env.CHAOS_SEED
  return given !== undefined ? Number(given) : (Date.now() + offset * 7919) % 1_000_000_007
}

/** CHAOS_CYCLES when given, else the file's CI share. */
export function chaosCycles(ciShare: number): number {
  const given = Number(process.env.CHAOS_CYCLES)
  return Number.isInteger(given) && given > 0 ? given : ciShare
}
