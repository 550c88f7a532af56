// One client connection: its subscriptions, its budgets, and the NIP-01 messages it sends (EVENT, REQ, CLOSE).
// Refusals use NIP-01's machine-readable prefixes (invalid:, blocked:, rate-limited:, unsupported:, error:) so a
// client can branch on them. The daemon's own connections (`own`) skip the stranger's budgets and write policy.
import { randomUUID } from 'node:crypto'
import type { Logger } from 'pino'
import type { WebSocket } from 'ws'
import { getEventHash } from 'nostr-tools/pure'
import { okOfSave } from './save-queue.js'
import { liveFilter, matchOf, mayMatchEphemeral, parseFilter, type Filter, type LiveFilter } from './filter.js'
import { tokenBucket, type TokenBucket } from './limits.js'
import { expirationOf, isHex64, kindClass, parseEventShape, parseMessage, rawOf, type NostrEvent } from './nostr-event.js'
import { requestRefusal } from './request-budgets.js'
import { writeRefusal } from './policy.js'
import { requestKinds } from '../nostr-kinds/index.js'
import type { ClientSession, RelayCore, SessionContext } from './session-contract.js'
import { unixSeconds } from '../units/index.js'
import { privateKinds, readerIdentity } from './private-reads.js'
import { readingPause } from './reading-pause.js'

export type { ClientSession, RelayCore, SessionContext }

