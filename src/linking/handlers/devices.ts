// What a user's devices register: push-messaging tokens (EnrollMessagingToken) and the public key a device
// announces (EncryptionExchange, an HTTP-only guest call upstream answers and forgets; we keep the key per device).
import { type HandlerTable, OperationError } from '../../bus/index.js'
import type { LinkingStore } from '../linking-store.js'

const maxDeviceIdLength = 256
const maxTokenLength = 4096

export function deviceHandlers({ store }: { store: LinkingStore }): HandlerTable {
  return {
    EnrollMessagingToken: async (input, ctx) => {
      const deviceId = input.device_id.trim()
      const token = input.firebase_messaging_token.trim()
      // Upstream's custom check: both must be non-empty.
      if (deviceId.length === 0 || deviceId.length > maxDeviceIdLength || token.length === 0 || token.length > maxTokenLength) {
        throw new OperationError('invalid_input', 'MessagingToken::root: custom check failed')
      }
      await store.putDevice({ identifier: ctx.caller.appUserId, deviceId, token, now: ctx.clock.now() })
      return {}
    },
    EncryptionExchange: async (input, ctx) => {
      const deviceId = input.deviceId.trim()
      const publicKey = input.publicKey.trim()
      if (deviceId.length === 0 || deviceId.length > maxDeviceIdLength || publicKey.length === 0 || publicKey.length > maxTokenLength) {
        throw new OperationError('invalid_input', 'EncryptionExchangeRequest::root: custom check failed')
      }
      await store.putDeviceKey(deviceId, publicKey, ctx.clock.now())
      return {}
    },
  }
}
