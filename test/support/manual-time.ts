// A clock and timer source that only move when a test says so: simulated delays and timeouts run in order of
// their due time, and no test sleeps.
import { setImmediate as nextTurn } from 'node:timers/promises'
import type { Timers } from '../../src/node/index.js'

interface Pending {
  at: number
  seq: number
  fn: () => void
}

export class ManualTime implements Timers {
  private pending: Pending[] = []
  private seq = 0

  constructor(private nowMs: number) {}

  now(): number {
    return this.nowMs
  }

  after(ms: number, fn: () => void): () => void {
    const timer = { at: this.nowMs + ms, seq: this.seq++, fn }
    this.pending.push(timer)
    return () => {
      this.pending = this.pending.filter(t => t !== timer)
    }
  }

  /** Timers not yet run or cancelled. */
  get pendingCount(): number {
    return this.pending.length
  }

  /** Moves time forward by `ms`, running each timer that falls due at its own moment, then letting promises settle. */
  async advance(ms: number): Promise<void> {
    const end = this.nowMs + ms
    for (;;) {
      const due = this.pending.filter(t => t.at <= end).sort((a, b) => a.at - b.at || a.seq - b.seq)[0]
      if (!due) break
      this.pending = this.pending.filter(t => t !== due)
      this.nowMs = Math.max(this.nowMs, due.at)
      due.fn()
      await nextTurn()
    }
    this.nowMs = end
    await nextTurn()
  }
}
