// CLINK manage authorizations (remote offer management grants). Fields: upstream's structs.proto.
import { bool, list, message, optional, text } from '../../../../schema/dsl.js'

export const ManageAuthorization = message('ManageAuthorization', {
  manage_id: text(), // serial id as string
  authorized: bool(),
  npub: text(),
})

export const ManageAuthorizations = message('ManageAuthorizations', {
  manages: list(ManageAuthorization),
})

export const ManageAuthorizationRequest = message('ManageAuthorizationRequest', {
  authorize_npub: text(),
  request_id: optional(text()),
  ban: bool(),
})

export const ManageOperation = message('ManageOperation', {
  npub: text(),
})

export const LiveManageRequest = message('LiveManageRequest', {
  request_id: text(), // event id of the incoming kind-21003 request
  npub: text(),
})
