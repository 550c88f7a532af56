// A provider's swap status stream: one WebSocket to its /v2/ws, subscribed to the `swap.update` channel for the
// swaps we follow. The provider answers a subscription with the swap's current status, so a reconnect (or a
// restart) loses nothing: every followed swap is subscribed again and its latest status arrives.
import { WebSocket } from '../vendor/ws.js'
import type { Logger } from 'pino'
import type { Timers } from '../node/index.js'
import { shownUrl, SwapStatus, withoutUserinfo } from './provider-api.js'
import { doublingDelayMs } from '../limits/index.js'

export type SwapUpdate = SwapStatus & { id: string }
type Listener = (update: SwapUpdate) => void

const maxReconnectDelayMs = 30_000
/** A failed update is handled again after 1 s, doubling to 30 s, ten times (about three minutes in all). */
const firstRetryMs = 1000
const maxRetryMs = 30_000
const updateRetries = 10

/** `http(s)://host/api` → `ws(s)://host/api/v2/ws`, the provider's default WebSocket. */
export function defaultWsUrl(httpUrl: string): string {
  return httpUrl.replace(/^http/, 'ws').replace(/\/+$/, '') + '/v2/ws'
}

export function providerUpdates({ url, log, timers }: { url: string; log: Logger; timers: Timers }) {
  const shown = shownUrl(url)
  const listeners = new Map<string, Set<Listener>>()
  let socket: WebSocket | undefined
  let closed = false
  let reconnectDelayMs = 500
  let cancelReconnect: (() => void) | undefined

  const send = (ids: string[]) => {
    if (ids.length === 0 || socket?.readyState !== WebSocket.OPEN) return
    socket.send(JSON.stringify({ op: 'subscribe', channel: 'swap.update', args: ids }))
  }

  const connect = () => {
    if (closed || socket) return
    const ws = new WebSocket(url)
    socket = ws
    ws.on('open', () => {
      reconnectDelayMs = 500
      send([...listeners.keys()])
    })
    ws.on('message', data => {
      let message: { event?: unknown; channel?: unknown; args?: unknown }
      try {
        message = JSON.parse(String(data))
      } catch {
        log.warn({ url: shown }, 'swap provider sent a WebSocket message that is not JSON')
        return
      }
      if (message.event !== 'update' || message.channel !== 'swap.update' || !Array.isArray(message.args)) return
      for (const arg of message.args) {
        const parsed = SwapStatus.safeParse(arg)
        const id = (arg as { id?: unknown })?.id
        if (!parsed.success || typeof id !== 'string') continue
        for (const listener of [...(listeners.get(id) ?? [])]) listener({ ...parsed.data, id })
      }
    })
    ws.on('error', err => log.debug({ err: withoutUserinfo(err.message), url: shown }, 'swap provider WebSocket error'))
    ws.on('close', () => {
      socket = undefined
      if (closed || listeners.size === 0) return
      cancelReconnect = timers.after(reconnectDelayMs, connect)
      reconnectDelayMs = Math.min(reconnectDelayMs * 2, maxReconnectDelayMs)
    })
  }

  return {
    /** Follows swap `id`: `listener` gets its current status, then every change. The result stops following. */
    follow(id: string, listener: Listener): () => void {
      const set = listeners.get(id) ?? new Set()
      const first = set.size === 0
      set.add(listener)
      listeners.set(id, set)
      if (!socket) connect()
      else if (first) send([id])
      return () => {
        set.delete(listener)
        if (set.size === 0) {
          listeners.delete(id)
          if (socket?.readyState === WebSocket.OPEN) {
            socket.send(JSON.stringify({ op: 'unsubscribe', channel: 'swap.update', args: [id] }))
          }
        }
      }
    },
    close(): void {
      closed = true
      cancelReconnect?.()
      socket?.terminate()
      socket = undefined
      listeners.clear()
    },
  }
}

export type ProviderUpdates = ReturnType<typeof providerUpdates>

/**
 * The swaps one flow follows, each on its provider's stream, at most once: both flows (transaction and invoice
 * swaps) keep this table the same way.
 */
export function swapFollowers<Swap extends { id: string; provider_swap_id: string; provider_url: string }>(opts: {
  updatesFor(providerUrl: string): ProviderUpdates
  onUpdate(swapId: string, update: SwapUpdate): Promise<void>
  log: Logger
  timers: Timers
  what: string
}) {
  const following = new Map<string, () => void>()
  const stop = (id: string) => {
    following.get(id)?.()
    following.delete(id)
  }
  return {
    follow(swap: Swap): void {
      if (following.has(swap.id)) return
      // The provider sends a status once (and again only on a change or a resubscription): an update whose handling
      // failed (the provider's API or our node slow to answer just after a start) is handled again, else a claim
      // waiting for our signature would wait until the next restart. A newer update replaces it.
      let latest = 0
      let cancelRetry: (() => void) | undefined
      const handle = (update: SwapUpdate, generation: number, attempt: number) => {
        opts.onUpdate(swap.id, update).catch(err => {
          if (!following.has(swap.id) || generation !== latest) {
            opts.log.warn({ err, swap: swap.id }, `${opts.what} update not handled; a later one replaces it`)
            return
          }
          if (attempt >= updateRetries) {
            opts.log.error({ err, swap: swap.id, attempts: attempt + 1 }, `${opts.what} update not handled; left for the next update or start`)
            return
          }
          const delayMs = doublingDelayMs(attempt, firstRetryMs, maxRetryMs)
          opts.log.warn({ err, swap: swap.id, retryInMs: delayMs }, `${opts.what} update not handled; trying again`)
          cancelRetry = opts.timers.after(delayMs, () => {
            cancelRetry = undefined
            if (following.has(swap.id) && generation === latest) handle(update, generation, attempt + 1)
          })
        })
      }
      const unsubscribe = opts.updatesFor(swap.provider_url).follow(swap.provider_swap_id, update => {
        cancelRetry?.()
        cancelRetry = undefined
        handle(update, ++latest, 0)
      })
      following.set(swap.id, () => {
        cancelRetry?.()
        unsubscribe()
      })
    },
    stop,
    stopAll(): void {
      for (const id of [...following.keys()]) stop(id)
    },
  }
}
