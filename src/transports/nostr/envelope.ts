// The kind-21000 request envelope and reply shapes (docs/pub-protocol.md, "Kind 21000"). A request decrypts to
// `{rpcName, requestId, authIdentifier, body, query}`; a reply is the operation's answer in upstream's dialect with
// the requestId inside, since replies carry no `e` tag and clients correlate by it.

export interface RequestEnvelope {
  rpcName: string
  requestId: string
  /** Must equal the event's author; anything else is dropped without a reply. */
  authIdentifier: string
  body: Record<string, unknown>
  query: Record<string, unknown>
  /**
   * Why the request cannot run although it is addressed well enough to be answered (a body or query that is not
   * an object): it gets an ERROR reply with its requestId instead of silence, so its client does not wait out its
   * own timeout.
   */
  invalid?: string
}

/**
 * The envelope in a decrypted request, or undefined when it is not one (not JSON, no authIdentifier, a requestId that
 * is not a string: nothing to answer it by). One that names no operation (rpcName missing or not a string) but has a
 * requestId to answer by is read with rpcName '' and says so in `invalid`.
 */
export function parseEnvelope(plaintext: string): RequestEnvelope | undefined {
  let parsed: unknown
  try {
    parsed = JSON.parse(plaintext)
  } catch {
    return undefined
  }
  if (!isObject(parsed)) return undefined
  const { rpcName, requestId, authIdentifier, body, query } = parsed
  if (typeof authIdentifier !== 'string') return undefined
  if (requestId !== undefined && typeof requestId !== 'string') return undefined
  if (typeof rpcName !== 'string' && !requestId) return undefined
  const notAnObject = (value: unknown) => value !== undefined && value !== null && !isObject(value)
  const invalid =
    rpcName === undefined
      ? 'rpcName is missing: name the operation to call'
      : typeof rpcName !== 'string'
        ? `rpcName must be a string naming the operation, not ${kindOf(rpcName)}`
        : notAnObject(body)
          ? `invalid request body: the body must be a JSON object, not ${kindOf(body)}`
          : notAnObject(query)
            ? `invalid request body: the query must be a JSON object, not ${kindOf(query)}`
            : undefined
  return {
    rpcName: typeof rpcName === 'string' ? rpcName : '',
    requestId: requestId ?? '',
    authIdentifier,
    body: isObject(body) ? body : {},
    query: isObject(query) ? query : {},
    ...(invalid ? { invalid } : {}),
  }
}

function kindOf(value: unknown): string {
  return Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`
}

/** The operation input: the body merged with the query (NewProductInvoice sends `query: {id}`). */
export function envelopeInput(envelope: RequestEnvelope): Record<string, unknown> {
  return { ...envelope.body, ...envelope.query }
}

export function okReply(output: unknown, requestId: string): Record<string, unknown> {
  return { status: 'OK', ...(isObject(output) ? output : {}), requestId }
}

export function errorReply(reason: string, requestId: string): Record<string, unknown> {
  return { status: 'ERROR', reason, requestId }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
