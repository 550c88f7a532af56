// How the fake answers a failed call: a gRPC status code and LND's own words. LND returns most refusals as plain
// Go errors, which reach a client as status UNKNOWN (2) with the error text as details.
export const grpcCode = {
  cancelled: 1,
  unknown: 2,
  invalidArgument: 3,
  notFound: 5,
  alreadyExists: 6,
  unimplemented: 12,
  unavailable: 14,
} as const

export class RpcError extends Error {
  constructor(
    readonly code: number,
    readonly details: string,
  ) {
    super(details)
  }
}

/** A refusal in LND's words, as LND sends it (status UNKNOWN). */
export function lndSays(details: string): RpcError {
  return new RpcError(grpcCode.unknown, details)
}

/** The status object grpc-js sends for an error thrown by a handler. */
export function statusOf(err: unknown): { code: number; details: string } {
  if (err instanceof RpcError) return { code: err.code, details: err.details }
  return { code: grpcCode.unknown, details: `fake LND bug: ${err instanceof Error ? err.stack : String(err)}` }
}
