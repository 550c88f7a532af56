// The node page's channels table (OperatorListChannels): each channel's peer by its alias from the node's graph, or
// its key shortened with the full one copyable; both sides' balances; and two ways to close it (CloseChannel), each
// behind a question that says what it means: cooperative (agreed with the peer, funds back after one confirmation)
// or forced (our last commitment alone, our side locked for the CSV delay, fees on-chain).
import { call } from '../api.js'
import { Copy, Table, sats, short } from '../parts.js'

export interface NodeChannel {
  channel_id: string
  channel_point: string
  peer_pubkey: string
  peer_alias: string
  capacity_sats: number
  local_balance_sats: number
  remote_balance_sats: number
  active: boolean
  private: boolean
  label: string
  force_close_delay_blocks: number
}

/** A peer's name: its alias where the graph has one, else its key shortened; the full key is always there to copy. */
export function PeerName(props: { pubkey: string; alias: string }) {
  return (
    <span class="actions">
      {props.alias
        ? <span data-testid="peer-alias" title={props.pubkey}>{props.alias}</span>
        : <span class="mono" data-testid="peer-key" title={props.pubkey}>{short(props.pubkey, 8)}</span>}
      {' '}<Copy text={props.pubkey} what={`the key of ${props.alias || short(props.pubkey, 8)}`} />
    </span>
  )
}

const blocksInHours = (blocks: number) => Math.round((blocks * 10) / 60)

/** What a force close means, for its question: the delay on our funds and who pays the fees. */
export function forceCloseQuestion(c: NodeChannel, peer: string, embedded: boolean): string {
  const delay = c.force_close_delay_blocks > 0
    ? `${c.force_close_delay_blocks} blocks (about ${blocksInHours(c.force_close_delay_blocks)} hours)`
    : 'the CSV delay the peer set for the channel'
  const simulated = embedded ? ' (The embedded node only simulates this: its chain is its own and nothing is locked there.)' : ''
  return `Force close the channel ${c.channel_point} with ${peer} (${sats(c.capacity_sats)}) without the peer? ` +
    `The node broadcasts its last commitment transaction alone: our side, ${sats(c.local_balance_sats)}, stays locked for ${delay} ` +
    `before it returns to the node's on-chain wallet, and the on-chain fees (the commitment's, fixed when it was signed, and the sweep's) ` +
    `come out of it. Use it only when the peer is gone or refuses a cooperative close.${simulated}`
}

export function cooperativeCloseQuestion(c: NodeChannel, peer: string): string {
  return `Close the channel ${c.channel_point} (${sats(c.capacity_sats)}) with ${peer} cooperatively? ` +
    `Both nodes sign the closing transaction: our side, ${sats(c.local_balance_sats)}, returns to the node's on-chain wallet ` +
    `less the closing fee once it confirms; the channel's liquidity is gone.`
}

export function ChannelsTable(props: {
  channels: NodeChannel[] | undefined
  embedded: boolean
  busy: boolean
  run: (action: () => Promise<string>) => void
  closed: () => void
}) {
  const close = (c: NodeChannel, force: boolean) => {
    const [txid, index] = c.channel_point.split(':')
    const peer = c.peer_alias || short(c.peer_pubkey, 8)
    if (!confirm(force ? forceCloseQuestion(c, peer, props.embedded) : cooperativeCloseQuestion(c, peer))) return
    props.run(async () => {
      const closed = await call<{ closing_txid: string }>('/api/admin/channel/close', {
        body: { funding_txid: txid, output_index: Number(index), force, sat_per_v_byte: 0 },
      })
      props.closed()
      return `Channel with ${peer} ${force ? 'force closing' : 'closing'} in transaction ${short(closed.closing_txid, 8)}.`
    })
  }
  return (
    <Table caption="Channels" head={['Peer', 'Channel', 'Capacity', 'Ours (outbound)', 'Theirs (inbound)', 'State', 'Close']}
      rows={(props.channels ?? []).map(c => {
        const name = c.label || short(c.channel_point, 8)
        return [
          <PeerName pubkey={c.peer_pubkey} alias={c.peer_alias} />,
          <span class="mono" title={c.channel_point}>{name}</span>,
          sats(c.capacity_sats),
          sats(c.local_balance_sats),
          sats(c.remote_balance_sats),
          c.active ? 'active' : 'inactive',
          <span class="actions">
            <button type="button" class="danger" aria-label={`Close channel ${name}`} disabled={props.busy}
              onClick={() => close(c, false)}>Close</button>
            <button type="button" class="danger" aria-label={`Force close channel ${name}`} disabled={props.busy}
              onClick={() => close(c, true)}>Force close</button>
          </span>,
        ]
      })} empty={props.channels ? 'No channel.' : 'Loading…'} />
  )
}
