// A fake Boltz v2 provider for tests: real HTTP and WebSocket (/v2/ws) on 127.0.0.1, real Taproot swap trees
// and lockup transactions made with its own keys, and a broadcast endpoint that checks every spend of its swap
// outputs as a node would (spend-check.ts). It shares the fake LND's chain and Lightning network: it is paid by
// and pays the fake LND, and its time locks count the fake LND's blocks.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { randomBytes } from 'node:crypto'
import { WebSocketServer, type WebSocket } from 'ws'
import { hexToBytes } from '@noble/hashes/utils.js'
import { Transaction } from '@scure/btc-signer'
import type { FakeLnd } from '../fake-lnd/fake-lnd.js'
import { checkSpend, spendsOutput } from './spend-check.js'
import { swapBook } from './swap-book.js'
import { BadRequest, fees, limits, type Behaviour, type FakeSwap } from './swap-terms.js'

export interface Broadcast {
  txid: string
  hex: string
  swapId?: string
  path?: 'key' | 'claim-leaf' | 'refund-leaf'
}

export interface FakeBoltz {
  /** The HTTP base to configure ([swaps] providers http). */
  url: string
  wsUrl: string
  behaviour: Behaviour
  swaps: Map<string, FakeSwap>
  /** Transactions accepted by POST /v2/chain/BTC/transaction, each checked first. */
  broadcasts: Broadcast[]
  /** Broadcasts refused, with the reason (what a node would answer). */
  refusedBroadcasts: { hex: string; reason: string }[]
  /** Every request, as `METHOD path`. */
  requests: string[]
  /** Reverse: locks the coins (with autoLockup off). */
  lockup(id: string): void
  /** Submarine: pays the invoice of a locked swap (with autoPay off). */
  payInvoice(id: string): void
  close(): Promise<void>
}

