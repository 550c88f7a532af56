// One catalogue entry describes everything the transports, the validator, the docs and the CLI need to know
// about an operation. The dispatcher interprets entries; nothing is generated per operation.
import type { z } from 'zod'

/**
 * Caller kinds. The first six are the payments service's, upstream's six (docs/pub-protocol.md, "Callers"); the
 * rest are the wallet host's, used by the extensions and the model registry.
 */
export type AuthKind =
  | 'guest' // no credentials
  | 'user' // user JWT over HTTP, any key over Nostr
  | 'admin' // static admin token, or the enrolled admin pubkey over Nostr
  | 'metrics' // metrics token (falls back to the admin token)
  | 'app' // application JWT
  | 'guestPub' // Nostr only: the event's pubkey and the addressed app
  | 'walletInvoice' // X-Api-Key / api-key: an invoice key or an admin key of a wallet
  | 'walletAdmin' // X-Api-Key / api-key: the admin key of a wallet
  | 'operator' // the host super user: `Authorization: Bearer <admin token>`
  | 'member' // any authenticated person: user token, wallet key or the operator's admin token
  | 'guestOrWallet' // no credentials needed; a wallet key (invoice or admin), when sent, names the caller's wallet
  | 'nwcConnection' // Nostr kind 23194 only: the NWC connection whose service key the request addressed, sent by its client key
  | 'clinkRequester' // Nostr kinds 21001–21003 only: the event's author and the app whose key it addressed

/** How errors and answers are written: upstream's 200 + status envelope, or status codes + `{detail}`. */
export type Dialect = 'pub' | 'detail'

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE'

/** A path parameter of an HttpBinding's path, `:name` or `{name}`: the name is group 1 or group 2. */
export const pathParameterPattern = /:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\}/g

/** Who may call an operation of each caller kind, in words, for the generated docs (operations.md and OpenAPI). */
export const callerNames: Record<AuthKind, string> = {
  guest: 'Guest (no credentials)',
  user: 'User (user token over HTTP; any key over Nostr)',
  admin: 'Admin (admin token; enrolled admin key over Nostr)',
  metrics: 'Metrics (metrics token, else admin token)',
  app: 'App (app token)',
  guestPub: 'GuestWithPub (Nostr only)',
  walletInvoice: 'wallet invoice key or admin key (`X-Api-Key`)',
  walletAdmin: 'wallet admin key (`X-Api-Key`)',
  operator: 'operator (`Authorization: Bearer <admin token>`)',
  member: 'any authenticated user (user token, wallet key or admin token)',
  guestOrWallet: 'Guest (no credentials); an optional wallet key (`X-Api-Key`) names the caller\'s wallet',
  clinkRequester: 'CLINK requester (the request event\'s author; Nostr kinds 21001–21003 only)',
  nwcConnection: 'NWC connection (the client key of a live connection allowed the method; Nostr kind 23194 only)',
}

export interface HttpBinding {
  method: HttpMethod
  /** Path with `:name` or `{name}` parameters; parameters become input fields of the same name. */
  path: string
  /** Query parameters copied into the input (as strings unless the input schema coerces them). */
  query?: readonly string[]
  /**
   * Where the JSON body goes: `fields` (default) spreads an object body into the input; `whole` puts any JSON
   * body into the input field named by `bodyField`; `none` ignores the body (GET and Empty operations).
   */
  body?: 'fields' | 'whole' | 'none'
  bodyField?: string
  /** Success status in the detail dialect (default 200). */
  status?: number
}

export interface Operation<
  Name extends string = string,
  I extends z.ZodType = z.ZodType,
  O extends z.ZodType = z.ZodType,
  A extends AuthKind = AuthKind,
> {
  name: Name
  /** The section of the operations reference the entry is listed in (schema/sections.ts): cut by caller, not by room. */
  area: string
  auth: A
  dialect: Dialect
  http?: HttpBinding
  /** Other names or paths the same operation answers to (upstream spellings clients still send). */
  aliases?: readonly { name?: string; path?: string }[]
  /** Also callable over the Nostr relay transport (kind 21000). */
  nostr?: boolean
  /**
   * Served only by the codec of one Nostr kind, under the name that kind's protocol gives the request (the NIP-47
   * methods on kind 23194; docs/architecture.md, "The Nostr pipeline"). Such an operation has no HTTP route and is
   * no kind-21000 rpcName.
   */
  nostrCodec?: { kind: number; request: string }
  /** Server-streaming: the handler returns an Observable; over Nostr items are pushed. */
  stream?: boolean
  /**
   * A test-mode control (`[node] mock`): with test mode off it is refused with upstream's "mock disabled" answer
   * right after authentication, before its input is read, so that a caller is told test mode is off rather than
   * what is wrong with its fields.
   */
  testMode?: true
  /**
   * Only reads: running it twice changes nothing, and each run answers the state of its moment. Over Nostr such a
   * request is run without the exactly-once claim and its reply is not stored (transports/nostr/inbound.ts): a
   * repeat of the same event is run again. Never on an operation that writes, even idempotently.
   */
  repeatable?: boolean
  /** Carries several operations of its caller kind in one call (BatchUser). */
  batch?: boolean
  input: I
  output: O
  /**
   * Response body written by the handler itself (CSV exports, pages, the Prometheus exposition, a JSON document
   * rendered once and served as it is): the handler returns `{contentType, body}`.
   */
  produces?: 'text/csv' | 'text/html' | 'text/plain' | 'application/json'
  /**
   * Input fields the schema does not name: 'refuse' answers an error naming them; 'ignore' drops them and logs them
   * at debug (Lightning.Pub's behaviour: newer clients may send more). Default: 'ignore' in the pub dialect (the
   * Lightning.Pub wire set), 'refuse' in the detail dialect (extensions, models, host API); relaypay's own
   * operations of the pub dialect say 'refuse'.
   */
  unknownFields?: 'refuse' | 'ignore'
  /** Status for failed input validation in the detail dialect (FastAPI-style routes answer 422). */
  validationStatus?: 400 | 422
  /** Extension id whose gate (enabled per account, admin-only list) guards authenticated calls. */
  extension?: string
  /** Operations that exist only when `[node] mock = true` (test mode) answer the upstream error otherwise. */
  summary: string
}

/** Declares a catalogue entry; the generic parameters keep the name, input and output types for handlers. */
export function operation<const Name extends string, I extends z.ZodType, O extends z.ZodType, const A extends AuthKind>(
  entry: Operation<Name, I, O, A>,
): Operation<Name, I, O, A> {
  return entry
}
