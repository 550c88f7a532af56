// LND's GetInfo on our own gRPC channel (grpc-channel.ts): the start's check and the node's getInfo, without the
// `lightning` package. Its clients are built by parsing every .proto of LND with @grpc/proto-loader: ~0.7 s of the
// daemon's thread, and ~0.3 s more to load the package, which put the start on LND past 2 s. They are now built when
// something first needs them (lnd-connection.ts), after the daemon serves. Field numbers are lightning.proto's
// GetInfoResponse and Chain; the fake LND in test/support answers through @grpc/proto-loader, so a wrong number fails
// the LND tests.
import protobuf from 'protobufjs/minimal.js'
import type { BitcoinNetwork } from '../lightning-node.js'
import type { GrpcChannel } from './grpc-channel.js'

export interface LndInfo {
  publicKey: string
  alias: string
  version: string
  blockHeight: number
  syncedToChain: boolean
  syncedToGraph: boolean
  activeChannels: number
  pendingChannels: number
  peers: number
  uris: string[]
  /** LND's network names (chains[].network): mainnet, testnet, testnet4, signet, regtest, simnet. */
  networks: string[]
}

const lndNetworks: Readonly<Record<string, BitcoinNetwork>> = {
  mainnet: 'mainnet',
  testnet: 'testnet',
  testnet4: 'testnet',
  signet: 'signet',
  regtest: 'regtest',
}

/** The network LND runs on; undefined for one relaypay does not serve (simnet). */
export function networkOf(info: LndInfo): BitcoinNetwork | undefined {
  for (const name of info.networks) if (Object.hasOwn(lndNetworks, name)) return lndNetworks[name]
  return undefined
}

function decodeChainNetwork(reader: protobuf.Reader, end: number): string {
  let network = ''
  while (reader.pos < end) {
    const key = reader.uint32()
    if (key >>> 3 === 2) network = reader.string()
    else reader.skipType(key & 7)
  }
  return network
}

export function decodeGetInfo(bytes: Uint8Array): LndInfo {
  const info: LndInfo = {
    publicKey: '',
    alias: '',
    version: '',
    blockHeight: 0,
    syncedToChain: false,
    syncedToGraph: false,
    activeChannels: 0,
    pendingChannels: 0,
    peers: 0,
    uris: [],
    networks: [],
  }
  const reader = protobuf.Reader.create(bytes)
  while (reader.pos < reader.len) {
    const key = reader.uint32()
    switch (key >>> 3) {
      case 1: info.publicKey = reader.string(); break
      case 2: info.alias = reader.string(); break
      case 3: info.pendingChannels = reader.uint32(); break
      case 4: info.activeChannels = reader.uint32(); break
      case 5: info.peers = reader.uint32(); break
      case 6: info.blockHeight = reader.uint32(); break
      case 9: info.syncedToChain = reader.bool(); break
      case 12: info.uris.push(reader.string()); break
      case 14: info.version = reader.string(); break
      case 16: {
        const length = reader.uint32()
        info.networks.push(decodeChainNetwork(reader, reader.pos + length))
        break
      }
      case 18: info.syncedToGraph = reader.bool(); break
      default: reader.skipType(key & 7)
    }
  }
  return info
}

const emptyRequest = () => Buffer.alloc(0)

export function getInfo(rpc: GrpcChannel): Promise<LndInfo> {
  return rpc.unary('/lnrpc.Lightning/GetInfo', emptyRequest, decodeGetInfo, undefined)
}
