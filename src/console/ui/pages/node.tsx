// The node: its address for peers (pubkey@host:port), its liquidity and on-chain balance, a fresh on-chain address
// of its own wallet, its peers (add one) and its channels (open, close). Every figure and action is one of the
// daemon's operations (OperatorGetNode, OperatorListPeers, OperatorNewNodeAddress, AddPeer, OperatorListChannels,
// OpenChannel, CloseChannel); the embedded node answers them all, from a simulation, and the page says so.
import { useState } from 'preact/hooks'
import { call } from '../api.js'
import { Copy, Field, Qr, Section, Select, Status, Table, sats, short, submit, useAction, useLoad, when } from '../parts.js'
import { ChannelsTable, PeerName, type NodeChannel } from './node-channels.js'

interface NodeFacts {
  pubkey: string
  alias: string
  network: string
  version: string
  block_height: number
  synced_to_chain: boolean
  synced_to_graph: boolean
  uris: string[]
  active_channels: number
  pending_channels: number
  peers: number
  chain_balance_sats: number
  unconfirmed_chain_balance_sats: number
  outbound_sats: number
  inbound_sats: number
}

interface Peer {
  pubkey: string
  alias: string
  address: string
  inbound: boolean
  connected_at: number
}

const defaultPeerPort = 9735 // BOLT 1's port for Lightning peers

/** `pubkey@host:port` (the port may be left out) as AddPeer's fields; undefined when it does not look like one. */
function peerAddress(text: string): { pubkey: string; host: string; port: number } | undefined {
  const parts = /^([0-9a-fA-F]{66})@(\[[^\]]+\]|[^:@\s]+)(?::(\d{1,5}))?$/.exec(text.trim())
  if (!parts) return undefined
  return { pubkey: parts[1]!, host: parts[2]!.replace(/^\[|\]$/g, ''), port: parts[3] ? Number(parts[3]) : defaultPeerPort }
}

