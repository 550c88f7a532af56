// The LND backend's view of the chain, over the fake LND's ChainNotifier and WalletKit and the unmodified
// `lightning` client: waitForConfirmation answers only once a block holds the transaction (at once for one
// already mined at or above the height hint), checks nothing about a transaction it never saw, and stops when
// aborted; publishTransaction puts a transaction in the node's mempool. The embedded node refuses both.
import { randomBytes } from 'node:crypto'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { Transaction, p2wpkh } from '@scure/btc-signer'
import { openLnd, type LndHarness } from '../support/fake-lnd/lnd-harness.js'
import { rejectsWith } from './operation-error.js'
import { openEmbedded } from './embedded-harness.js'

const regtest = { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef }

/** A transaction paying a fresh P2WPKH output, from an input nobody checks (the fake has no UTXO set). */
function someTx() {
  const script = p2wpkh(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true), regtest).script
  const tx = new Transaction()
  tx.addOutput({ script, amount: 50_000n })
  tx.addInput({ txid: randomBytes(32), index: 0, finalScriptWitness: [randomBytes(64)] })
  return { txid: tx.id, hex: tx.hex, script: Buffer.from(script).toString('hex') }
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let tries = 0; tries < 500; tries++) {
    if (condition()) return
    await new Promise(resolve => setTimeout(resolve, 10))
  }
  assert.unreachable(`gave up waiting until ${what}`)
}

const s = suite('lnd backend: confirmations and publishing')
let h: LndHarness

s.before(async () => {
  h = await openLnd()
})
s.after(async () => {
  await h?.close()
})

s('a transaction in the mempool is reported once mined, with its block and raw transaction', async () => {
  const tx = someTx()
  h.fake.node.chain.publish(tx.hex)
  const heightHint = h.fake.node.blockHeight()
  let confirmed = false
  const waiting = h.node.waitForConfirmation({ txid: tx.txid, outputScript: tx.script, heightHint }, new AbortController().signal)
  waiting.then(() => (confirmed = true), () => undefined)
  await until(() => h.fake.node.chain.waiting.some(w => w.txid === tx.txid), 'the fake has the request')
  const request = h.fake.node.chain.waiting.find(w => w.txid === tx.txid)!
  assert.equal(request, { txid: tx.txid, script: tx.script, heightHint, numConfs: 1 }, 'txid in explorer order, the script, the hint')
  await new Promise(resolve => setTimeout(resolve, 50))
  assert.is(confirmed, false, 'nothing while it is only in the mempool')
  h.fake.node.mine()
  const confirmation = await waiting
  assert.is(confirmation.blockHeight, heightHint + 1)
  assert.is(confirmation.blockHash, h.fake.node.blockHash)
  assert.is(confirmation.rawTx, tx.hex)
  await until(() => !h.fake.node.chain.waiting.some(w => w.txid === tx.txid), 'the stream to be cancelled')
})

s('a transaction mined before the request is reported at once; one mined below the height hint is not found', async () => {
  const tx = someTx()
  h.fake.node.chain.publish(tx.hex)
  h.fake.node.mine()
  const minedAt = h.fake.node.blockHeight()
  const found = await h.node.waitForConfirmation({ txid: tx.txid, outputScript: tx.script, heightHint: minedAt - 5 }, new AbortController().signal)
  assert.is(found.blockHeight, minedAt)

  // LND looks back only to the hint: a hint above the block misses it, and the wait goes on until aborted.
  const controller = new AbortController()
  const missed = h.node.waitForConfirmation({ txid: tx.txid, outputScript: tx.script, heightHint: minedAt + 1 }, controller.signal)
  await until(() => h.fake.node.chain.waiting.some(w => w.txid === tx.txid), 'the request to wait')
  controller.abort(new Error('stopped by the test'))
  await missed.then(
    () => assert.unreachable('must not resolve'),
    err => assert.is((err as Error).message, 'stopped by the test'),
  )
  await until(() => !h.fake.node.chain.waiting.some(w => w.txid === tx.txid), 'the aborted stream to be cancelled')
})

s('a transaction the node never saw is never reported, whatever others say; a dropped stream rejects', async () => {
  const tx = someTx() // never published
  const waiting = h.node.waitForConfirmation(
    { txid: tx.txid, outputScript: tx.script, heightHint: h.fake.node.blockHeight() },
    new AbortController().signal,
  )
  await until(() => h.fake.node.chain.waiting.some(w => w.txid === tx.txid), 'the fake has the request')
  h.fake.node.mine()
  h.fake.node.mine()
  assert.ok(h.fake.node.chain.waiting.some(w => w.txid === tx.txid), 'still waiting after two blocks')
  for (const drop of [...h.fake.node.chainStreamDrops]) drop()
  await rejectsWith(waiting, 'node_unavailable')
})

s('bad requests are refused before anything is asked', async () => {
  const signal = new AbortController().signal
  await rejectsWith(h.node.waitForConfirmation({ txid: 'xyz', outputScript: '00', heightHint: 1 }, signal), 'invalid_input')
  await rejectsWith(h.node.waitForConfirmation({ txid: 'ab'.repeat(32), outputScript: '', heightHint: 1 }, signal), 'invalid_input')
  await rejectsWith(h.node.waitForConfirmation({ txid: 'ab'.repeat(32), outputScript: '00', heightHint: 0 }, signal), 'invalid_input')
  await rejectsWith(h.node.publishTransaction('not hex'), 'invalid_input')
})

s('publishTransaction hands a transaction to the node, which then has it in its mempool', async () => {
  const tx = someTx()
  assert.is(await h.node.publishTransaction(tx.hex), tx.txid)
  assert.ok(h.fake.node.chain.inMempool(tx.txid))
  h.fake.faults.unimplemented.add('PublishTransaction')
  try {
    await rejectsWith(h.node.publishTransaction(someTx().hex), 'not_implemented')
  } finally {
    h.fake.faults.unimplemented.delete('PublishTransaction')
  }
})

s('an LND without chainrpc says so', async () => {
  h.fake.faults.unimplemented.add('RegisterConfirmationsNtfn')
  try {
    const tx = someTx()
    await rejectsWith(
      h.node.waitForConfirmation({ txid: tx.txid, outputScript: tx.script, heightHint: 1 }, new AbortController().signal),
      'not_implemented',
    )
  } finally {
    h.fake.faults.unimplemented.delete('RegisterConfirmationsNtfn')
  }
})

s('the embedded node has no chain to watch or publish to', async () => {
  const embedded = await openEmbedded()
  try {
    const tx = someTx()
    await rejectsWith(embedded.node.waitForConfirmation({ txid: tx.txid, outputScript: tx.script, heightHint: 1 }, new AbortController().signal), 'not_implemented')
    await rejectsWith(embedded.node.publishTransaction(tx.hex), 'not_implemented')
  } finally {
    await embedded.close()
  }
})

s.run()
