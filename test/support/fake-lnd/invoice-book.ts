// The fake LND's invoices, with LND's rules: real BOLT11 requests signed by the fake's node key, add and settle
// indexes that only grow, expired open invoices cancelled, and SubscribeInvoices' replay of adds and
// settlements above the indexes a subscriber gives before it goes live. A long history (100k invoices) is cheap:
// its invoices are signed only when one first goes on the wire, and every index is an array position.
import { createHash, randomBytes } from 'node:crypto'
import bolt11 from 'bolt11'
import { lndSays } from './rpc-error.js'

/** bolt11's network object for the invoice prefix of each network (it knows only bc/tb by itself). */
export type Bolt11Network = { bech32: string; pubKeyHash: number; scriptHash: number; validWitnessVersions: number[] }

/** LND's final CLTV delta for its invoices. */
const invoiceCltvExpiry = 80
/** Features LND sets on its invoices (BOLT 9): TLV onion and payment secret required, multi-part supported. */
export const invoiceFeatures = {
  9: { name: 'tlv-onion', is_required: true, is_known: true },
  14: { name: 'payment-addr', is_required: true, is_known: true },
  17: { name: 'multi-path-payments', is_required: false, is_known: true },
}

export interface FakeInvoice {
  paymentHash: string
  preimage: Buffer
  paymentAddr: Buffer
  request: string
  valueMsat: number
  memo: string
  descriptionHash: Buffer
  createdSec: number
  expirySec: number
  state: 'OPEN' | 'SETTLED' | 'CANCELED'
  addIndex: number
  settleIndex: number
  settledSec: number
  paidMsat: number
  private: boolean
}

export interface AddInvoice {
  valueMsat: number
  memo: string
  descriptionHash: Buffer
  expirySec: number
  preimage?: Buffer
  private: boolean
}

export interface InvoiceBookDeps {
  nodeKey: Uint8Array
  network: Bolt11Network
  now(): number
  blockHeight(): number
}

export type InvoiceListener = (invoice: FakeInvoice) => void

type SignedFields = Pick<
  FakeInvoice,
  'paymentHash' | 'paymentAddr' | 'valueMsat' | 'memo' | 'descriptionHash' | 'createdSec' | 'expirySec'
>

