// The errors a caller may see. Handlers throw OperationError with a code from a small closed set; each
// transport maps the code to its dialect once. Anything else is a bug or an outage and is answered generically.

export type ErrorCode =
  | 'invalid_input'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'insufficient_balance'
  | 'limit_exceeded'
  | 'node_unavailable'
  | 'upstream_failed'
  | 'not_implemented'
  | 'internal'

/** Status codes of the detail dialect (extensions, model registry, host API). */
export const detailStatus: Record<ErrorCode, number> = {
  invalid_input: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  insufficient_balance: 400,
  limit_exceeded: 429,
  node_unavailable: 503,
  upstream_failed: 502,
  not_implemented: 501,
  internal: 500,
}

/**
 * The answer to an operation cut short by a fault of the books' database (a dropped session, a restarting server, a
 * COMMIT whose answer was lost): some of it may have applied, so a client looks it up before trying again.
 */
export const storeFaultReason = 'the database failed during this request; its outcome is unknown: look it up before trying again'

export class OperationError extends Error {
  /** Overrides the dialect's status for this one error where the served API fixes it (e.g. 422, 500). */
  readonly status?: number
  /** For a rate refusal: when to ask again (HTTP `Retry-After`). */
  readonly retryAfterSeconds?: number
  /**
   * The error in the words of a protocol whose codes are finer than ours (NIP-47's QUOTA_EXCEEDED, PAYMENT_FAILED),
   * for the codec that answers in that protocol.
   */
  readonly wireCode?: string

  constructor(
    readonly code: ErrorCode,
    message: string,
    opts: { status?: number; retryAfterSeconds?: number; wireCode?: string } = {},
  ) {
    super(message)
    this.name = 'OperationError'
    this.status = opts.status
    if (opts.retryAfterSeconds !== undefined) this.retryAfterSeconds = opts.retryAfterSeconds
    if (opts.wireCode !== undefined) this.wireCode = opts.wireCode
  }
}

export function isOperationError(err: unknown): err is OperationError {
  return err instanceof OperationError
}

/** Upstream's answer to a test-mode control since its mock node was removed; clients may match on it. */
export const mockDisabledReason =
  'mock disabled, cannot set invoice as paid: test mode is off; turn it on with [node] mock = true (env RELAYPAY_NODE_MOCK=true), for tests and demos only'

/**
 * Takes a token of `limiter` for `key`, or refuses the call with `limit_exceeded` (HTTP 429 with Retry-After in whole
 * seconds) saying what was limited.
 */
export function takeOrRefuse(limiter: { take(key: string, now: number): number }, key: string, now: number, what: string): void {
  const waitMs = limiter.take(key, now)
  if (waitMs === 0) return
  const seconds = Math.max(1, Math.ceil(waitMs / 1000))
  throw new OperationError('limit_exceeded', `too many requests: ${what}; try again in ${seconds} s`, { status: 429, retryAfterSeconds: seconds })
}
