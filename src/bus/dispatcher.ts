// The one dispatcher every transport feeds: look up → authenticate → validate → handle. One-shot answers and
// streams share one path (a handler's Promise becomes a one-item Observable). Timings of each step and the outcome
// of every call are published for metrics; handlers never record metrics themselves.
import { randomUUID } from 'node:crypto'
import { Observable, Subject, defer, from, isObservable, lastValueFrom, type Observer } from '../vendor/rxjs.js'
import type { Logger } from 'pino'
import type { z } from 'zod'
import type { CatalogueEntry } from '../../schema/catalogue.js'
import type { Caller, Clock, Credentials, Transport } from './context.js'
import { OperationError, isOperationError, mockDisabledReason, storeFaultReason } from './errors.js'
import { isStoreFault } from '../store/index.js'
import type { Registry } from './registry.js'
import { maxInputDepth, nestedDeeperThan } from './input-depth.js'
import { fieldNoStoreKeeps } from './input-text.js'
import { knownFieldsBeside, likelyMeant, unknownFields } from './unknown-fields.js'
import type { AccessLine, AccessLog } from './access-log.js'

/** Microseconds spent in each step of one call (upstream usage-metric TLV fields 3–6). */
export interface CallTimings {
  authUs: number
  validateUs: number
  handleUs: number
}

/**
 * Turns a call's credentials into a caller for the operation; the auth room supplies it at start. The client's
 * address, where the transport knows it, is what budgets of wrong credentials are counted under.
 */
export type Authenticate = (entry: CatalogueEntry, creds: Credentials, clientAddress?: string) => Promise<Caller>

export interface Call {
  /** Operation name or alias. */
  op: string
  credentials: Credentials
  /** Raw input as the transport assembled it; validated against the catalogue before the handler runs. */
  input: unknown
  transport: Transport
  requestId: string
  signal?: AbortSignal
  /**
   * Called with the call's outcome when it finishes. A transport that passes it writes the access line itself (it
   * knows more, e.g. the HTTP status); otherwise the dispatcher writes it.
   */
  onOutcome?: (outcome: CallOutcome) => void
  /** The caller's network address where the transport knows it (HTTP's socket peer). */
  clientAddress?: string
  /**
   * Called once the call passed authentication and validation, just before its handler runs. A stream's
   * subscription never completes, so this is how its transport learns the subscription was accepted.
   */
  onHandling?: () => void
}

export interface CallOutcome {
  op: string
  transport: Transport
  caller: Caller | null
  ok: boolean
  errorCode: string | null
  /**
   * The failure's message as the caller got it (the `reason` or `detail` of its answer), null for a success. It
   * can name what the caller sent (an invoice, a user), so it goes only where the operator reads it.
   */
  errorMessage: string | null
  timings: CallTimings
  requestId: string
  /** From dispatch to the last answer, in milliseconds. */
  durationMs: number
}

export interface Dispatcher {
  /** Resolves an operation by name or alias, or undefined. */
  resolve(op: string): CatalogueEntry | undefined
  /** Runs a call; the Observable emits the handler's answer(s) and errors with an OperationError. */
  dispatch(call: Call): Observable<unknown>
  /**
   * Runs a call for its last answer (undefined when a stream ends without one); rejects with an OperationError.
   * What a transport that answers a request once uses.
   */
  call(call: Call): Promise<unknown>
  /** One record per finished call (success or failure), for metrics. */
  outcomes$: Observable<CallOutcome>
  /**
   * Resolves with [] once no call is in flight (a clean stop waits for them), or once `limitMs` has passed with the
   * operations still running, one name a call: a call that never ends must not keep the daemon from stopping.
   */
  drain(limitMs?: number): Promise<string[]>
}

export interface DispatcherDeps {
  registry: Registry
  authenticate: Authenticate
  log: Logger
  clock: Clock
  /** Where calls without their own `onOutcome` get their access line; none when the access log is off. */
  accessLog?: AccessLog
  /** `[node] mock`: whether the catalogue's test-mode controls are served (off: refused before their input). */
  testMode?: boolean
}