export function invoiceBook({ nodeKey, network, now, blockHeight }: InvoiceBookDeps) {
  const byHash = new Map<string, FakeInvoice>()
  // Add index n is at n - 1, settle index n at n - 1.
  const inAddOrder: FakeInvoice[] = []
  const inSettleOrder: FakeInvoice[] = []
  const open = new Set<FakeInvoice>()
  const listeners = new Set<InvoiceListener>()

  const nowSec = () => Math.floor(now() / 1000)
  const notify = (invoice: FakeInvoice) => {
    for (const listener of [...listeners]) listener(invoice)
  }
  // LND's invoice registry cancels an open invoice once it expires.
  const expireDue = () => {
    for (const invoice of open) {
      if (nowSec() >= invoice.createdSec + invoice.expirySec) {
        invoice.state = 'CANCELED'
        open.delete(invoice)
      }
    }
  }

  const signedRequest = (fields: SignedFields): string => {
    const unsigned = bolt11.encode(
      {
        network,
        timestamp: fields.createdSec,
        ...(fields.valueMsat > 0 ? { millisatoshis: String(fields.valueMsat) } : {}),
        tags: [
          { tagName: 'payment_hash', data: fields.paymentHash },
          { tagName: 'payment_secret', data: fields.paymentAddr.toString('hex') },
          fields.descriptionHash.length > 0
            ? { tagName: 'purpose_commit_hash', data: fields.descriptionHash.toString('hex') }
            : { tagName: 'description', data: fields.memo },
          { tagName: 'expire_time', data: fields.expirySec },
          { tagName: 'min_final_cltv_expiry', data: invoiceCltvExpiry },
          {
            tagName: 'feature_bits',
            data: {
              word_length: 4,
              var_onion_optin: { required: true, supported: true },
              payment_secret: { required: true, supported: true },
              basic_mpp: { required: false, supported: true },
            },
          },
        ],
      },
      false,
    )
    return bolt11.sign(unsigned, Buffer.from(nodeKey)).paymentRequest!
  }

  return {
    add(request: AddInvoice): FakeInvoice {
      const preimage = request.preimage ?? randomBytes(32)
      const paymentHash = createHash('sha256').update(preimage).digest('hex')
      if (byHash.has(paymentHash)) throw lndSays('invoice with payment hash already exists')
      const fields = {
        paymentHash,
        preimage,
        paymentAddr: randomBytes(32),
        valueMsat: request.valueMsat,
        memo: request.memo,
        descriptionHash: request.descriptionHash,
        createdSec: nowSec(),
        expirySec: request.expirySec,
      }
      const invoice: FakeInvoice = {
        ...fields,
        request: signedRequest(fields),
        state: 'OPEN',
        addIndex: inAddOrder.length + 1,
        settleIndex: 0,
        settledSec: 0,
        paidMsat: 0,
        private: request.private,
      }
      byHash.set(paymentHash, invoice)
      inAddOrder.push(invoice)
      open.add(invoice)
      notify(invoice)
      return invoice
    },

    /**
     * Adds `count` invoices from before the test, without telling subscribers (they predate every subscription):
     * every `settledEvery`-th is settled, the others expired and cancelled. Each is signed when it first goes on
     * the wire, so that the fake can hold a long history without signing all of it up front.
     */
    addHistory(count: number, { settledEvery }: { settledEvery: number }): void {
      const seed = randomBytes(16)
      const startSec = nowSec() - 30 * 86_400
      for (let n = 0; n < count; n++) {
        const preimage = createHash('sha256').update(seed).update(String(n)).digest()
        const paymentHash = createHash('sha256').update(preimage).digest('hex')
        const createdSec = startSec + Math.floor(n / 10)
        const settled = (n + 1) % settledEvery === 0
        const fields = {
          paymentHash,
          preimage,
          paymentAddr: createHash('sha256').update(paymentHash).digest(),
          valueMsat: 1000 * (1 + (n % 500)),
          memo: `order ${n}`,
          descriptionHash: Buffer.alloc(0),
          createdSec,
          expirySec: 3600,
        }
        let request: string | undefined
        const invoice = {
          ...fields,
          state: settled ? 'SETTLED' : 'CANCELED',
          addIndex: inAddOrder.length + 1,
          settleIndex: settled ? inSettleOrder.length + 1 : 0,
          settledSec: settled ? createdSec + 5 : 0,
          paidMsat: settled ? fields.valueMsat : 0,
          private: false,
        } as FakeInvoice
        Object.defineProperty(invoice, 'request', { enumerable: true, get: () => (request ??= signedRequest(fields)) })
        byHash.set(paymentHash, invoice)
        inAddOrder.push(invoice)
        if (settled) inSettleOrder.push(invoice)
      }
    },

    lookup(paymentHash: string): FakeInvoice | undefined {
      expireDue()
      return byHash.get(paymentHash)
    },

    /** ListInvoices: pages by add index, `indexOffset` exclusive, backwards when `reversed`. */
    list(query: { pendingOnly: boolean; indexOffset: number; max: number; reversed: boolean }): FakeInvoice[] {
      expireDue()
      const max = query.max > 0 ? query.max : 100
      const candidates = query.pendingOnly ? inAddOrder.filter(i => i.state === 'OPEN') : inAddOrder
      if (!query.pendingOnly) {
        // Add index n sits at n - 1.
        if (!query.reversed) return inAddOrder.slice(query.indexOffset, query.indexOffset + max)
        const end = query.indexOffset === 0 ? inAddOrder.length : query.indexOffset - 1
        return inAddOrder.slice(Math.max(0, end - max), end)
      }
      if (query.reversed) {
        const below = candidates.filter(i => query.indexOffset === 0 || i.addIndex < query.indexOffset)
        return below.slice(Math.max(0, below.length - max))
      }
      return candidates.filter(i => i.addIndex > query.indexOffset).slice(0, max)
    },

    /** Settles an open invoice as an incoming payment of `amountMsat` would (LND's invoice registry checks). */
    settle(paymentHash: string, amountMsat: number): FakeInvoice {
      expireDue()
      const invoice = byHash.get(paymentHash)
      if (!invoice) throw lndSays('unable to locate invoice')
      if (invoice.state === 'SETTLED') throw lndSays('invoice already paid')
      if (invoice.state === 'CANCELED') throw lndSays('invoice expired')
      if (amountMsat < invoice.valueMsat) throw lndSays('amount too low')
      invoice.state = 'SETTLED'
      open.delete(invoice)
      inSettleOrder.push(invoice)
      invoice.settleIndex = inSettleOrder.length
      invoice.settledSec = nowSec()
      invoice.paidMsat = amountMsat
      notify(invoice)
      return invoice
    },

    /**
     * SubscribeInvoices: adds above `addIndex`, then settlements above `settleIndex` (0: none of either), then
     * live. `replayed` counts what was sent before going live.
     */
    subscribe(
      addIndex: number,
      settleIndex: number,
      listener: InvoiceListener,
      opts: { settledInAddOrder?: boolean; hidden?: ReadonlySet<string> } = {},
    ): { stop(): void; replayed: number } {
      const settled = (settleIndex > 0 ? inSettleOrder.slice(settleIndex) : []).filter(i => !opts.hidden?.has(i.paymentHash))
      if (opts.settledInAddOrder) settled.sort((a, b) => a.addIndex - b.addIndex)
      const backlog = [...(addIndex > 0 ? inAddOrder.slice(addIndex) : []), ...settled]
      for (const invoice of backlog) listener(invoice)
      listeners.add(listener)
      return { stop: () => listeners.delete(listener), replayed: backlog.length }
    },

    /** lnrpc.Invoice as LND sends it. */
    asRpc(invoice: FakeInvoice) {
      const settled = invoice.state === 'SETTLED'
      return {
        memo: invoice.memo,
        r_preimage: invoice.preimage,
        r_hash: Buffer.from(invoice.paymentHash, 'hex'),
        value: Math.floor(invoice.valueMsat / 1000),
        value_msat: invoice.valueMsat,
        settled,
        creation_date: invoice.createdSec,
        settle_date: invoice.settledSec,
        payment_request: invoice.request,
        description_hash: invoice.descriptionHash,
        expiry: invoice.expirySec,
        fallback_addr: '',
        cltv_expiry: invoiceCltvExpiry,
        route_hints: [],
        private: invoice.private,
        add_index: invoice.addIndex,
        settle_index: invoice.settleIndex,
        amt_paid: Math.floor(invoice.paidMsat / 1000),
        amt_paid_sat: Math.floor(invoice.paidMsat / 1000),
        amt_paid_msat: invoice.paidMsat,
        state: invoice.state,
        htlcs: settled
          ? [
              {
                chan_id: '1',
                htlc_index: 0,
                amt_msat: invoice.paidMsat,
                accept_height: blockHeight(),
                accept_time: invoice.settledSec,
                resolve_time: invoice.settledSec,
                expiry_height: blockHeight() + invoiceCltvExpiry,
                state: 'SETTLED',
                custom_records: {},
                mpp_total_amt_msat: invoice.paidMsat,
              },
            ]
          : [],
        features: invoiceFeatures,
        is_keysend: false,
        payment_addr: invoice.paymentAddr,
        is_amp: false,
      }
    },
  }
}

export type InvoiceBook = ReturnType<typeof invoiceBook>
