// BatchUser: up to ten user operations run one after another, each through the
// dispatcher as the same user, so every entry gets the auth, validation and metrics of a call of its own. The
// answer holds one OK/ERROR object per entry, in order; reasons are upstream's (typos included: clients match).
import { type HandlerTable, type Dispatcher, OperationError, isOperationError } from '../../bus/index.js'
import type { Credentials, TokenSigner } from '../../auth/index.js'
import type { WalletAccounts } from '../../wallet/index.js'

/** Upstream's batch limit. */
export const maxBatchEntries = 10

export interface BatchDeps {
  /** The daemon's dispatcher (passed as a forwarding object: it is built after the handlers are registered). */
  dispatcher: Pick<Dispatcher, 'resolve' | 'call'>
  tokens: TokenSigner
  accounts: WalletAccounts
}

export function batchHandlers({ dispatcher, tokens, accounts }: BatchDeps): HandlerTable {
  return {
    BatchUser: async (input, ctx) => {
      if (!Array.isArray(input.requests)) throw new OperationError('invalid_input', 'invalid body, is not an array')
      if (input.requests.length > maxBatchEntries) throw new OperationError('invalid_input', 'too many requests in the batch')
      const { userId, appId, appUserId } = ctx.caller
      // Over the relay the entries are the same key's calls; over HTTP they carry a user token for the same user.
      const pubkey = ctx.transport === 'nostr' ? (await accounts.appUser(appUserId))?.nostr_public_key : null
      const credentials: Credentials = pubkey
        ? { nostr: { pubkey, appId } }
        : { authorization: await tokens.userToken({ user_id: userId, app_id: appId, app_user_id: appUserId }) }

      const responses: Record<string, unknown>[] = []
      for (const [index, request] of input.requests.entries()) {
        const entry = dispatcher.resolve(request.rpcName)
        if (!entry || entry.auth !== 'user' || entry.stream || entry.batch) {
          responses.push({ status: 'ERROR', reason: 'unkown rpcName' })
          continue
        }
        const req: unknown = request.req
        if (req !== undefined && req !== null && (typeof req !== 'object' || Array.isArray(req))) {
          // As for a call of its own: a body that is no object is refused, not run as an empty one.
          responses.push({ status: 'ERROR', reason: `invalid request body: the body must be a JSON object, not ${Array.isArray(req) ? 'an array' : `a ${typeof req}`}` })
          continue
        }
        const body = (req ?? {}) as Record<string, unknown>
        try {
          const output = await dispatcher.call({
            op: entry.name,
            credentials,
            input: { ...body, ...(request.query ?? {}) },
            transport: 'batch',
            requestId: `${ctx.requestId}:${index}`,
            signal: ctx.signal,
          })
          responses.push({ status: 'OK', ...(output as object) })
        } catch (err) {
          responses.push({ status: 'ERROR', reason: isOperationError(err) ? err.message : 'internal error' })
        }
      }
      return { responses }
    },
  }
}