export function createDispatcher({ registry, authenticate, log, clock, accessLog, testMode = false }: DispatcherDeps): Dispatcher {
  const outcomes = new Subject<CallOutcome>()
  let inFlight = 0
  /** The calls in flight by operation, for a stop that could not wait for them all. */
  const running = new Map<string, number>()
  let drained: (() => void)[] = []
  const settle = (op: string) => {
    inFlight--
    const left = running.get(op)! - 1
    if (left === 0) running.delete(op)
    else running.set(op, left)
    if (inFlight === 0) for (const resolve of drained.splice(0)) resolve()
  }
  const stillRunning = () => [...running].flatMap(([op, count]) => Array.from({ length: count }, () => op))
  const drain = (limitMs?: number) => {
    if (inFlight === 0) return Promise.resolve([])
    return new Promise<string[]>(resolve => {
      const done = () => {
        clearTimeout(timer)
        resolve([])
      }
      const timer = limitMs === undefined || !Number.isFinite(limitMs) ? undefined : setTimeout(() => {
        drained = drained.filter(waiting => waiting !== done)
        resolve(stillRunning())
      }, limitMs)
      drained.push(done)
    })
  }

  /** A call from its start to its outcome: counted in flight until `finish` records the outcome, once. */
  function track(call: Call) {
    inFlight++
    running.set(call.op, (running.get(call.op) ?? 0) + 1)
    const dispatched = performance.now()
    const timings: CallTimings = { authUs: 0, validateUs: 0, handleUs: 0 }
    const tracked = {
      timings,
      caller: null as Caller | null,
      finished: false,
      finish(error: unknown) {
        if (tracked.finished) return
        tracked.finished = true
        settle(call.op)
        // `fail` hands over the OperationError the caller is answered with, so its message is the caller's.
        const code = error === undefined ? null : isOperationError(error) ? error.code : 'internal'
        const message = error === undefined ? null : error instanceof Error ? error.message : String(error)
        const outcome: CallOutcome = {
          op: call.op,
          transport: call.transport,
          caller: tracked.caller,
          ok: error === undefined,
          errorCode: code,
          errorMessage: message,
          timings,
          requestId: call.requestId,
          durationMs: performance.now() - dispatched,
        }
        if (call.onOutcome) call.onOutcome(outcome)
        else accessLog?.(accessLine(outcome, registry))
        outcomes.next(outcome)
      },
    }
    return tracked
  }

  /**
   * Looks the call up, authenticates and validates it, and runs its handler, handing `take` what the handler
   * returned (a promise or an Observable) and when it started, in the same task: a stream's first items can follow
   * at once. Throws what refused the call.
   */
  async function begin<T>(
    call: Call,
    tracked: ReturnType<typeof track>,
    signal: () => AbortSignal,
    take: (result: unknown, started: number) => T,
  ): Promise<T> {
    const { timings } = tracked
    const registered = registry.lookup(call.op)
    if (!registered) throw new OperationError('not_found', `unknown operation: ${call.op}`)
    const { entry, handler } = registered
    let started = performance.now()
    const caller = (tracked.caller = await authenticate(entry, call.credentials, call.clientAddress))
    timings.authUs = micros(started)
    if (entry.testMode && !testMode) throw new OperationError('forbidden', mockDisabledReason)

    started = performance.now()
    const input = validate(entry, call.input, log)
    timings.validateUs = micros(started)

    started = performance.now()
    let callLog: Logger | undefined
    const ctx = {
      caller,
      requestId: call.requestId,
      transport: call.transport,
      get log() {
        return (callLog ??= log.child({ op: entry.name, requestId: call.requestId }))
      },
      clock,
      get signal() {
        return signal()
      },
      clientAddress: call.clientAddress,
    }
    call.onHandling?.()
    return take((handler as (input: unknown, ctx: unknown) => unknown)(input, ctx), started)
  }

  /**
   * The handler's signal, made when a handler first asks for it: most never do, and an AbortController with its
   * listener plus a pino child cost ~4% of a payment's CPU when made for every call. It aborts with the
   * transport's signal, or at once when `leftEarly` says the caller has already gone.
   */
  function lazySignal(call: Call, leftEarly: () => boolean) {
    let abort: AbortController | undefined
    return {
      signal: () => {
        if (abort) return abort.signal
        const controller = (abort = new AbortController())
        if (call.signal?.aborted || leftEarly()) controller.abort()
        else call.signal?.addEventListener('abort', () => controller.abort(), { once: true })
        return controller.signal
      },
      abort: () => abort?.abort(),
    }
  }

  function dispatch(call: Call): Observable<unknown> {
    return new Observable<unknown>(subscriber => {
      const tracked = track(call)
      const fail = (error: unknown) => {
        const answer = toOperationError(error, call, log)
        tracked.finish(answer)
        subscriber.error(answer)
      }
      let settledEarly = false
      const handlerSignal = lazySignal(call, () => settledEarly)
      let inner: { unsubscribe(): void } | undefined
      begin(call, tracked, handlerSignal.signal, (result, started) => {
        const answers: Observable<unknown> = isObservable(result) ? result : from(result as Promise<unknown>)
        const observer: Observer<unknown> = {
          next: value => subscriber.next(value),
          error: error => {
            tracked.timings.handleUs = micros(started)
            fail(error)
          },
          complete: () => {
            tracked.timings.handleUs = micros(started)
            tracked.finish(undefined)
            subscriber.complete()
          },
        }
        inner = answers.subscribe(observer)
      }).catch(fail)
      return () => {
        inner?.unsubscribe()
        // Only a caller that leaves early aborts the handler; building an AbortError for every finished call
        // cost ~4% of a payment's CPU.
        if (!tracked.finished) {
          settledEarly = true
          handlerSignal.abort()
        }
        tracked.finish(undefined)
      }
    })
  }

  /**
   * The same steps as `dispatch` for a caller that wants the last answer only (one request, one reply): no
   * Observable is made for the call or for its handler's promise, which an operation answered once does not need
   * (RxJS's own work was about 3 % of the daemon's thread in a profile of invoices on a real LND).
   */
  async function call(call: Call): Promise<unknown> {
    const tracked = track(call)
    const handlerSignal = lazySignal(call, () => false)
    let started: number | undefined
    try {
      const value = await begin(call, tracked, handlerSignal.signal, (result, at) => {
        started = at
        return isObservable(result) ? lastValueFrom(result, { defaultValue: undefined }) : result
      })
      tracked.timings.handleUs = micros(started!)
      tracked.finish(undefined)
      return value
    } catch (error) {
      if (started !== undefined) tracked.timings.handleUs = micros(started)
      const answer = toOperationError(error, call, log)
      tracked.finish(answer)
      throw answer
    }
  }

  return {
    resolve: op => registry.lookup(op)?.entry,
    dispatch: call => defer(() => dispatch(call)),
    call,
    outcomes$: outcomes.asObservable(),
    drain,
  }
}

