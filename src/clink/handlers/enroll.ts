// CLINK enroll (kind 21004, from upstream's next version; docs/pub-protocol.md "Enroll"): a key opens an account in
// the app it addressed and gets the account's noffer, ndebit and nmanage pointers in one request. A key that has an
// account gets its pointers again (no proof of work, no limit); a new key's request must carry NIP-13 proof of work
// on its event id, and the node opens at most `[clink] enroll_accounts_per_minute` new accounts in any minute. An
// enrolled account is owner-only for debits and management: another key's request that would wait for the user is
// refused at once.
// Each request runs once (the transport claims its event id), and a request a stopped run had taken runs again on
// its redelivery (it opens no second account: `resume`); a key hears at most three answers a minute.
import type { Logger } from 'pino'
import { isOperationError } from '../../bus/index.js'
import { BoundedMap, SlidingWindow } from '../../limits/index.js'
import type { Wallet } from '../../wallet/index.js'
import { getPow } from 'nostr-tools/nip13'
import { encodeAccountPointers } from '../../nostr-codecs/index.js'
import { clinkEnrollKind, type ClinkAnswer, type ClinkRequest } from '../wire.js'
import { requestHandler, type ClinkPart, type EnrollSettings } from '../parts.js'
import { enrollTemporaryText } from '../gfy.js'

export interface EnrollPartDeps {
  wallet: Pick<Wallet, 'accounts' | 'nostr'>
  relayUrl(): string
  now(): number
  log: Logger
  enroll: EnrollSettings
}

/**
 * Answers a key hears a minute, and how many keys are counted at once: the most recent ones (under a flood of fresh
 * keys an older key's count is forgotten; the node's budget of new accounts still bounds what the flood opens).
 */
const repliesPerKey = 3
const replyWindowMs = 60_000
const keysCounted = 2000
/**
 * The window new accounts are counted in. Upstream's bound, which clients see: a sliding minute, not a bucket with a
 * burst (upstream refuses the 61st new account of any 60 s, where a bucket of 300 would open it) nor a fixed minute
 * (which frees every slot at once at its turn). Counted is each new key's request that passed the proof of work and
 * the app's consent, when it goes on to open its account (a refused one is not counted; one whose opening then fails
 * is); the refusal's `retry_after` is the unix second the oldest counted one leaves the window, when one more fits.
 * In memory, as upstream's: a restart starts it empty.
 */
const accountsWindowMs = 60_000

const gfy = (code: number, error: string, extra: Record<string, unknown> = {}): ClinkAnswer => ({
  payload: { res: 'GFY', code, error, ...extra },
  clinkVersion: true,
})
const denied = () => gfy(1, 'Denied / not allowed')
const temporary = () => gfy(2, enrollTemporaryText)
const invalid = () => gfy(6, 'Invalid Request')

export function createEnrollPart(deps: EnrollPartDeps): ClinkPart {
  const { wallet, log, enroll } = deps
  const answered = new BoundedMap<string, number[]>(keysCounted)
  const newAccounts = new SlidingWindow(enroll.accountsPerMinute, accountsWindowMs)

  /** Whether the requester may hear one more answer now; counts it. */
  const mayAnswer = (requester: string): boolean => {
    const now = deps.now()
    const recent = (answered.get(requester) ?? []).filter(at => now - at < replyWindowMs)
    if (recent.length >= repliesPerKey) return false
    recent.push(now)
    answered.set(requester, recent)
    return true
  }

  const pointersOf = async (appId: string, identifier: string): Promise<ClinkAnswer> => {
    const appPubkey = (await wallet.accounts.appById(appId))?.nostr_public_key
    const relay = deps.relayUrl()
    if (!appPubkey || !relay) return temporary()
    // The same pointers AppUser answers carry: the identifier as default offer, debit and manage pointer.
    return { payload: { res: 'ok', ...encodeAccountPointers(appPubkey, relay, identifier) }, clinkVersion: true }
  }

  /** The account of a key that has one: its pointers, unless it is another app's or banned. */
  const existing = async (request: ClinkRequest, identifier: string, appId: string, userId: string): Promise<ClinkAnswer> => {
    if (appId !== request.appId) return denied()
    const user = await wallet.accounts.userById(userId)
    if (!user || Number(user.locked) === 1) return denied()
    return pointersOf(appId, identifier)
  }

  async function decide(request: ClinkRequest): Promise<ClinkAnswer> {
    const body = request.body
    const version = request.tags.find(tag => tag[0] === 'clink_version')?.[1]
    if (version !== '1' || typeof body !== 'object' || body === null || Array.isArray(body)) return invalid()
    const actualDeltaMs = Math.abs(deps.now() - request.createdAt * 1000)
    if (!Number.isFinite(actualDeltaMs)) return invalid()
    if (actualDeltaMs > enroll.maxDeltaMs) {
      return gfy(3, 'Expired Request', { delta: { max_delta_ms: enroll.maxDeltaMs, actual_delta_ms: actualDeltaMs } })
    }
    const requester = request.requester.toLowerCase()
    const found = await wallet.nostr.appUserByPubkey(requester)
    if (found) return existing(request, found.identifier, found.app_id, found.user_id)

    if (enroll.powBits > 0) {
      const committed = Number(request.tags.find(tag => tag[0] === 'nonce' && tag.length >= 3)?.[2])
      if (!Number.isInteger(committed) || committed < enroll.powBits || getPow(request.id) < committed) {
        return gfy(5, 'Insufficient proof of work', { required_difficulty: enroll.powBits })
      }
    }
    const app = await wallet.accounts.appById(request.appId)
    if (!app || !app.allow_user_creation) return denied()
    const room = newAccounts.take(deps.now())
    if (!room.admitted) return gfy(4, 'Rate limited', { retry_after: Math.ceil(room.freeAt / 1000) })
    try {
      const created = await wallet.nostr.createForPubkey(request.appId, requester, { ownerOnlyClink: true })
      log.info({ id: request.id, requester, appId: request.appId }, 'CLINK enroll opened an account')
      return pointersOf(request.appId, created.identifier)
    } catch (err) {
      if (!isOperationError(err)) throw err
      // Another request of the same key opened it meanwhile: that account is the answer.
      if (err.code === 'conflict') {
        const winner = await wallet.nostr.appUserByPubkey(requester)
        if (winner) return existing(request, winner.identifier, winner.app_id, winner.user_id)
      }
      return denied()
    }
  }

  async function settle(request: ClinkRequest): Promise<ClinkAnswer> {
    try {
      return await decide(request)
    } catch (err) {
      log.error({ err, id: request.id }, 'CLINK enroll failed')
      return temporary()
    }
  }

  async function handle(request: ClinkRequest): Promise<ClinkAnswer | undefined> {
    const answer = await settle(request)
    // Past its answers for the minute a key hears nothing (what the request did, it did).
    if (!mayAnswer(request.requester.toLowerCase())) {
      log.info({ id: request.id, requester: request.requester }, 'CLINK enroll answer held back: the key had its answers for the minute')
      return undefined
    }
    return answer
  }

  return {
    handlers: { ClinkEnrollRequest: requestHandler(clinkEnrollKind, handle) },
    // A request a stopped run had taken is enrolled again, from its first check: run twice it still opens at most
    // one account, because an account is its key's (the unique key column, checked in the transaction that opens
    // it), so the second run finds the account the first opened, if it got that far, and answers its pointers; if
    // the first opened none, this run opens it. Answering "outcome unknown" instead would leave the event without
    // its account for good: a client that heard nothing publishes the same event again, and gets that answer again.
    resume: settle,
  }
}
