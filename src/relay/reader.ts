// Stored events are read in pages and sent at the pace the client takes them and its budgets allow. A REQ for
// thousands of stored events used to be one synchronous query and thousands of sends in one turn: the whole thread
// stood still meanwhile. Here each REQ's stored part is a job that reads one page at a time (keyset on
// created_at DESC, id ASC, so a page never rereads the previous ones). Jobs take turns, a few milliseconds of pages
// per turn of the event loop, the daemon's own first, then one page per client address in rotation: a client with
// a thousand REQs open gets no more turns than one with a single REQ. A stranger's first page waits for its turn too
// (run on arrival, fifty connections opening twenty REQs each made one pass over the sockets take a second, and a
// new wallet's handshake waited behind it). A job waits (and others go on) while its client has more than
// `maxPendingBytes` unsent, or while its connection's or its address's stored-event budget is spent: that is
// back-pressure for the one client, never a stall for the others.
import type { Clock } from '../bus/index.js'
import type { EventStore, QueryCursor, StoredEvent } from './event-store.js'
import type { Filter } from './filter.js'
import type { RelayLimits, TokenBucket } from './limits.js'
import { unixSeconds } from '../units/index.js'

export interface ReadJob {
  filters: Filter[]
  /** Sends one stored event (its raw JSON). */
  send(raw: string): void
  /** Whether the client may be sent this stored event (private mode, private-reads.ts); all when absent. */
  visible?(raw: string): boolean
  /** All stored events are sent. */
  done(): void
  /** The subscription was closed or replaced, or the connection is gone: the job is dropped. */
  cancelled(): boolean
  /** Bytes waiting unsent to the client. */
  unsent(): number
  /** Stored-event budgets it spends (connection, address); none for the daemon's own. */
  budgets: TokenBucket[]
  /** Byte budgets it spends (the address's), charged as each event is sent; none for the daemon's own. */
  byteBudgets: TokenBucket[]
  /** The client's address (addresses.ts): strangers' jobs take turns address by address. */
  address: string
  /** The daemon's own connection: served before strangers. */
  own: boolean
}

export interface Reader {
  /** The daemon's own job runs its first page now (sent before this returns); a stranger's waits for its turn. */
  start(job: ReadJob): void
  /** Jobs not yet done. */
  pending(): number
  close(): void
}

/** Time given to pages in one turn before the loop goes back to sockets and timers. */
const sliceMs = 8
/** The bytes a job over its byte budget waits for before it reads again (at most the budget's burst). */
const pageBytes = 64 * 1024
/** How long a job waiting for its client to take what was sent sleeps before it looks again. */
const drainPollMs = 20

/** One filter's stream of stored events: the page read ahead, and where the next page starts. */
interface Source {
  filter: Filter
  cursor?: QueryCursor
  /** Events this filter may still read (its limit). */
  remaining: number
  buffer: StoredEvent[]
  /** Nothing more to read (the buffer may still hold some). */
  drained: boolean
}

interface Running {
  job: ReadJob
  sources: Source[]
  /** Ids already sent, when several filters may name the same event. */
  sent?: Set<string>
}

