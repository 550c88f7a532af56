// LNURL-channel (LUD-02), which upstream leaves unimplemented: the user's link tells a wallet which node to
// connect to; once connected, the wallet's callback has the node open a channel towards it. The node funds the
// channel from its own on-chain wallet, so a user gets one channel request honoured, ever.
import { type HandlerTable, OperationError } from '../../bus/index.js'
import type { LightningNode } from '../../node/index.js'
import type { LnurlKeysStore } from '../keys-store.js'
import type { ServiceUrl } from '../service-url.js'
import { encodeLnurl } from '../lnurl-string.js'

/** The size of a channel opened for a channel request, funded by the node. */
export const channelFundingSats = 100_000
/** Advertised when the node announces no URI of its own (the embedded node): the default Lightning port. */
const defaultPeerPort = 9735
const nodeId = /^(02|03)[0-9a-f]{64}$/

export interface ChannelDeps {
  keys: LnurlKeysStore
  url: ServiceUrl
  node: Pick<LightningNode, 'getInfo' | 'listPeers' | 'openChannel'>
}

export function channelHandlers({ keys, url, node }: ChannelDeps): HandlerTable {
  const usableKey = async (k1: string) => {
    const key = await keys.channelKey(k1)
    if (!key) throw new OperationError('not_found', 'invalid channel key')
    if (key.used_at !== null) throw new OperationError('conflict', 'this channel link was already used')
    return key
  }
  const nodeUri = async () => {
    const info = await node.getInfo()
    return info.uris[0] ?? `${info.pubkey}@${new URL(url.base()).hostname}:${defaultPeerPort}`
  }

  return {
    GetLNURLChannelLink: async (_input, ctx) => {
      const base = url.base()
      if (await keys.channelOpenedFor(ctx.caller.userId)) {
        throw new OperationError('conflict', 'a channel was already opened for this user')
      }
      const k1 = await keys.issueChannelKey(ctx.caller.userId)
      return { lnurl: encodeLnurl(`${base}/api/guest/lnurl_channel/info?k1=${k1}`), k1 }
    },

    GetLnurlChannelInfo: async ({ k1 }) => {
      const base = url.base()
      const key = await usableKey(k1)
      return { tag: 'channelRequest', uri: await nodeUri(), callback: `${base}/api/guest/lnurl_channel/handle`, k1: key.k1 }
    },

    HandleLnurlChannel: async ({ k1, remoteid, private: isPrivate }) => {
      url.base()
      const key = await usableKey(k1)
      const remote = remoteid.toLowerCase()
      if (!nodeId.test(remote)) throw new OperationError('invalid_input', 'remoteid must be a node public key')
      if (await keys.channelOpenedFor(key.user_id)) throw new OperationError('conflict', 'a channel was already opened for this user')
      const connected = (await node.listPeers()).some(peer => peer.pubkey.toLowerCase() === remote)
      if (!connected) throw new OperationError('invalid_input', `connect to ${await nodeUri()} first`)
      if (!(await keys.claimChannelKey(k1, remote))) {
        // Another of the user's links may have won the one channel a user gets, or this link was used meanwhile.
        if (await keys.channelOpenedFor(key.user_id)) throw new OperationError('conflict', 'a channel was already opened for this user')
        throw new OperationError('conflict', 'this channel link was already used')
      }
      try {
        await node.openChannel({ peerPubkey: remote, localFundingSats: channelFundingSats, private: isPrivate === '1' })
      } catch (err) {
        await keys.releaseChannelKey(k1)
        throw err
      }
      return {}
    },
  }
}