export function clientSession(socket: WebSocket, core: RelayCore, log: Logger, ctx: SessionContext): ClientSession {
  const { clock, store } = core
  const subscriptions = new Map<string, LiveFilter[]>()
  /** Read jobs hold this object; a replaced or closed subscription gets a new one, so the old job drops. */
  const generations = new Map<string, object>()
  const bucket = tokenBucket(clock, () => core.limits.messagesPerSecond, () => core.limits.messageBurst)
  const reads: TokenBucket = tokenBucket(clock, () => core.limits.storedEventsPerSecond, () => 2 * core.limits.storedEventsPerSecond)
  /** One event from the connection's and the address's read budgets, or none when either is spent. */
  const takeRead = (bytes: number) => {
    if (reads.available() < 1 || ctx.state.reads.available() < 1 || ctx.state.readBytes.available() < 1) return false
    reads.take()
    ctx.state.reads.take()
    ctx.state.readBytes.charge(bytes)
    return true
  }
  let lastActivity = clock.now()
  /** NIP-42: the keys this connection authenticated as; what it may read of the private kinds in private mode. */
  const identity = readerIdentity()
  let challenged = false
  /** In private mode a stranger's connection is sent only the private-kind events it is party to. */
  const hidden = (event: Pick<NostrEvent, 'kind' | 'pubkey' | 'tags'>) => !ctx.own && core.limits.privateRequests && !identity.mayRead(event)
  let released = false
  /** Paused while the client is over a budget; what it had sent by then is held (reading-pause.ts). */
  const reading = readingPause(socket, handle)
  let corked = false
  const uncork = () => {
    corked = false
    ctx.tcp!.uncork()
  }

  const setSubscription = (subId: string, filters: LiveFilter[]) => {
    if (!subscriptions.has(subId)) ctx.state.subscriptions++
    subscriptions.set(subId, filters)
    if (ctx.own) core.ownSubscriptionsChanged()
  }
  const dropSubscription = (subId: string) => {
    generations.delete(subId)
    if (!subscriptions.delete(subId)) return
    ctx.state.subscriptions--
    if (ctx.own) core.ownSubscriptionsChanged()
  }

  function send(message: string): void {
    if (socket.readyState !== socket.OPEN) return
    // A client that stops reading would make us buffer without bound; drop it instead.
    if (socket.bufferedAmount > core.limits.maxBufferedBytes) {
      log.warn({ buffered: socket.bufferedAmount }, 'relay client dropped: not reading fast enough')
      socket.terminate()
      return
    }
    // A batch of stored events is answered and relayed in one go: the daemon's connection gets one OK and one EVENT
    // per request of the batch. ws writes each frame on its own (a writev per message was a seventh of this thread's
    // time); held until the end of this turn they leave in one write, and the reader gets them in one chunk.
    if (ctx.tcp && !corked) {
      corked = true
      ctx.tcp.cork()
      process.nextTick(uncork)
    }
    socket.send(message)
  }
  const ok = (id: string, accepted: boolean, reason: string) => {
    if (!accepted) core.refused(reason)
    send(JSON.stringify(['OK', id, accepted, reason]))
  }
  // CLOSED always leaves no subscription under that id: NIP-01 has a REQ replace its namesake even when refused.
  const closed = (subId: string, reason: string) => {
    dropSubscription(subId)
    core.refused(reason)
    send(JSON.stringify(['CLOSED', subId, reason]))
  }
  const notice = (text: string) => {
    core.refused(text)
    send(JSON.stringify(['NOTICE', text]))
  }

  /** Answers a refused message in the form its type expects, so clients waiting on an OK or a CLOSED hear back. */
  function refuse(message: unknown[], reason: string): void {
    const [type, second] = message
    const event = second as { id?: unknown } | undefined
    if (type === 'EVENT' && isHex64(event?.id)) ok(event.id, false, reason)
    else if (type === 'REQ' && typeof second === 'string') closed(second, reason)
    else notice(reason)
  }

  /**
   * Stops reading from a client over its message budget until the budget has refilled a little: what it sends
   * meanwhile waits in its own TCP buffers, and costs this thread nothing (answering each with a refusal would).
   */
  function pauseUntilRefilled(): void {
    reading.pause(Math.max(bucket.msUntilOne(), ctx.state.messages.msUntilOne()))
  }

  function receive(data: Buffer): void {
    lastActivity = clock.now()
    reading.receive(data)
  }

  function handle(data: Buffer): void {
    const limits = core.limits
    const message = parseMessage(data)
    // Counted before anything else, so that a flood of garbage is throttled like a flood of events.
    if (!ctx.own && !(bucket.take() && ctx.state.messages.take())) {
      refuse(typeof message === 'string' ? [] : message, 'rate-limited: too many messages, slow down')
      pauseUntilRefilled()
      return
    }
    if (typeof message === 'string') return notice(message)
    if (data.length > limits.maxMessageBytes) {
      refuse(message, `invalid: message is ${data.length} bytes, more than the ${limits.maxMessageBytes} allowed`)
      return
    }
    try {
      if (message[0] === 'EVENT') onEvent(message[1], data.length)
      else if (message[0] === 'REQ') onReq(message[1], message.slice(2))
      else if (message[0] === 'CLOSE') onClose(message[1])
      else if (message[0] === 'AUTH') onAuth(message[1])
      else notice(`unsupported: message type ${JSON.stringify(message[0]).slice(0, 40)}`)
    } catch (err) {
      const errorId = randomUUID()
      log.error({ err, errorId }, 'relay failed to handle a client message')
      refuse(message, `error: internal error ${errorId}`)
    }
  }

  function onEvent(value: unknown, bytes: number): void {
    const limits = core.limits
    let event: NostrEvent
    try {
      event = parseEventShape(value, limits.maxEventTags)
    } catch (err) {
      refuse(['EVENT', value], (err as Error).message)
      return
    }
    const now = unixSeconds(clock.now())
    if (event.created_at > now + limits.maxFutureSeconds) {
      ok(event.id, false, `invalid: created_at is more than ${limits.maxFutureSeconds} seconds in the future`)
      return
    }
    // The daemon signed what it sends on its own connection, in this process: checking it again would double the
    // signature work of every reply (the in-process relay remembered such events as verified for the same reason).
    if (ctx.own) return verified(event, true, now)
    // Cheap refusals before the signature check, which costs the most.
    if (!ctx.state.writes.take()) {
      ok(event.id, false, 'rate-limited: too many events from your address, slow down')
      return
    }
    const policy = limits.openWrites ? undefined : writeRefusal(event, core.served)
    if (policy) return ok(event.id, false, policy)
    const overBudget = requestKinds.has(event.kind) ? requestRefusal(ctx.state, limits, event.pubkey, bytes) : undefined
    if (overBudget) {
      ok(event.id, false, overBudget.reason)
      // What the client sends meanwhile waits in its own TCP buffers until this one could pass.
      if (overBudget.pauseMs !== undefined) reading.pause(overBudget.pauseMs)
      return
    }
    if (!core.verifyLater) return verified(event, core.verify(event), now)
    const later = event
    core.verifyLater(later, valid => {
      // Outside receive's try: a failure here is answered the same way.
      try {
        verified(later, valid, now)
      } catch (err) {
        const errorId = randomUUID()
        log.error({ err, errorId }, 'relay failed to handle a client message')
        ok(later.id, false, `error: internal error ${errorId}`)
      }
    })
  }

  function verified(event: NostrEvent, valid: boolean, now: number): void {
    if (!valid) {
      const reason = getEventHash(event) === event.id ? 'signature does not verify' : 'id does not match the event'
      ok(event.id, false, `invalid: ${reason}`)
      return
    }
    // After the signature: a forged author must not spend someone else's budget.
    if (!ctx.own && !authorBucket(event.pubkey).take()) {
      ok(event.id, false, 'rate-limited: too many events from this author, slow down')
      return
    }
    const expiration = expirationOf(event)
    if (expiration !== undefined && expiration <= now) {
      ok(event.id, false, 'invalid: event has expired') // NIP-40: relays drop expired events on arrival
      return
    }
    if (kindClass(event.kind) === 'ephemeral') return relayEphemeral(event, now)
    if (core.diskLow()) {
      // The payments database needs the disk more: nothing is stored.
      ok(event.id, false, 'blocked: the relay is not storing events: its disk is nearly full')
      return
    }
    core.saves.save(event, now, result => {
      if ('error' in result) {
        const errorId = randomUUID()
        log.error({ err: result.error, errorId }, 'relay failed to store an event')
        ok(event.id, false, `error: internal error ${errorId}`)
        return
      }
      const [accepted, reason] = okOfSave(result.outcome, core.limits)
      ok(event.id, accepted, reason)
      if (result.outcome === 'stored') core.broadcast(event, rawOf(event))
    }, { address: ctx.address, own: ctx.own })
  }

  /**
   * An ephemeral event (a request, a reply) is relayed at once and kept in memory for its retention
   * (recent-events.ts). One that nobody it names heard live (a daemon away, a wallet that dropped its connection)
   * is written to disk as well, so that it is still there for them after a restart of the relay; its OK then waits
   * for the commit. Without disk room (the floor, a budget) it is kept in memory only: NIP-01 asks no storage at all.
   */
  function relayEphemeral(event: NostrEvent, now: number): void {
    const raw = rawOf(event)
    if (core.store.remember(event, raw, now) === 'duplicate') return ok(event.id, true, 'duplicate: already have this event')
    if (core.broadcast(event, raw) || core.diskLow()) return ok(event.id, true, '')
    core.saves.save(event, now, result => {
      // Relayed and kept in memory already: a failed write costs only the copy that would outlive a restart.
      if ('error' in result) log.error({ err: result.error }, 'relay failed to write an ephemeral event to disk; it stays in memory')
      ok(event.id, true, '')
    }, { address: ctx.address, own: ctx.own })
  }

  function onReq(subId: unknown, rawFilters: unknown[]): void {
    const limits = core.limits
    if (typeof subId !== 'string' || subId.length === 0 || subId.length > limits.maxSubscriptionIdLength) {
      notice(`invalid: a subscription id is a string of 1 to ${limits.maxSubscriptionIdLength} characters`)
      return
    }
    if (rawFilters.length === 0) return closed(subId, 'invalid: a REQ needs at least one filter')
    if (rawFilters.length > limits.maxFilters) {
      return closed(subId, `invalid: more than ${limits.maxFilters} filters in one REQ`)
    }
    const isNew = !subscriptions.has(subId)
    // A client over a cap that asks again at once would have this thread refuse it in a loop: its socket is not read
    // for a while after each such refusal (what it sends meanwhile waits in its own buffers).
    if (isNew && subscriptions.size >= limits.maxSubscriptions && !ctx.own) {
      reading.pause(limits.overCapPauseMs)
      return closed(subId, `blocked: more than ${limits.maxSubscriptions} open subscriptions on this connection`)
    }
    if (isNew && ctx.state.subscriptions >= limits.maxSubscriptionsPerAddress && !ctx.own) {
      reading.pause(limits.overCapPauseMs)
      return closed(subId, `rate-limited: more than ${limits.maxSubscriptionsPerAddress} open subscriptions from your address`)
    }
    let filters: Filter[]
    try {
      // The daemon's own resubscription replays every request since it last saw one, however many.
      filters = rawFilters.map(raw => parseFilter(raw, limits, ctx.own ? Infinity : limits.maxLimit))
    } catch (err) {
      return closed(subId, (err as Error).message)
    }
    if (!ctx.own) {
      // Stored ephemeral events are kept only for whoever they are addressed to (a reconnecting daemon, a wallet
      // awaiting its reply): a filter that names no `authors` and no `#p` gets only a few of them.
      for (const filter of filters) {
        if (mayMatchEphemeral(filter) && !filter.authors && !filter.tags.has('p')) filter.limit = Math.min(filter.limit, limits.maxEphemeralLimit)
      }
      if (limits.privateRequests && !identity.authenticated() && filters.some(filter => filter.kinds?.some(kind => privateKinds.has(kind)))) {
        challenge()
        return closed(subId, 'auth-required: this relay sends requests and replies only to their author or addressee (NIP-42)')
      }
      const wantsStored = filters.some(filter => filter.limit > 0)
      if (wantsStored && (reads.available() < 1 || ctx.state.reads.available() < 1 || ctx.state.readBytes.available() < 1)) {
        reading.pause(Math.max(reads.msUntilOne(), ctx.state.reads.msUntilOne(), ctx.state.readBytes.msUntilOne()))
        return closed(subId, 'rate-limited: too many stored events requested, try again in a few seconds')
      }
    }
    // Live from now on; the stored events follow in pages (reader.ts), in the reader's turns.
    setSubscription(subId, filters.map(liveFilter))
    const generation = {}
    generations.set(subId, generation)
    const prefix = `["EVENT",${JSON.stringify(subId)},`
    core.reader.start({
      filters,
      own: ctx.own,
      address: ctx.address,
      budgets: ctx.own ? [] : [reads, ctx.state.reads],
      byteBudgets: ctx.own ? [] : [ctx.state.readBytes],
      send: raw => send(prefix + raw + ']'),
      ...(!ctx.own && limits.privateRequests ? { visible: (raw: string) => !hidden(JSON.parse(raw) as NostrEvent) } : {}),
      done: () => send(JSON.stringify(['EOSE', subId])),
      cancelled: () => released || generations.get(subId) !== generation || socket.readyState !== socket.OPEN,
      unsent: () => socket.bufferedAmount,
    })
  }

  /** Sends this connection's NIP-42 challenge, once. */
  function challenge(): void {
    if (challenged) return
    challenged = true
    send(JSON.stringify(['AUTH', identity.challenge]))
  }

  function onAuth(value: unknown): void {
    const answer = identity.answer(value, { challenged, host: ctx.host, nowSeconds: unixSeconds(clock.now()), limits: core.limits, verify: core.verify })
    if ('notice' in answer) notice(answer.notice)
    else ok(answer.id, answer.refusal === undefined, answer.refusal ?? '')
  }

  function onClose(subId: unknown): void {
    if (typeof subId !== 'string') return notice('invalid: CLOSE needs a subscription id')
    dropSubscription(subId)
  }

  const authorBuckets = core.authorBuckets
  function authorBucket(pubkey: string): TokenBucket {
    let b = authorBuckets.get(pubkey)
    if (!b) authorBuckets.set(pubkey, (b = tokenBucket(clock, () => core.limits.eventsPerSecondPerAuthor, () => 5 * core.limits.eventsPerSecondPerAuthor)))
    return b
  }

  const toDaemon = (event: NostrEvent) => event.tags.some(tag => tag[0] === 'p' && typeof tag[1] === 'string' && core.served.has(tag[1]))

  /** Sends the event to each matching subscription; true when a filter that matched names it by `#p`. */
  function deliver(event: NostrEvent, raw: string): boolean {
    if (hidden(event)) return false
    // Charged to this stranger's read budget (see below); whether it goes to the daemon is read once, when needed.
    const chargeable = !ctx.own && kindClass(event.kind) === 'ephemeral'
    let daemonBound: boolean | undefined
    let addressed = false
    for (const [subId, filters] of subscriptions) {
      const match = matchOf(filters, event)
      if (match === 'none') continue
      // Others' requests and replies, to a stranger's filter that does not name an addressee: each is charged to the
      // read budgets, and over them not sent (NIP-01 promises no delivery of ephemeral events). Every payment's
      // events sent to each of a flooder's subscriptions slowed the payments to a third. A request to a key the
      // daemon serves is charged even to a filter naming that key: a wallet names its own key, only a watcher the
      // daemon's.
      if (chargeable && (match === 'matched' || (daemonBound ??= toDaemon(event))) && !takeRead(raw.length)) continue
      send(`["EVENT",${JSON.stringify(subId)},${raw}]`)
      if (match === 'addressed') addressed = true
    }
    return addressed
  }

  // In private mode a stranger is asked to authenticate at once (NIP-42): a client that can, does so before it asks.
  if (!ctx.own && core.limits.privateRequests) challenge()

  return {
    receive,
    deliver,
    subscriptionCount: () => subscriptions.size,
    lastActivity: () => lastActivity,
    addressedKeys() {
      const keys: string[] = []
      for (const filters of subscriptions.values()) for (const filter of filters) {
        for (const [name, values] of filter.tags) if (name === 'p') keys.push(...values)
      }
      return keys
    },
    release() {
      if (released) return
      released = true
      reading.release()
      ctx.state.subscriptions -= subscriptions.size
      const hadAny = subscriptions.size > 0
      subscriptions.clear()
      generations.clear()
      if (ctx.own && hadAny) core.ownSubscriptionsChanged()
    },
  }
}