export function startReader(store: EventStore, clock: Clock, limits: () => RelayLimits): Reader {
  const own: Running[] = []
  /** Strangers' jobs per address; the Map's order is the order of the addresses' next turns. */
  const strangers = new Map<string, Running[]>()
  const timers = new Set<NodeJS.Timeout>()
  let scheduled = false
  let closed = false
  let active = 0

  const schedule = () => {
    if (scheduled || closed) return
    scheduled = true
    setImmediate(turn)
  }
  const enqueue = (running: Running) => {
    if (running.job.own) {
      own.push(running)
      return
    }
    const queue = strangers.get(running.job.address)
    if (queue) queue.push(running)
    else strangers.set(running.job.address, [running])
  }
  /** The next stranger's job: the first of the address whose turn it is; that address goes to the back. */
  const nextStranger = (): Running | undefined => {
    const first = strangers.entries().next()
    if (first.done) return undefined
    const [address, queue] = first.value
    const running = queue.shift()!
    strangers.delete(address)
    if (queue.length > 0) strangers.set(address, queue)
    return running
  }
  const wake = (running: Running, ms: number) => {
    const timer = setTimeout(() => {
      timers.delete(timer)
      enqueue(running)
      schedule()
    }, ms)
    timers.add(timer)
  }

  /**
   * One page of one job; false when the job left the queue (done, dropped or asleep). Several filters are merged
   * newest first (created_at DESC, id ASC), as one query over all of them would send them.
   */
  function step(running: Running): boolean {
    const { job } = running
    if (job.cancelled()) return finish(running, false)
    const l = limits()
    if (job.unsent() > l.maxPendingBytes) {
      wake(running, drainPollMs)
      return false
    }
    let want = l.pageSize
    for (const budget of job.budgets) want = Math.min(want, budget.available())
    if (want < 1 || job.byteBudgets.some(budget => budget.available() < 1)) {
      // Woken at its budget's first token, a job kept spent (a flood of REQs reads at its budget's rate) was sent one
      // event per wake: a timer, a turn, a query and a write each. It sleeps until a page's worth has refilled.
      const ms = [...job.budgets.map(budget => budget.msUntil(l.pageSize)), ...job.byteBudgets.map(budget => budget.msUntil(pageBytes))]
      wake(running, Math.max(...ms, 1))
      return false
    }
    const now = unixSeconds(clock.now())
    let sent = 0
    while (sent < want) {
      let newest: Source | undefined
      for (const source of running.sources) {
        if (source.buffer.length === 0 && !source.drained) readAhead(source, now, l.pageSize)
        const head = source.buffer[0]
        if (!head) continue
        const best = newest?.buffer[0]
        if (!best || head.createdAt > best.createdAt || (head.createdAt === best.createdAt && head.id < best.id)) newest = source
      }
      if (!newest) {
        for (const budget of job.budgets) budget.takeUpTo(sent)
        return finish(running, true)
      }
      const event = newest.buffer.shift()!
      if (running.sent) {
        if (running.sent.has(event.id)) continue
        running.sent.add(event.id)
      }
      if (job.visible && !job.visible(event.raw)) continue
      job.send(event.raw)
      sent++
      for (const budget of job.byteBudgets) budget.charge(event.raw.length)
      if (job.byteBudgets.some(budget => budget.available() < 1)) break
    }
    for (const budget of job.budgets) budget.takeUpTo(sent)
    return true
  }

  function readAhead(source: Source, now: number, pageSize: number): void {
    const want = Math.min(pageSize, source.remaining)
    const page = want > 0 ? store.queryPage(source.filter, now, want, source.cursor) : []
    source.buffer = page
    source.remaining -= page.length
    const last = page[page.length - 1]
    if (last) source.cursor = { createdAt: last.createdAt, id: last.id }
    if (page.length < want || source.remaining <= 0) source.drained = true
  }

  function finish(running: Running, complete: boolean): false {
    active--
    if (complete && !running.job.cancelled()) running.job.done()
    return false
  }

  function turn(): void {
    scheduled = false
    const until = performance.now() + sliceMs
    while (performance.now() < until) {
      const running = own.shift() ?? nextStranger()
      if (!running) break
      if (step(running)) enqueue(running)
    }
    if (own.length > 0 || strangers.size > 0) schedule()
  }

  return {
    start(job) {
      if (closed) return
      active++
      const running: Running = {
        job,
        sources: job.filters.map(filter => ({ filter, remaining: filter.limit, buffer: [], drained: filter.limit <= 0 })),
        ...(job.filters.length > 1 ? { sent: new Set<string>() } : {}),
      }
      if (!job.own || step(running)) {
        enqueue(running)
        schedule()
      }
    },
    pending: () => active,
    close() {
      closed = true
      for (const timer of timers) clearTimeout(timer)
      timers.clear()
      own.length = 0
      strangers.clear()
    },
  }
}
