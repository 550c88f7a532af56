// The two HTTP probes a service manager or load balancer asks: `GET /healthz` (alive: the event loop answers) and
// `GET /readyz` (ready: every check below holds). Both are unauthenticated, so each answer is built from cached
// facts: the store's write check runs at most once per `storeCheckMs`, the node is asked in the background on a
// timer with a timeout, never on a probe.
import { writeProbe, type Db } from '../store/index.js'

export interface CheckResult {
  ok: boolean
  detail: string
}

export interface ProbeAnswer {
  status: number
  body: unknown
}

export type CheckName = 'start' | 'migrations' | 'store' | 'node' | 'relays'

export interface Probes {
  alive(): ProbeAnswer
  ready(): ProbeAnswer
  /** Records a fact learned during the start (migrations applied, the start finished). */
  set(name: CheckName, ok: boolean, detail: string): void
  /** From now on the store check tries a small write on this connection (rolled back). */
  watchStore(db: Db): void
  /**
   * For a store behind a network connection (PostgreSQL): `check` runs now and then every `storeCheckMs` in the
   * background, each with a timeout; probes read its last answer. Replaces a `watchStore` connection.
   */
  watchStoreBy(check: () => Promise<CheckResult>): void
  /** Asks `reason` now and then every `everyMs`; a reason, an error or no answer within `timeoutMs` fails the check. */
  watchNode(reason: () => Promise<string | undefined>, opts: { everyMs: number; timeoutMs: number }): void
  /** How the relays check is read at each probe: connected service relays, or the embedded relay being up. */
  watchRelays(read: () => CheckResult): void
  stop(): void
}

/** The store's write check is repeated at most this often, whatever the probe rate. */
const storeCheckMs = 5_000

export function createProbes(now: () => number = Date.now): Probes {
  const checks: Record<CheckName, CheckResult> = {
    start: { ok: false, detail: 'starting' },
    migrations: { ok: false, detail: 'not applied yet' },
    store: { ok: false, detail: 'not open yet' },
    node: { ok: false, detail: 'connecting to the node' },
    relays: { ok: false, detail: 'not connected yet' },
  }
  let store: { db: Db; checkedAt: number } | undefined
  let readRelays: (() => CheckResult) | undefined
  let nodeTimer: NodeJS.Timeout | undefined
  let storeTimer: NodeJS.Timeout | undefined
  let stopped = false

  const checkStore = () => {
    if (!store || now() - store.checkedAt < storeCheckMs) return
    store.checkedAt = now()
    checks.store = writeProbe(store.db)
  }

  return {
    alive: () => ({ status: 200, body: { alive: true } }),
    ready: () => {
      checkStore()
      if (readRelays) checks.relays = safely(readRelays)
      const ready = Object.values(checks).every(check => check.ok)
      return { status: ready ? 200 : 503, body: { ready, checks: { ...checks } } }
    },
    set: (name, ok, detail) => {
      checks[name] = { ok, detail }
    },
    watchStore: db => {
      store = { db, checkedAt: -Infinity }
      checkStore()
    },
    watchStoreBy: check => {
      store = undefined
      const ask = async () => {
        let timer: NodeJS.Timeout | undefined
        const timeout = new Promise<CheckResult>(resolve => {
          timer = setTimeout(() => resolve({ ok: false, detail: `no answer within ${storeCheckMs} ms` }), storeCheckMs)
        })
        const failed = (err: unknown): CheckResult => ({ ok: false, detail: `unreachable: ${(err as Error).message}` })
        const result = await Promise.race([check().catch(failed), timeout])
        clearTimeout(timer)
        if (stopped) return
        checks.store = result
        storeTimer = setTimeout(ask, storeCheckMs)
        storeTimer.unref()
      }
      void ask()
    },
    watchNode: (reason, opts) => {
      const ask = async () => {
        let timer: NodeJS.Timeout | undefined
        const timeout = new Promise<string>(resolve => {
          timer = setTimeout(() => resolve(`no answer within ${opts.timeoutMs} ms`), opts.timeoutMs)
        })
        const result = await Promise.race([reason().catch(err => (err as Error).message || 'unreachable'), timeout])
        clearTimeout(timer)
        if (stopped) return
        const at = new Date(now()).toISOString()
        checks.node = result === undefined ? { ok: true, detail: `answered at ${at}` } : { ok: false, detail: `${result} (at ${at})` }
        nodeTimer = setTimeout(ask, opts.everyMs)
        nodeTimer.unref()
      }
      void ask()
    },
    watchRelays: read => {
      readRelays = read
    },
    stop: () => {
      stopped = true
      clearTimeout(nodeTimer)
      clearTimeout(storeTimer)
    },
  }
}

function safely(read: () => CheckResult): CheckResult {
  try {
    return read()
  } catch (err) {
    return { ok: false, detail: (err as Error).message }
  }
}