export async function startFakeBoltz(opts: { lnd: FakeLnd; behaviour?: Partial<Behaviour> }): Promise<FakeBoltz> {
  const behaviour: Behaviour = {
    lieAboutAddress: false,
    lieAboutAmount: false,
    autoLockup: true,
    autoPay: true,
    failSwaps: false,
    refuseCooperation: false,
    lieAboutConfirmation: false,
    failBroadcasts: false,
    failClaimRequests: 0,
    ...opts.behaviour,
  }
  const sockets = new Map<WebSocket, Set<string>>()
  const statusMessage = (swap: FakeSwap) => ({
    id: swap.id,
    status: swap.status,
    ...(swap.failureReason ? { failureReason: swap.failureReason } : {}),
    ...(swap.lockup ? { transaction: { id: swap.lockup.txid, hex: swap.lockup.hex } } : {}),
  })
  const push = (ws: WebSocket, swap: FakeSwap) =>
    ws.send(JSON.stringify({ event: 'update', channel: 'swap.update', args: [statusMessage(swap)] }))
  const book = swapBook(opts.lnd, behaviour, swap => {
    for (const [ws, ids] of sockets) if (ids.has(swap.id)) push(ws, swap)
  })
  const onBlock = (height: number) => book.onBlock(height)
  opts.lnd.node.blockListeners.add(onBlock)
  // A provider watches the chain too: a script-path claim published elsewhere (through the client's own node)
  // shows the preimage, with which it settles the hold invoice.
  const stopWatchingChain = opts.lnd.node.chain.onPublish(published => {
    const tx = Transaction.fromRaw(hexToBytes(published.hex), { allowUnknownOutputs: true, allowUnknownInputs: true })
    for (const swap of book.swaps.values()) {
      if (swap.kind !== 'reverse' || !swap.lockup || swap.preimage) continue
      const index = spendsOutput(tx, swap.lockup)
      if (index < 0) continue
      const verdict = checkSpend(tx, index, book.outputFacts(swap), opts.lnd.node.blockHeight())
      if (verdict.ok && verdict.path === 'claim-leaf') book.learnPreimage(swap, verdict.preimage!)
    }
  })
  const broadcasts: Broadcast[] = []
  const refusedBroadcasts: { hex: string; reason: string }[] = []
  const requests: string[] = []
  const pairHash = randomBytes(8).toString('hex')

  /** Checked like a node would, then sent to the fake LND's chain (its mempool) as the provider's node relays it. */
  const broadcast = (hex: string): Broadcast => {
    if (behaviour.failBroadcasts) throw new Error('the provider cannot reach its node')
    let tx: Transaction
    try {
      tx = Transaction.fromRaw(hexToBytes(hex), { allowUnknownOutputs: true })
    } catch {
      throw new BadRequest('TX decode failed')
    }
    for (const swap of book.swaps.values()) {
      if (!swap.lockup) continue
      const index = spendsOutput(tx, swap.lockup)
      if (index < 0) continue
      const verdict = checkSpend(tx, index, book.outputFacts(swap), opts.lnd.node.blockHeight())
      if (!verdict.ok) {
        refusedBroadcasts.push({ hex, reason: verdict.reason })
        throw new BadRequest(verdict.reason)
      }
      if (swap.kind === 'reverse' && verdict.path === 'claim-leaf' && !swap.preimage) book.learnPreimage(swap, verdict.preimage!)
      if (swap.kind === 'submarine' && verdict.path !== 'claim-leaf') book.setStatus(swap, 'transaction.refunded')
      const accepted = { txid: tx.id, hex, swapId: swap.id, path: verdict.path }
      broadcasts.push(accepted)
      opts.lnd.node.chain.publish(hex)
      return accepted
    }
    const accepted = { txid: tx.id, hex }
    broadcasts.push(accepted)
    opts.lnd.node.chain.publish(hex)
    return accepted
  }

  const route = (method: string, path: string, body: any): unknown => {
    const parts = path.split('/').filter(Boolean) // v2, swap, reverse, <id>, claim
    if (method === 'GET' && path === '/v2/swap/reverse') {
      return {
        BTC: {
          BTC: {
            hash: pairHash,
            rate: 1,
            limits,
            fees: { percentage: fees.reverse.percentage, minerFees: { lockup: fees.reverse.lockup, claim: fees.reverse.claim } },
          },
        },
      }
    }
    if (method === 'GET' && path === '/v2/swap/submarine') {
      return { BTC: { BTC: { hash: pairHash, rate: 1, limits, fees: { percentage: fees.submarine.percentage, minerFees: fees.submarine.miner } } } }
    }
    if (method === 'POST' && path === '/v2/swap/reverse') return book.createReverse(body)
    if (method === 'POST' && path === '/v2/swap/submarine') return book.createSubmarine(body)
    if (method === 'POST' && path === '/v2/chain/BTC/transaction') return { id: broadcast(String(body.hex)).txid }
    if (method === 'GET' && parts.length === 3 && parts[1] === 'swap') {
      const swap = book.get(parts[2]!)
      const { id: _id, ...status } = statusMessage(swap)
      return status
    }
    if (parts.length === 5 && parts[1] === 'swap') {
      const swap = book.get(parts[3]!)
      const action = `${method} ${parts[2]} ${parts[4]}`
      if (action === 'GET reverse transaction' || action === 'GET submarine transaction') {
        if (!swap.lockup) throw new BadRequest('no lockup transaction yet')
        return { id: swap.lockup.txid, hex: swap.lockup.hex, timeoutBlockHeight: swap.timeoutBlockHeight }
      }
      if (action === 'POST reverse claim' && swap.kind === 'reverse') return book.claimReverse(swap, body)
      if (action === 'GET submarine claim' && swap.kind === 'submarine') {
        if (behaviour.failClaimRequests > 0) {
          behaviour.failClaimRequests--
          throw new Error('the provider is busy')
        }
        return book.claimRequest(swap)
      }
      if (action === 'POST submarine claim' && swap.kind === 'submarine') return book.acceptClaimSignature(swap, body)
      if (action === 'POST submarine refund' && swap.kind === 'submarine') return book.refundSubmarine(swap, body)
    }
    return undefined
  }

  const server = http.createServer((req, res) => {
    let text = ''
    req.on('data', chunk => (text += chunk))
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!
      requests.push(`${req.method} ${path}`)
      const answer = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' })
        res.end(JSON.stringify(value))
      }
      try {
        const body = text ? JSON.parse(text) : {}
        const result = route(req.method ?? 'GET', path, body)
        if (result === undefined) answer(404, { error: `no route ${req.method} ${path}` })
        else answer(201, result)
      } catch (err) {
        if (err instanceof BadRequest || err instanceof SyntaxError) answer(400, { error: err.message })
        else answer(500, { error: String(err) })
      }
    })
  })
  const wss = new WebSocketServer({ server, path: '/v2/ws' })
  wss.on('connection', ws => {
    sockets.set(ws, new Set())
    ws.on('close', () => sockets.delete(ws))
    ws.on('message', data => {
      let message: { op?: string; channel?: string; args?: string[] }
      try {
        message = JSON.parse(String(data))
      } catch {
        return
      }
      if (message.op === 'ping') return void ws.send(JSON.stringify({ event: 'pong' }))
      if (message.channel !== 'swap.update' || !Array.isArray(message.args)) return
      const ids = sockets.get(ws)!
      if (message.op === 'unsubscribe') {
        for (const id of message.args) ids.delete(id)
        return
      }
      if (message.op !== 'subscribe') return
      ws.send(JSON.stringify({ event: 'subscribe', channel: 'swap.update', args: message.args }))
      for (const id of message.args) {
        ids.add(id)
        const swap = book.swaps.get(id)
        if (swap) push(ws, swap)
      }
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port

  return {
    url: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}/v2/ws`,
    behaviour,
    swaps: book.swaps,
    broadcasts,
    refusedBroadcasts,
    requests,
    lockup: id => book.lockup(id),
    payInvoice: id => book.payInvoice(id),
    async close() {
      opts.lnd.node.blockListeners.delete(onBlock)
      stopWatchingChain()
      opts.lnd.node.remoteNodes.delete(book.lnPubkey)
      for (const ws of sockets.keys()) ws.terminate()
      wss.close()
      server.closeAllConnections()
      await new Promise<void>(resolve => server.close(() => resolve()))
    },
  }
}
