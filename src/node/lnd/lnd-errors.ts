// LND's failures enter here. The `lightning` package reports them as `[status, 'CamelCaseCode', {err}]` arrays
// (err being the gRPC error with LND's own words in `details`), or throws an Error for a bad argument; this file
// turns both into an OperationError a caller can act on, so that no other code reads a library error.
import { isOperationError, OperationError, type ErrorCode } from '../../bus/index.js'

/** gRPC status codes (grpc/grpc doc/statuscodes.md) that decide how an LND answer is read. */
export const grpcStatus = {
  cancelled: 1,
  unknown: 2,
  invalidArgument: 3,
  deadlineExceeded: 4,
  notFound: 5,
  alreadyExists: 6,
  permissionDenied: 7,
  failedPrecondition: 9,
  unimplemented: 12,
  internal: 13,
  unavailable: 14,
  unauthenticated: 16,
} as const

/** One LND failure, flattened. */
export interface LndFailure {
  /** The library's status-like number (400 caller mistake, 404, 409, 501, 503 upstream), when it gave one. */
  status?: number
  /** The library's code ('LndLocked', 'UnexpectedPaymentError', …) or a thrown Error's message. */
  name: string
  /** The gRPC status of LND's answer, when there was an answer. */
  grpcCode?: number
  /** LND's own words (the gRPC status details). */
  details?: string
}

/** A translation specific to one call: the first rule whose pattern matches the library code or LND's words wins. */
export interface FailureRule {
  when: RegExp
  code: ErrorCode
  /** Defaults to LND's words. */
  message?: string | ((failure: LndFailure) => string)
}

export function describeLndFailure(err: unknown): LndFailure {
  if (Array.isArray(err)) {
    const [status, name, extra] = err as [unknown, unknown, unknown]
    const cause = (extra as { err?: unknown } | undefined)?.err
    const grpc = grpcErrorOf(cause)
    return {
      ...(typeof status === 'number' ? { status } : {}),
      name: typeof name === 'string' ? name : 'UnknownLndError',
      ...grpc,
      ...(grpc.details === undefined && typeof cause === 'string' ? { details: cause } : {}),
    }
  }
  const grpc = grpcErrorOf(err)
  if (grpc.grpcCode !== undefined) return { name: 'GrpcError', ...grpc }
  if (err instanceof Error) return { name: err.message }
  return { name: String(err) }
}

function grpcErrorOf(value: unknown): { grpcCode?: number; details?: string } {
  if (typeof value !== 'object' || value === null) return {}
  const { code, details } = value as { code?: unknown; details?: unknown }
  return {
    ...(typeof code === 'number' ? { grpcCode: code } : {}),
    ...(typeof details === 'string' ? { details: oneLine(details) } : {}),
  }
}

/** LND's words are shown to callers and written in logs as one line. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}

/**
 * A locked LND serves only its unlocker. Since 0.13 it answers every other call "wallet locked, unlock it to enable
 * full RPC access" (or "wallet not created" before it has one); older releases "unknown service lnrpc.Lightning".
 */
export function isLocked(f: LndFailure): boolean {
  const details = f.details ?? ''
  return f.name === 'LndLocked' || /^wallet (locked|not created)/i.test(details) || /unknown service lnrpc\./i.test(details)
}

/**
 * LND between opening its port and serving, as its RPC interceptor answers every call then: "waiting to start, RPC
 * services not available" (before it opens its wallet, or while it waits to be elected leader) and "the RPC server
 * is in the process of starting up, but not yet ready to accept calls" (wallet open, services not up yet). The
 * call was refused before it ran: nothing it asked for was done.
 */
export function isStarting(f: LndFailure): boolean {
  return /waiting to start, RPC services not available|in the process of starting up/i.test(f.details ?? '')
}

export function isUnreachable(f: LndFailure): boolean {
  if (/^FailedToConnectToDaemon/.test(f.name)) return true
  const code = f.grpcCode
  return code === grpcStatus.unavailable || code === grpcStatus.deadlineExceeded || code === grpcStatus.cancelled
}

export function isMacaroonRefused(f: LndFailure): boolean {
  return /verification failed|macaroon|permission denied/i.test(f.details ?? '') ||
    f.grpcCode === grpcStatus.unauthenticated || f.grpcCode === grpcStatus.permissionDenied
}

/**
 * The OperationError for a failed call to LND. `operation` completes "LND could not …" ("create an invoice").
 * An LND still starting comes first (its words could meet a call's rule); then rules specific to the call; then the
 * node-wide cases (locked, unreachable, refused macaroon); then the gRPC status and the library's status class.
 */
export function lndError(operation: string, err: unknown, rules: readonly FailureRule[] = []): OperationError {
  if (isOperationError(err)) return err
  const failure = describeLndFailure(err)
  const said = failure.details ?? failure.name
  if (isStarting(failure)) return new OperationError('node_unavailable', `LND is starting up: ${said}`)
  for (const rule of rules) {
    if (rule.when.test(failure.name) || (failure.details !== undefined && rule.when.test(failure.details))) {
      const message = rule.message === undefined ? said : typeof rule.message === 'string' ? rule.message : rule.message(failure)
      return new OperationError(rule.code, message)
    }
  }
  if (isLocked(failure)) return new OperationError('node_unavailable', 'LND is locked: its wallet must be unlocked')
  if (isUnreachable(failure) && /certificate|ssl|tls/i.test(said)) {
    // The file is read again for each new connection: an operator who puts LND's new tls.cert there is served again.
    return new OperationError('node_unavailable', `LND's TLS certificate is not the one at lnd_cert_path: ${said}`)
  }
  if (isUnreachable(failure)) return new OperationError('node_unavailable', `LND is unreachable: ${said}`)
  if (isMacaroonRefused(failure)) return new OperationError('node_unavailable', `LND refused relaypay's macaroon: ${said}`)
  const code = codeFor(failure)
  return new OperationError(code, code === 'upstream_failed' ? `LND could not ${operation}: ${said}` : said)
}

function codeFor(f: LndFailure): ErrorCode {
  switch (f.grpcCode) {
    case grpcStatus.unimplemented:
      return 'not_implemented'
    case grpcStatus.notFound:
      return 'not_found'
    case grpcStatus.alreadyExists:
      return 'conflict'
    case grpcStatus.invalidArgument:
      return 'invalid_input'
  }
  switch (f.status) {
    case 400:
      return 'invalid_input'
    case 404:
      return 'not_found'
    case 409:
      return 'conflict'
    case 501:
      return 'not_implemented'
  }
  return 'upstream_failed'
}
