// CLINK manage (kind 21003; the CLINK manage spec, docs/pub-protocol.md "Manage"): another key creates, updates,
// deletes, reads and lists offers of a user who granted it that right — only the offers it created. A request from
// a key without a grant is parked (one per key) and pushed to the user as GetLiveManageRequests; AuthorizeManage
// grants or bans the key and replays the parked request. The account's own key needs no grant and manages all its
// offers; an account opened by CLINK enroll refuses other keys at once instead of asking. Answers:
// `{res:"ok", resource:"offer", details?}` or GFY.
import type { Logger } from 'pino'
import { decode as decodeNip19 } from 'nostr-tools/nip19'
import { type DomainEvent, OperationError, type HandlerTable } from '../../bus/index.js'
import type { SqlExecutor, SqlStore } from '../../store/index.js'
import type { Wallet } from '../../wallet/index.js'
import { clinkManageKind, type ClinkAnswer, type ClinkSender, type ClinkRequest } from '../wire.js'
import { requestHandler, type ClinkPart } from '../parts.js'
import { checkOfferFields, maxOfferPriceSats, OfferFieldError } from '../offer-fields.js'
import { offerStore, payerDataOf, type OfferRow } from '../offer-store.js'
import { manageStore, type ParkedRow } from '../manage-store.js'
import { nofferOf } from './offers.js'

/** Upstream's answer to a second request while one waits: retry after this many seconds. */
const retryAfterSeconds = 600
const actions = ['create', 'update', 'delete', 'get', 'list'] as const
type Action = (typeof actions)[number]

export interface ManagePartDeps {
  sql: SqlStore
  random(bytes: number): Uint8Array
  wallet: Pick<Wallet, 'accounts'>
  emit(event: DomainEvent): void
  relayUrl(): string
  allowLoopbackCallbacks: boolean
  now(): number
  log: Logger
}

type Payload = Record<string, unknown>
/** What a request comes to: an answer now, or waiting for the user `userId`. */
type Outcome = { answer: Payload } | { ask: string }

const gfy = (code: number, error: string, extra: Payload = {}): Outcome => ({ answer: { res: 'GFY', code, error, ...extra } })
const ownedBy = (appUser: { nostr_public_key: string | null } | undefined, requester: string) =>
  appUser?.nostr_public_key != null && appUser.nostr_public_key.toLowerCase() === requester.toLowerCase()

