// The fake LND's view of the chain beyond its own wallet: transactions others broadcast (a swap provider's
// lockup, a claim published through the node) enter its mempool and confirm in the next block a test mines.
// ChainNotifier confirmation requests are answered from here, the way LND answers them: a transaction found at
// or above the request's height hint, paying the request's script, reported once it has enough confirmations.
import { Transaction } from '@scure/btc-signer'
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js'

export interface ChainTx {
  txid: string
  hex: string
  /** Output scripts, hex, by index. */
  scripts: string[]
  /** Set once mined. */
  block?: { height: number; hash: string }
}

export interface ConfirmationWatch {
  txid: string
  script: string
  heightHint: number
  numConfs: number
}

type Watcher = ConfirmationWatch & { notify(tx: ChainTx): void }

export function fakeChain({ tipHeight }: { tipHeight(): number }) {
  const txs = new Map<string, ChainTx>()
  const watchers = new Set<Watcher>()
  const publishListeners = new Set<(tx: ChainTx) => void>()
  /** Every confirmation request ever made, in order: a test sees that (and how often) the daemon asked. */
  const registrations: ConfirmationWatch[] = []

  const ready = (w: Watcher, tx: ChainTx | undefined): tx is ChainTx & { block: { height: number; hash: string } } =>
    !!tx?.block &&
    tx.block.height >= w.heightHint &&
    tx.scripts.includes(w.script) &&
    tipHeight() - tx.block.height + 1 >= w.numConfs

  const check = (w: Watcher) => {
    const tx = txs.get(w.txid)
    if (!ready(w, tx)) return
    watchers.delete(w)
    w.notify(tx)
  }

  return {
    txs,
    registrations,

    /** A transaction broadcast to the network: into the mempool (again, if known: a re-broadcast is harmless). */
    publish(hex: string): ChainTx {
      let tx: Transaction
      try {
        tx = Transaction.fromRaw(hexToBytes(hex), { allowUnknownOutputs: true, allowUnknownInputs: true })
      } catch {
        throw new Error('TX decode failed')
      }
      const known = txs.get(tx.id)
      if (known) return known
      const scripts: string[] = []
      for (let i = 0; i < tx.outputsLength; i++) scripts.push(bytesToHex(tx.getOutput(i).script ?? new Uint8Array()))
      const entry: ChainTx = { txid: tx.id, hex, scripts }
      txs.set(entry.txid, entry)
      for (const listener of publishListeners) listener(entry)
      return entry
    },

    /** Follows every new transaction; the returned function stops it. */
    onPublish(listener: (tx: ChainTx) => void): () => void {
      publishListeners.add(listener)
      return () => publishListeners.delete(listener)
    },

    inMempool(txid: string): boolean {
      const tx = txs.get(txid)
      return !!tx && !tx.block
    },

    confirmedAt(txid: string): number | undefined {
      return txs.get(txid)?.block?.height
    },

    /** A block at `height`: the whole mempool confirms in it; watchers whose transaction is now deep enough hear. */
    mine(height: number, hash: string): void {
      for (const tx of txs.values()) if (!tx.block) tx.block = { height, hash }
      for (const w of [...watchers]) check(w)
    },

    /** RegisterConfirmationsNtfn: `notify` once the request is met (at once when it is already); returns a cancel. */
    watch(request: ConfirmationWatch, notify: (tx: ChainTx) => void): () => void {
      registrations.push({ ...request })
      const w: Watcher = { ...request, notify }
      watchers.add(w)
      check(w)
      return () => watchers.delete(w)
    },

    /** Requests still waiting. */
    get waiting(): ConfirmationWatch[] {
      return [...watchers].map(({ notify: _notify, ...request }) => request)
    },
  }
}

export type FakeChain = ReturnType<typeof fakeChain>
