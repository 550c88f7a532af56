// A sliding window: at most `limit` hits in any `windowMs`, counted only when admitted. A hit beyond them is refused
// with the moment the oldest counted hit leaves the window, when one more will be admitted. Unlike a token bucket
// it has no burst beyond `limit`, and it frees one hit at a time (not all at the turn of a fixed window).
export type WindowTake = { admitted: true } | { admitted: false; freeAt: number }

export class SlidingWindow {
  /** Times (ms) of the hits still in the window, oldest first. */
  private hits: number[] = []

  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  /** Counts a hit at `now` (ms) if the window has room; else counts nothing and says when (ms) it will have. */
  take(now: number): WindowTake {
    // A hit at t is in the window while t > now - windowMs: it leaves at t + windowMs.
    const cutoff = now - this.windowMs
    let expired = 0
    while (expired < this.hits.length && this.hits[expired]! <= cutoff) expired++
    if (expired > 0) this.hits.splice(0, expired)
    if (this.hits.length >= this.limit) return { admitted: false, freeAt: this.hits[0]! + this.windowMs }
    this.hits.push(now)
    return { admitted: true }
  }
}