export function createManagePart(deps: ManagePartDeps, outbox: () => ClinkSender | undefined): ClinkPart {
  const { wallet, log } = deps
  const store = manageStore(deps.sql, deps.now)

  const offerData = (row: OfferRow, appPubkey: string) => ({
    id: row.offer_id,
    label: row.label,
    price_sats: row.price_sats,
    callback_url: row.callback_url,
    payer_data: payerDataOf(row),
    noffer: nofferOf(row, appPubkey, deps.relayUrl()),
  })

  /** The user an app-user identifier names in this app. */
  const userOfPointer = async (tx: SqlExecutor, pointer: unknown, appId: string): Promise<string | undefined> => {
    if (typeof pointer !== 'string') return undefined
    const appUser = await wallet.accounts.appUser(pointer, tx)
    return appUser && appUser.app_id === appId ? appUser.user_id : undefined
  }

  /**
   * What `requester` asking `body` of the app `appId` comes to, with every effect applied on `tx`: the grant is read
   * (and held) in the transaction that writes the offer, so a ban or reset committed meanwhile is never overtaken.
   * Awaits nothing but `tx` and may run again (a PostgreSQL retry): it sends nothing.
   */
  async function decide(tx: SqlExecutor, requester: string, appId: string, body: unknown): Promise<Outcome> {
    const offers = offerStore({ sql: tx, now: deps.now, random: deps.random })
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return gfy(6, 'Invalid Request: not a JSON object')
    const { resource, action, pointer, offer } = body as Payload
    if (resource !== 'offer') return gfy(6, 'Invalid Request: unknown resource')
    if (!actions.includes(action as Action)) return gfy(6, 'Invalid Request: unknown action')
    const appPubkey = (await wallet.accounts.appById(appId, tx))?.nostr_public_key
    if (!appPubkey) return gfy(2, 'Temporary Failure: unknown app')
    const offerObject = typeof offer === 'object' && offer !== null ? (offer as Payload) : undefined

    let userId: string | undefined
    let row: OfferRow | undefined
    // The account's own key (the one its wallet is linked to) manages every offer of it without a grant.
    let isOwner = false
    if (action === 'create' || action === 'list') {
      if (pointer === undefined) return gfy(1, 'Request Denied: No pointer provided')
      userId = await userOfPointer(tx, pointer, appId)
      if (!userId) return gfy(1, 'Request Denied: unknown pointer')
      isOwner = ownedBy(await wallet.accounts.appUserOf(userId, tx), requester)
    } else {
      const id = offerObject?.id
      if (typeof id !== 'string') return gfy(6, 'Invalid Request: offer.id is required')
      row = await offers.byId(id)
      const owner = row && (await wallet.accounts.appUserOf(row.user_id, tx))
      if (!row || row.deleted_at !== null || owner?.app_id !== appId) return gfy(1, 'Request Denied: Offer not found')
      isOwner = ownedBy(owner, requester)
      // Only the offers this key created, whatever else it may manage.
      if (!isOwner && row.management_pubkey !== requester) return gfy(1, 'Request Denied: this key does not manage the offer')
      userId = row.user_id
    }

    const grant = await manageStore(tx, deps.now).grant(userId, requester, { lock: true })
    if (grant?.banned) return gfy(1, 'Request Denied: App is banned')
    if (!isOwner && (!grant || (grant.expires_at > 0 && grant.expires_at < deps.now()))) return { ask: userId }

    const ok = (details?: unknown): Outcome => ({ answer: { res: 'ok', resource: 'offer', ...(details === undefined ? {} : { details }) } })
    if (action === 'list') {
      const listed = isOwner ? await offers.ofUser(userId) : await offers.managedBy(userId, requester)
      return ok(listed.map(r => offerData(r, appPubkey)))
    }
    if (action === 'get') return ok(offerData(row!, appPubkey))
    if (action === 'delete') {
      await offers.remove(row!.offer_id)
      return ok()
    }
    // The SDK sends `offer.fields`; the spec's create example puts the fields on `offer` itself.
    const given = offerObject?.fields ?? offerObject
    if (typeof given !== 'object' || given === null) return gfy(6, 'Invalid Request: offer fields are required')
    let fields
    try {
      const { label, price_sats, callback_url, payer_data } = given as Payload
      fields = checkOfferFields({ label, price_sats, callback_url, payer_data }, { allowLoopback: deps.allowLoopbackCallbacks })
    } catch (err) {
      if (!(err instanceof OfferFieldError)) throw err
      const range = err.field === 'price_sats' ? { range: { min: 0, max: maxOfferPriceSats } } : {}
      return gfy(5, 'Invalid Field/Value', { field: err.field, ...range })
    }
    if (action === 'create') return ok(offerData(await offers.add(userId, fields, requester), appPubkey))
    await offers.update(row!.offer_id, fields)
    return ok(offerData((await offers.byId(row!.offer_id))!, appPubkey))
  }

  /** Parks the request and asks the user; GFY 4 while an earlier request of this key still waits. */
  async function park(request: ClinkRequest, userId: string): Promise<ClinkAnswer | undefined> {
    const rateLimited = { payload: { res: 'GFY', code: 4, error: 'Rate Limited', retry_after: retryAfterSeconds } }
    const waiting = await store.parked(request.requester)
    if (waiting && deps.now() - waiting.parked_at < retryAfterSeconds * 1000) return rateLimited
    const account = await wallet.accounts.appUserOf(userId)
    if (!account?.nostr_public_key) return { payload: { res: 'GFY', code: 1, error: 'Request Denied: the user cannot be asked' } }
    // An account opened by CLINK enroll asks its user about no other key.
    if (account.owner_only_clink === 1) return { payload: { res: 'GFY', code: 1, error: 'Request Denied' } }
    if (waiting && (await store.unpark(waiting.requester, waiting.request_id))) {
      // Unanswered past the retry window: replaced by the new request.
      send(waiting, { res: 'GFY', code: 1, error: 'Request Denied: not approved in time' })
    }
    // One parked request per key: another request of this key that got here first keeps its place.
    const parked = await store.park({ requester: request.requester, requestId: request.id, appId: request.appId, userId, body: request.body, createdAt: request.createdAt })
    if (!parked) return rateLimited
    deps.emit({ type: 'user.push', userId, stream: 'GetLiveManageRequests', payload: { request_id: request.id, npub: request.requester } })
    log.info({ id: request.id, requester: request.requester }, 'CLINK manage request parked for the user')
    return undefined
  }

  function send(parked: ParkedRow, payload: Payload): void {
    const box = outbox()
    const sent = box?.send({ appId: parked.app_id, to: parked.requester, kind: clinkManageKind, replyTo: parked.request_id, payload })
    if (!sent) log.warn({ id: parked.request_id }, 'CLINK manage answer not sent: the relays are down')
  }

  /**
   * Replays a parked request the user decided on. Taking it out and running it commit together, so a crash cannot
   * run it twice and of two replays only one runs it; the answer goes out after the commit.
   */
  async function replay(parked: ParkedRow, banned: boolean): Promise<void> {
    const outcome = await deps.sql.transaction(async (tx): Promise<Outcome | undefined> => {
      if (!(await manageStore(tx, deps.now).unpark(parked.requester, parked.request_id))) return undefined
      return banned ? gfy(1, 'Request Denied') : decide(tx, parked.requester, parked.app_id, JSON.parse(parked.body))
    })
    if (!outcome) return
    // The grant was just checked, so asking again means the request now names someone else: refused.
    send(parked, 'answer' in outcome ? outcome.answer : { res: 'GFY', code: 1, error: 'Request Denied' })
  }

  const grantView = (grant: { serial: number; banned: number; npub: string }) => ({
    manage_id: String(grant.serial),
    authorized: grant.banned === 0,
    npub: grant.npub,
  })

  const handlers: HandlerTable = {
    AuthorizeManage: async ({ authorize_npub, request_id, ban }, ctx) => {
      const npub = hexKey(authorize_npub)
      const grant = await store.upsertGrant(ctx.caller.userId, npub, ban)
      const parked = await store.parked(npub)
      if (parked && parked.user_id === ctx.caller.userId && (!request_id || request_id === parked.request_id) && outbox()) {
        await replay(parked, ban)
      }
      return grantView(grant)
    },

    ResetManage: async ({ npub }, ctx) => {
      await store.removeGrant(ctx.caller.userId, hexKey(npub))
      return {}
    },

    GetManageAuthorizations: async (_input, ctx) => ({ manages: (await store.grantsOf(ctx.caller.userId)).map(grantView) }),
  }

  async function handle(request: ClinkRequest): Promise<ClinkAnswer | undefined> {
    try {
      const outcome = await deps.sql.transaction(tx => decide(tx, request.requester, request.appId, request.body))
      return 'answer' in outcome ? { payload: outcome.answer } : await park(request, outcome.ask)
    } catch (err) {
      log.error({ err, id: request.id }, 'CLINK manage request failed')
      return { payload: { res: 'GFY', code: 2, error: 'Temporary Failure' } }
    }
  }

  return {
    handlers: { ...handlers, ClinkManageRequest: requestHandler(clinkManageKind, handle) },
    // Approvals given while the relays were down are replayed once they are up.
    async ready() {
      for (const parked of await store.allParked()) {
        const grant = await store.grant(parked.user_id, parked.requester)
        if (grant && (grant.expires_at === 0 || grant.expires_at >= deps.now())) await replay(parked, grant.banned === 1)
      }
    },
  }
}

/** A key as upstream stores it: 64 hex; an npub is accepted and converted. */
function hexKey(text: string): string {
  const value = text.trim()
  if (/^[0-9a-fA-F]{64}$/.test(value)) return value.toLowerCase()
  if (value.startsWith('npub1')) {
    try {
      const decoded = decodeNip19(value)
      if (decoded.type === 'npub') return decoded.data
    } catch {
      // refused below
    }
  }
  throw new OperationError('invalid_input', 'npub must be a 64-hex public key or an npub')
}
