// What each Bitcoin network looks like on the wire: the BOLT11 prefix of its invoices and the prefixes and
// version bytes of its addresses. BOLT11 and the address formats disagree for signet (invoices `lntbs`,
// addresses `tb1`), so the two are kept apart.
import { NETWORK, TEST_NETWORK } from '@scure/btc-signer'
import type { BitcoinNetwork } from '../lightning-node.js'

/** Address parameters in the shape @scure/btc-signer takes. */
export interface ChainParams {
  bech32: string
  pubKeyHash: number
  scriptHash: number
  wif: number
}

/** Network parameters in the shape the `bolt11` package takes; `bech32` is the invoice's coin part. */
export interface InvoiceParams {
  bech32: string
  pubKeyHash: number
  scriptHash: number
  validWitnessVersions: number[]
}

export interface NetworkParams {
  name: BitcoinNetwork
  invoice: InvoiceParams
  chain: ChainParams
}

// BIP-173 lists `bcrt` for regtest; base58 version bytes are testnet's.
const regtestChain: ChainParams = { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef }

const params: Record<BitcoinNetwork, NetworkParams> = {
  mainnet: { name: 'mainnet', invoice: invoiceParams('bc', NETWORK), chain: { ...NETWORK } },
  testnet: { name: 'testnet', invoice: invoiceParams('tb', TEST_NETWORK), chain: { ...TEST_NETWORK } },
  signet: { name: 'signet', invoice: invoiceParams('tbs', TEST_NETWORK), chain: { ...TEST_NETWORK } },
  regtest: { name: 'regtest', invoice: invoiceParams('bcrt', regtestChain), chain: regtestChain },
}

function invoiceParams(coin: string, chain: ChainParams): InvoiceParams {
  return { bech32: coin, pubKeyHash: chain.pubKeyHash, scriptHash: chain.scriptHash, validWitnessVersions: [0, 1] }
}

export function networkParams(network: BitcoinNetwork): NetworkParams {
  return params[network]
}