/** The access line of a call no transport writes one for: status is only ok or error. */
function accessLine(outcome: CallOutcome, registry: Registry): AccessLine {
  return {
    transport: outcome.transport,
    operation: registry.lookup(outcome.op)?.entry.name ?? null,
    caller: outcome.caller?.kind ?? 'none',
    outcome: outcome.errorCode ?? 'ok',
    status: outcome.ok ? 'ok' : 'error',
    durationMs: outcome.durationMs,
    requestId: outcome.requestId,
  }
}

function micros(startedMs: number): number {
  return Math.round((performance.now() - startedMs) * 1000)
}

function validate(entry: CatalogueEntry, raw: unknown, log: Logger): unknown {
  if (nestedDeeperThan(raw, maxInputDepth)) return invalid(entry, `body: nested deeper than ${maxInputDepth} levels`)
  const schema = entry.input as z.ZodType
  const parsed = schema.safeParse(raw ?? {})
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    const field = issue.path.length > 0 ? issue.path.join('.') : 'body'
    return invalid(entry, `${field}: ${issue.message}`)
  }
  // Checked on what the operation will use (Lightning.Pub's ignored fields are gone by now); the depth is bounded.
  const unkept = fieldNoStoreKeeps(parsed.data)
  if (unkept !== undefined) return invalid(entry, `${unkept.at}: ${unkept.why}`)
  const policy = (entry as { unknownFields?: 'refuse' | 'ignore' }).unknownFields ?? (entry.dialect === 'pub' ? 'ignore' : 'refuse')
  if (policy === 'refuse') {
    // Names come from the caller: a few, cut short, are enough to act on.
    const unknown = unknownFields(schema, raw).slice(0, 5).map(name => name.slice(0, 64))
    if (unknown.length > 0) {
      const first = unknown[0]!
      const meant = likelyMeant(first, knownFieldsBeside(schema, first))
      const more = unknown.length > 1 ? ` (also ${unknown.slice(1).join(', ')})` : ''
      return invalid(entry, `${first}: unknown field${meant ? `; did you mean ${meant}?` : ''}${more}`)
    }
  } else if (log.isLevelEnabled('debug')) {
    // Only looked for when someone reads it: payments go through this path.
    const unknown = unknownFields(schema, raw).slice(0, 5).map(name => name.slice(0, 64))
    if (unknown.length > 0) log.debug({ op: entry.name, fields: unknown }, 'ignored input fields the operation does not know')
  }
  return parsed.data
}

function invalid(entry: CatalogueEntry, message: string): never {
  const status = (entry as { validationStatus?: 400 | 422 }).validationStatus
  // Upstream answers every shape error with "invalid request body"; we keep that prefix for clients that
  // match on it and name the field after it.
  const text = entry.dialect === 'pub' ? `invalid request body: ${message}` : message
  return fail(new OperationError('invalid_input', text, status ? { status } : {}))
}

function fail(error: OperationError): never {
  throw error
}

/** Anything that is not an OperationError is a bug or an outage: logged with an id, answered generically. */
function toOperationError(error: unknown, call: Call, log: Logger): OperationError {
  if (isOperationError(error)) return error
  if (isStoreFault(error)) {
    // An outage of the books' database, not a bug: the caller is told what it means, the log says which.
    log.warn({ err: { message: (error as Error).message }, op: call.op, requestId: call.requestId }, 'operation cut short by a database fault')
    return new OperationError('internal', storeFaultReason, { status: 503 })
  }
  const errorId = randomUUID().slice(0, 8)
  log.error({ err: error, errorId, op: call.op, requestId: call.requestId }, 'operation failed unexpectedly')
  return new OperationError('internal', `internal error (id ${errorId})`)
}
