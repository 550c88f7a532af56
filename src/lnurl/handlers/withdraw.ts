// LNURL-withdraw (LUD-03), which upstream leaves a stub: a single-use key bound to the wallet and a maximum; the
// wallet that scans the link presents an invoice, and it is paid from the balance through the normal payment
// path. The key is claimed atomically before paying, so a link pays out at most once.
import { type HandlerTable, OperationError, isOperationError } from '../../bus/index.js'
import type { LightningNode } from '../../node/index.js'
import type { Wallet, WalletAccounts } from '../../wallet/index.js'
import type { LnurlKeysStore } from '../keys-store.js'
import type { ServiceUrl } from '../service-url.js'
import { maxWithdrawableSats } from '../../wallet/index.js'
import { encodeLnurl } from '../lnurl-string.js'
import { msatAsSats, msatPerSat } from '../../units/index.js'

const minWithdrawableMsat = 1000

export interface WithdrawFees {
  serviceFeeBps: number
  serviceFeeFloorSats: number
}

export interface WithdrawDeps {
  keys: LnurlKeysStore
  url: ServiceUrl
  accounts: Pick<WalletAccounts, 'userById'>
  wallet: Pick<Wallet, 'payInvoiceFor'>
  node: Pick<LightningNode, 'decodeInvoice'>
  fees: WithdrawFees
  metaText: string
}

/** What the wallet can still send once the worst-case service fee is paid, in whole sats as msat. */
export function maxWithdrawableMsat(balanceMsat: number, fees: WithdrawFees): number {
  return maxWithdrawableSats(msatAsSats(balanceMsat), fees) * msatPerSat
}

export function withdrawHandlers(deps: WithdrawDeps): HandlerTable {
  const { keys, url } = deps

  const usableKey = async (k1: string) => {
    const key = await keys.withdrawKey(k1)
    if (!key) throw new OperationError('not_found', 'invalid withdraw key')
    if (key.used_at !== null) throw new OperationError('conflict', 'this withdraw link was already used')
    return key
  }
  /** The key's maximum, lowered to what the balance still allows. */
  const currentMaxMsat = async (userId: string, keyMaxMsat: number): Promise<number> => {
    const user = await deps.accounts.userById(userId)
    return user ? Math.min(keyMaxMsat, maxWithdrawableMsat(user.balance_msat, deps.fees)) : 0
  }

  return {
    GetLnurlWithdrawLink: async (_input, ctx) => {
      const base = url.base()
      const user = await deps.accounts.userById(ctx.caller.userId)
      if (!user) throw new OperationError('not_found', 'user not found')
      const k1 = await keys.issueWithdrawKey(user.id, maxWithdrawableMsat(user.balance_msat, deps.fees))
      return { lnurl: encodeLnurl(`${base}/api/guest/lnurl_withdraw/info?k1=${k1}`), k1 }
    },

    GetLnurlWithdrawInfo: async ({ k1 }) => {
      const base = url.base()
      const key = await usableKey(k1)
      return {
        tag: 'withdrawRequest',
        callback: `${base}/api/guest/lnurl_withdraw/handle`,
        k1: key.k1,
        defaultDescription: deps.metaText,
        minWithdrawable: minWithdrawableMsat,
        maxWithdrawable: await currentMaxMsat(key.user_id, key.max_msat),
        balanceCheck: '',
        payLink: '',
      }
    },

    HandleLnurlWithdraw: async ({ k1, pr }, ctx) => {
      url.base()
      const key = await usableKey(k1)
      let amountMsat: number | undefined
      try {
        amountMsat = (await deps.node.decodeInvoice(pr)).amountMsat
      } catch {
        throw new OperationError('invalid_input', 'invalid invoice')
      }
      if (!amountMsat) throw new OperationError('invalid_input', 'invoice has no amount')
      const maxMsat = await currentMaxMsat(key.user_id, key.max_msat)
      if (amountMsat < minWithdrawableMsat || amountMsat > maxMsat) {
        throw new OperationError('invalid_input', `invoice amount must be between ${minWithdrawableMsat} and ${maxMsat} millisats`)
      }
      if (!(await keys.claimWithdrawKey(k1, pr))) throw new OperationError('conflict', 'this withdraw link was already used')
      try {
        await deps.wallet.payInvoiceFor(key.user_id, pr)
      } catch (err) {
        // An outcome not known yet keeps the key spent: the money may already be on its way.
        if (isOperationError(err) && err.code !== 'upstream_failed' && err.code !== 'internal') {
          await keys.releaseWithdrawKey(k1)
        } else {
          await keys.settleWithdraw(k1, 'in_flight')
        }
        ctx.log.info({ k1: k1.slice(0, 8), code: isOperationError(err) ? err.code : 'unexpected' }, 'lnurl withdraw not paid')
        throw err
      }
      await keys.settleWithdraw(k1, 'paid')
      return {}
    },
  }
}
