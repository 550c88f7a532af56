// What a SIGHUP may change without a restart, and what it reports. The running config is compared key by key with
// the file read again: the keys below are applied at once, every other changed key is named as needing a restart
// (and keeps its running value, so the next reload names it again until the daemon restarts).
import type { Logger } from 'pino'
import type { Config } from '../config/index.js'
import { relayLimitsOf, type RelayLimits } from '../relay/index.js'

/** Keys applied by a reload; the daemon knows how to apply each (daemon.ts). */
export const reloadableKeys = [
  'log.level',
  'http.max_body_bytes',
  'http.guest_max_body_bytes',
  'http.headers_timeout_seconds',
  'http.request_timeout_seconds',
  // The embedded relay's limits (relayLimitsOf in relay/relay-thread.ts), sent to its thread.
  'nostr.relay_open_writes',
  'nostr.relay_max_connections',
  'nostr.relay_max_connections_per_address',
  'nostr.relay_connections_per_second_per_address',
  'nostr.relay_reserved_connections',
  'nostr.relay_connection_refusal_delay_seconds',
  'nostr.relay_idle_timeout_seconds',
  'nostr.relay_max_subscriptions',
  'nostr.relay_max_subscriptions_per_address',
  'nostr.relay_max_limit',
  'nostr.relay_max_ephemeral_limit',
  'nostr.relay_stored_events_per_second',
  'nostr.relay_stored_events_per_second_per_address',
  'nostr.relay_stored_bytes_per_second_per_address',
  'nostr.relay_events_per_second_per_author',
  'nostr.relay_events_per_second_per_address',
  'nostr.relay_messages_per_second_per_address',
  'nostr.relay_private_requests',
  'nostr.relay_max_request_bytes',
  'nostr.relay_request_bytes_per_second_per_address',
  'nostr.relay_new_keys_per_minute_per_address',
  'nostr.relay_max_store_bytes',
  'nostr.relay_max_author_bytes',
  'nostr.relay_max_address_bytes',
  'nostr.relay_min_free_bytes',
  'nostr.relay_trusted_proxies',
] as const
export type ReloadableKey = (typeof reloadableKeys)[number] | 'nostr.relays'

export interface ReloadPlan {
  /** The config to run with from now on: the new values of the reloadable keys, the running ones elsewhere. */
  next: Config
  applied: ReloadableKey[]
  needsRestart: string[]
}

/**
 * `relaysReloadable`: the daemon serves on external relays and can move to others while running. Moving between the
 * embedded relay (an empty list) and external ones needs a restart either way.
 */
export function planReload(running: Config, read: Config, relaysReloadable = false): ReloadPlan {
  const changed = changedKeys(running, read)
  const relays = relaysReloadable && running.nostr.relays.length > 0 && read.nostr.relays.length > 0
  const reloadable = (key: string) => (reloadableKeys as readonly string[]).includes(key) || (relays && key === 'nostr.relays')
  const applied = changed.filter((key): key is ReloadableKey => reloadable(key))
  const needsRestart = changed.filter(key => !reloadable(key))
  const next = structuredClone(running)
  for (const key of applied) setKey(next, key, getKey(read, key))
  return { next, applied, needsRestart }
}

/** One line for the log: what was applied, what needs a restart. */
export function reloadSummary(plan: ReloadPlan): string {
  const applied = plan.applied.length > 0 ? `applied ${plan.applied.join(', ')}` : 'nothing to apply'
  const restart = plan.needsRestart.length > 0 ? `; needs a restart: ${plan.needsRestart.join(', ')}` : ''
  return `config reloaded: ${applied}${restart}`
}

/** Dotted paths of the leaves that differ; arrays and records of records count as one value each. */
export function changedKeys(a: unknown, b: unknown, prefix = ''): string[] {
  if (isSection(a) && isSection(b) && !isLeafRecord(prefix)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()
    return keys.flatMap(key => changedKeys(a[key], b[key], prefix ? `${prefix}.${key}` : key))
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [prefix]
}

const isSection = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** Records whose keys are data, not settings (`rates.providers`): compared whole. */
const isLeafRecord = (key: string) => key === 'rates.providers'

function getKey(config: Config, key: string): unknown {
  return key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], config)
}

function setKey(config: Config, key: string, value: unknown): void {
  const parts = key.split('.')
  const section = parts.slice(0, -1).reduce<Record<string, unknown>>((node, part) => node[part] as Record<string, unknown>, config as never)
  section[parts[parts.length - 1]!] = structuredClone(value)
}

export interface ReloadDeps {
  running: Config
  /** Reads the file, environment and flags again; throws on a bad file. */
  load(): Config
  log: Logger
  setLogLevel(level: Config['log']['level']): void
  setHttpLimits(limits: { maxBodyBytes: number; guestMaxBodyBytes: number; headersTimeoutMs: number; requestTimeoutMs: number }): void
  /** The embedded relay's thread, when it runs: it gets the `[nostr] relay_*` limits of the new config. */
  relay?: { setLimits(limits: Partial<RelayLimits>): void }
  /** Moves the daemon to other external relays; absent when it runs the embedded one. */
  setRelays?(urls: readonly string[]): Promise<void>
}

/** Applies a SIGHUP; returns the config now running (the old one when the file could not be read). */
export function reloadConfig({ running, load, log, setLogLevel, setHttpLimits, relay, setRelays }: ReloadDeps): Config {
  let read: Config
  try {
    read = load()
  } catch (err) {
    log.error({ error: (err as Error).message }, 'config reload failed; the running config is kept')
    return running
  }
  const plan = planReload(running, read, setRelays !== undefined)
  const summary = { applied: plan.applied, needs_restart: plan.needsRestart }
  // The line is written at the more verbose of the two levels, so that it shows whichever way the level moved.
  const quieter = pinoLevels[plan.next.log.level] > pinoLevels[running.log.level]
  if (quieter) log.info(summary, reloadSummary(plan))
  setLogLevel(plan.next.log.level)
  setHttpLimits({
    maxBodyBytes: plan.next.http.max_body_bytes,
    guestMaxBodyBytes: plan.next.http.guest_max_body_bytes,
    headersTimeoutMs: plan.next.http.headers_timeout_seconds * 1000,
    requestTimeoutMs: plan.next.http.request_timeout_seconds * 1000,
  })
  if (plan.applied.some(key => key.startsWith('nostr.relay_'))) relay?.setLimits(relayLimitsOf(plan.next.nostr))
  if (plan.applied.includes('nostr.relays')) {
    setRelays!(plan.next.nostr.relays).catch(err => log.error({ err }, 'could not move to the new relays'))
  }
  if (!quieter) log.info(summary, reloadSummary(plan))
  return plan.next
}

const pinoLevels: Record<Config['log']['level'], number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity }

/**
 * The daemon's move to other external relays: the shared list is changed in place (its users read it at each use:
 * invoices' pointers, NWC URIs, the extensions' publisher), then each transport's links follow, then `after`.
 */
export function relayMover(relayUrls: string[], targets: { setRelays(urls: readonly string[]): Promise<void> }[], after: () => void) {
  return async (urls: readonly string[]) => {
    relayUrls.splice(0, relayUrls.length, ...urls)
    await Promise.all(targets.map(target => target.setRelays(urls)))
    after()
  }
}