export function Node() {
  const about = useLoad(() => call<{ backend: string }>('/console/api/about'))
  const facts = useLoad(() => call<NodeFacts>('/api/operator/node'))
  const peers = useLoad(() => call<{ peers: Peer[] }>('/api/operator/node/peers').then(r => r.peers))
  const channels = useLoad(() => call<{ channels: NodeChannel[] }>('/api/operator/node/channels').then(r => r.channels))
  const action = useAction()
  const [address, setAddress] = useState<string | undefined>()
  const [peer, setPeer] = useState('')
  const [open, setOpen] = useState({ peer: '', amount: '', feeRate: '0' })
  const reload = () => {
    facts.reload()
    peers.reload()
    channels.reload()
  }
  const node = facts.data
  const embedded = about.data?.backend === 'embedded'
  const openPeer = open.peer || peers.data?.[0]?.pubkey || ''
  return (
    <>
      <h1>Node</h1>
      <p><button type="button" class="secondary" onClick={reload}>Refresh</button></p>
      {embedded && (
        <p class="hint" data-testid="embedded-note">
          This is the embedded node, a simulation for trying relaypay out: it answers everything on this page, but it
          listens on no address (no other node can reach it), its peers are only recorded (it knows no alias for
          them), its channels open and close at once on a chain that exists only here (a force close locks nothing),
          and nothing sent to its on-chain address from outside ever arrives.
          Run on LND (<code>[node] backend = "lnd"</code>) for real peers, channels and funds.
        </p>
      )}
      <Status error={facts.error ?? action.error} ok={action.ok} />
      <div class="grid">
        <Section title="Identity">
          <dl>
            <dt>Alias</dt><dd>{node?.alias ?? '…'}</dd>
            <dt>Network</dt><dd>{node ? `${node.network} · block ${node.block_height.toLocaleString('en')}` : '…'}</dd>
            <dt>Version</dt><dd>{node?.version ?? '…'}</dd>
            <dt>Synced</dt><dd>{node ? `${node.synced_to_chain ? 'chain ✓' : 'chain ✗'} · ${node.synced_to_graph ? 'graph ✓' : 'graph ✗'}` : '…'}</dd>
          </dl>
          {node && node.uris.map(uri => (
            <p class="id-line"><span class="mono wrap" data-testid="node-uri">{uri}</span><Copy text={uri} what={`the node address ${short(uri, 8)}`} /></p>
          ))}
          {node && node.uris.length === 0 && (
            <>
              <p class="id-line"><span class="mono wrap" data-testid="node-pubkey">{node.pubkey}</span><Copy text={node.pubkey} what="the node's public key" /></p>
              <p class="hint" data-testid="no-uri">The node announces no pubkey@host: it listens on no address other nodes can reach, so
                peers cannot connect to it; it can still connect to them.</p>
            </>
          )}
        </Section>
        <Section title="Funds and liquidity">
          <dl>
            <dt>On-chain</dt><dd data-testid="chain-balance">{node ? sats(node.chain_balance_sats) : '…'}{node?.unconfirmed_chain_balance_sats ? ` (+${sats(node.unconfirmed_chain_balance_sats)} unconfirmed)` : ''}</dd>
            <dt>Outbound</dt><dd data-testid="outbound">{node ? sats(node.outbound_sats) : '…'}</dd>
            <dt>Inbound</dt><dd data-testid="inbound">{node ? sats(node.inbound_sats) : '…'}</dd>
            <dt>Channels</dt><dd>{node ? `${node.active_channels} active, ${node.pending_channels} pending` : '…'}</dd>
          </dl>
          <p class="hint">Outbound: what the node can send (our side of its channels). Inbound: what it can receive (the peers' side).</p>
          <button type="button" class="secondary" disabled={action.busy} onClick={() => action.run(async () => {
            setAddress((await call<{ address: string }>('/api/operator/node/address', { method: 'POST' })).address)
            return 'A fresh address of the node\'s wallet is shown below.'
          })}>New on-chain address</button>
          {address && (
            <div class="secret" data-testid="node-address">
              <Qr text={`bitcoin:${address}`} label="QR code of the on-chain address" />
              <p class="id-line"><span class="mono wrap">{address}</span><Copy text={address} what="the on-chain address" /></p>
              <p class="hint">Funds sent here go to the node's own wallet (for opening channels), not to any user's balance.</p>
            </div>
          )}
        </Section>
      </div>
      <Section title="Peers">
        <Status error={peers.error} />
        <Table caption="Peers" head={['Peer', 'Address', 'Connected', 'Since']}
          rows={(peers.data ?? []).map(p => [
            <PeerName pubkey={p.pubkey} alias={p.alias} />,
            p.address,
            p.inbound ? 'they connected' : 'we connected',
            when(p.connected_at),
          ])} empty={peers.data ? 'No peer.' : 'Loading…'} />
        <form class="row" onSubmit={submit(() => action.run(async () => {
          const target = peerAddress(peer)
          if (!target) throw new Error('Give the peer as pubkey@host:port (66 hex characters, @, its address; the port is 9735 when left out).')
          await call('/api/admin/peer', { body: target })
          setPeer('')
          reload()
          return `Connected to ${short(target.pubkey, 8)} at ${target.host}:${target.port}.`
        }))}>
          <Field label="Peer (pubkey@host:port)" name="peer" required value={peer} onInput={e => setPeer(e.currentTarget.value)} />
          <button type="submit" disabled={action.busy}>Add peer</button>
        </form>
      </Section>
      <Section title="Channels">
        <Status error={channels.error} />
        <ChannelsTable channels={channels.data} embedded={embedded} busy={action.busy} run={action.run} closed={reload} />
        <h3>Open a channel</h3>
        <form class="row" onSubmit={submit(() => action.run(async () => {
          const amount = Number(open.amount)
          if (!openPeer) throw new Error('Add the peer first: a channel opens to a connected peer.')
          if (!confirm(`Open a channel of ${sats(amount)} to ${openPeer}? The amount leaves the node's on-chain wallet.`)) return 'No channel was opened.'
          await call('/api/admin/channel/open', { body: { node_pubkey: openPeer, local_funding_amount: amount, sat_per_v_byte: Number(open.feeRate) } })
          setOpen({ ...open, amount: '' })
          reload()
          return `A channel of ${sats(amount)} to ${short(openPeer, 8)} is opening.`
        }))}>
          <Select label="To peer" value={openPeer} onChange={peer => setOpen({ ...open, peer })}
            options={(peers.data ?? []).map(p => [p.pubkey, `${p.alias || short(p.pubkey, 8)} (${p.address})`])} />
          <Field label="Channel amount (sats)" name="channel-amount" type="number" min="1" required value={open.amount}
            onInput={e => setOpen({ ...open, amount: e.currentTarget.value })} />
          <Field label="Fee rate (sat/vB, 0: the node's estimate)" name="channel-fee" type="number" min="0" value={open.feeRate}
            onInput={e => setOpen({ ...open, feeRate: e.currentTarget.value })} />
          <button type="submit" disabled={action.busy || !openPeer}>Open channel</button>
        </form>
      </Section>
    </>
  )
}
