// Messages shared across areas: fee parameters, payer data, the encryption exchange and the service beacon.
// Fields: upstream's structs.proto (names and presence exactly as upstream).
import { int, map, message, optional, text } from '../dsl.js'

export { Empty } from '../dsl.js'

export const CumulativeFees = message('CumulativeFees', {
  serviceFeeFloor: int(), // sats
  serviceFeeBps: int(), // basis points
})

export const PayerData = message('PayerData', {
  data: map(text()),
})

export const EncryptionExchangeRequest = message('EncryptionExchangeRequest', {
  publicKey: text(),
  deviceId: text(),
})

export const BeaconData = message('BeaconData', {
  type: text(), // "service"
  name: text(),
  avatarUrl: optional(text()),
  nextRelay: optional(text()),
  fees: optional(CumulativeFees),
})
